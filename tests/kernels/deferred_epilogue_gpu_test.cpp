// The deferred epilogue of tc.tma_epilogue (hopper.cuh): a tile's last store boxes wait in
// registers and leave during the next tile's main loop, one every 1, 2, 4 or 8 k-tiles depending on
// K, or after it when K has fewer k-tiles than boxes. So the shapes give each CTA several tiles (more
// tiles than SMs) with K from one k-tile to many, ragged edges in M and N, FP32 and 16-bit C, and
// repeated launches. Every tile-shape and cluster combination; whole tiles only (the stream-K tail
// has its own test).
#include <fmt/format.h>

#include "support/gpu_test.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

namespace {

std::vector<std::string> deferred_kernels() {
  std::vector<std::string> ids;
  for (const auto& k : Registry::instance().kernels())
    if (k->info().id.rfind("tc.tma_epilogue.", 0) == 0) ids.push_back(k->info().id);
  if (ids.empty()) ids.push_back("none");  // built without sm_90a: one test that skips
  return ids;
}

class DeferredEpilogue : public GpuTestWithParam<std::string> {};

TEST_P(DeferredEpilogue, BoxesStoredDuringTheNextTileMatchTheReference) {
  if (GetParam() == "none") GTEST_SKIP() << "no tc.tma_epilogue kernel in this build";
  const Kernel& k = Registry::instance().get(GetParam());
  Lab lab;
  if (k.info().min_cc > lab.device().cc()) GTEST_SKIP() << "needs a newer GPU";
  // K = 8: one k-tile (all deferred boxes leave after the loop); 192: 3 k-tiles (fewer than the
  // boxes); 520: 9 (every 2nd); 2056: 33 (every 8th). 2176 x 2048 is 136 tiles of 128 x 256;
  // 2063 x 4104 is 17 x 17 with a partial last row and column.
  const std::vector<Shape> shapes = {{2176, 2048, 8}, {2176, 2048, 192}, {2063, 4104, 520}, {2063, 4104, 2056}};
  int ran = 0;
  for (Params p : all_param_combinations(k)) {
    // tile_n = 256 is what tile_n = 0 picks on these shapes; the group does not change the epilogue
    if (p.at("group") != 8 || p.at("stream_k") != 1 || p.at("tile_n") == 256) continue;
    p["stream_k"] = 0;
    for (const Shape& s : shapes) {
      if (k.reject(s, p, lab.device())) continue;
      for (const DType out : {DType::f32, operand_type(k.info().precision)}) {
        SCOPED_TRACE(fmt::format("{} {} {} C {}", k.info().id, params_to_string(p), to_string(s), dtype_name(out)));
        RunSpec spec;
        spec.kernel = k.info().id;
        spec.params = p;
        spec.shape = s;
        spec.output = out;
        spec.alpha = ran % 2 ? 1.0f : -0.75f;
        spec.timing = TimingPlan{0, 2, 5.0, false};
        spec.compare_cublas = false;
        spec.inputs.seed = 3000 + ran;
        const RunResult r = run_gemm(lab, spec);
        EXPECT_TRUE(r.kernel.first.passed) << r.kernel.first.summary();
        EXPECT_TRUE(r.kernel.last.passed) << "after timed runs: " << r.kernel.last.summary();
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(Hopper, DeferredEpilogue, ::testing::ValuesIn(deferred_kernels()), kernel_test_name);

}  // namespace
