// The checker works: for every class of error in the seeds' printed code (docs/seed-errata.md),
// a kernel that makes it (broken_kernels.cu) runs through run_gemm like any kernel, and the
// verification must fail. A positive control on the same shapes shows the failures come from the
// errors, not from the shapes or the harness.
#include <optional>

#include <fmt/format.h>

#include "harness/broken_kernels.hpp"
#include "support/gpu_test.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

namespace {

class BrokenKernels : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped()) lab_.emplace();
  }
  // Verify only (iters = 0), or verify, time `iters` runs and verify again.
  RunResult run(const Kernel& k, const Shape& s, int iters = 0) {
    RunSpec spec;
    spec.shape = s;
    spec.timing = TimingPlan{1, iters, 5.0, false};
    spec.compare_cublas = false;
    spec.inputs.seed = 77;
    return run_gemm(*lab_, k, spec);
  }
  // The failure must be a gross one: far beyond the FP32 tolerance, or unwritten elements.
  static void expect_caught(const RunResult& r) {
    SCOPED_TRACE(r.spec.kernel);
    EXPECT_FALSE(r.kernel.passed()) << "the verifier let a broken kernel pass: " << r.kernel.first.summary();
    const Verification& v = r.kernel.first;
    EXPECT_TRUE(v.checked);
    EXPECT_TRUE(v.nonfinite > 0 || v.rel_frobenius > 1e-2 || v.max_elementwise > 1e-2) << v.summary();
  }
  std::optional<Lab> lab_;  // opened in SetUp, after the check for a GPU
};

TEST_F(BrokenKernels, IndexIgnoringTheBlockIsCaught) {
  expect_caught(run(*broken::index_ignores_block(), {64, 64, 64}));
}

TEST_F(BrokenKernels, OneAccumulatorForFourOutputsIsCaught) {
  expect_caught(run(*broken::one_accumulator_for_four_outputs(), {64, 64, 64}));
}

TEST_F(BrokenKernels, MissingBarrierIsCaught) {
  // Timed runs too: a race may also show only in a later run (the last verification).
  const RunResult r = run(*broken::missing_barrier(), {128, 128, 128}, 3);
  EXPECT_FALSE(r.kernel.passed()) << "first: " << r.kernel.first.summary() << " last: " << r.kernel.last.summary();
}

TEST_F(BrokenKernels, StaleDoubleBufferIsCaught) {
  expect_caught(run(*broken::stale_double_buffer(), {128, 128, 128}));
}

TEST_F(BrokenKernels, UnguardedPrefetchAtAnEdgeIsCaught) {
  // 100 is not a multiple of the 16-wide tiles: the last strip of K fetches elements of the next
  // row of A and from past the end of B into the sums.
  expect_caught(run(*broken::unguarded_prefetch(), {100, 100, 100}));
}

TEST_F(BrokenKernels, WrongQuadrantOffsetsAreCaught) {
  expect_caught(run(*broken::wrong_quadrant_offsets(), {256, 256, 256}));
}

TEST_F(BrokenKernels, UnwrittenEdgeTilesAreCaughtAsNaN) {
  const RunResult r = run(*broken::grid_rounded_down(), {100, 100, 100});
  expect_caught(r);
  // 16 x 6 = 96 rows and columns are covered: 100^2 - 96^2 elements keep the NaN poison.
  EXPECT_EQ(r.kernel.first.nonfinite, 100 * 100 - 96 * 96);
}

TEST_F(BrokenKernels, DroppedTailOfKIsCaught) {
  expect_caught(run(*broken::k_tail_dropped(), {100, 100, 100}));
}

TEST_F(BrokenKernels, ColumnOffsetFromBlockDimYIsCaughtWithNonSquareBlocks) {
  expect_caught(run(*broken::column_offset_uses_block_dim_y(16, 8), {64, 64, 64}));
  // With the square blocks seed 003 used, blockDim.y == blockDim.x and the error is invisible.
  EXPECT_TRUE(run(*broken::column_offset_uses_block_dim_y(16, 16), {64, 64, 64}).kernel.passed());
}

TEST_F(BrokenKernels, CorrectKernelsPassOnTheSameShapes) {
  for (const Shape& s : {Shape{64, 64, 64}, Shape{100, 100, 100}, Shape{128, 128, 128}, Shape{256, 256, 256}})
    for (const char* id : {"seed.naive", "seed.shared"}) {
      SCOPED_TRACE(fmt::format("{} {}", id, to_string(s)));
      const RunResult r = run(Registry::instance().get(id), s, 3);
      EXPECT_TRUE(r.kernel.passed()) << r.kernel.first.summary() << " / " << r.kernel.last.summary();
    }
}

}  // namespace
