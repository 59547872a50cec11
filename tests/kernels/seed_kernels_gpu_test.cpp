// The seed ladder on the seeds' own experiment sizes: every seed kernel, every allowed parameter
// set, every size of the studies it accepts, against the float64 reference (C poisoned with NaN).
// The generic kernels_test.cpp covers awkward shapes; this covers what the studies will time.
#include <fmt/format.h>

#include "support/gpu_test.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

namespace {

// Every square size of the seed studies (seed000, seed002, seed003, seed004).
const std::vector<std::int64_t> kStudySizes = {64, 128, 176, 256, 352, 384, 512, 528, 640, 1024, 1600, 2048, 3200};
// The slow kernel (one SM) only up to seed 003's largest size for it.
constexpr std::int64_t kSlowMaxSize = 528;

std::vector<std::string> seed_kernel_ids() {
  std::vector<std::string> ids;
  for (const Kernel* k : Registry::instance().select("seed")) ids.push_back(k->info().id);
  return ids;
}

class SeedKernels : public GpuTestWithParam<std::string> {};

TEST_P(SeedKernels, VerifyOnEveryStudySizeAndBlock) {
  const Kernel& k = Registry::instance().get(GetParam());
  Lab lab;
  int ran = 0;
  for (const Params& p : all_param_combinations(k))
    for (std::int64_t n : kStudySizes) {
      const Shape s{n, n, n};
      if (k.info().slow && n > kSlowMaxSize) continue;
      if (auto why = k.reject(s, p, lab.device())) {
        ADD_FAILURE() << k.info().id << " " << params_to_string(p) << " rejects the study size " << n << ": " << *why;
        continue;
      }
      SCOPED_TRACE(fmt::format("{} {} {}", k.info().id, params_to_string(p), to_string(s)));
      RunSpec spec;
      spec.kernel = k.info().id;
      spec.params = p;
      spec.shape = s;
      spec.timing.iters = 0;
      spec.compare_cublas = false;
      spec.inputs.seed = 5000 + ran;
      const RunResult r = run_gemm(lab, spec);
      EXPECT_TRUE(r.kernel.first.passed) << r.kernel.first.summary();
      ++ran;
    }
  EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(Ladder, SeedKernels, ::testing::ValuesIn(seed_kernel_ids()), kernel_test_name);

class SeedKernelCases : public GpuTest {};

// Seed 004 times LinearInit inputs (large positive integers); the study verifies with them too, so
// the verifier must accept a correct kernel on them at the seed's largest size.
TEST_F(SeedKernelCases, VerifyAtSeed004SizesWithLinearInputs) {
  Lab lab;
  for (std::int64_t n : {1600, 3200})
    for (const auto& [id, params] : std::vector<std::pair<std::string, Params>>{
             {"seed.shared", {{"block", 32}}},
             {"seed.quadrant", {{"block", 16}, {"outputs", 4}}},
             {"seed.quadrant", {{"block", 32}, {"outputs", 8}}},
             {"seed.quadrant", {{"block", 32}, {"outputs", 16}}},
             {"cublas.fp32", {}}}) {
      SCOPED_TRACE(fmt::format("{} {} {}", id, params_to_string(params), n));
      RunSpec spec;
      spec.kernel = id;
      spec.params = params;
      spec.shape = {n, n, n};
      spec.timing.iters = 0;
      spec.compare_cublas = false;
      spec.inputs.init = Init::linear;
      const RunResult r = run_gemm(lab, spec);
      EXPECT_TRUE(r.kernel.first.passed) << r.kernel.first.summary();
      // LinearInit's all-positive sums round the same way step after step: at 3200 the worst element
      // measured 5.8e-5 of its |A||B| bound on an H100 (every kernel alike). Inside the 1e-4
      // tolerance, with the margin to notice a kernel that adds error of its own.
      EXPECT_LT(r.kernel.first.max_elementwise, 8e-5) << "LinearInit accuracy closer to the tolerance than expected";
    }
}

// The quadrant layout when the parts are not multiples of the block (seed 004's 1600 with 32x32
// blocks and 8 or 16 outputs), with alpha, beta and timed runs.
TEST_F(SeedKernelCases, QuadrantPartsThatAreNotMultiplesOfTheBlock) {
  Lab lab;
  for (int outputs : {4, 8, 16})
    for (const Shape& s : {Shape{1600, 1600, 1600}, Shape{1000, 1200, 333}, Shape{130, 70, 45}}) {
      SCOPED_TRACE(fmt::format("outputs {} {}", outputs, to_string(s)));
      RunSpec spec;
      spec.kernel = "seed.quadrant";
      spec.params = {{"block", 32}, {"outputs", outputs}};
      spec.shape = s;
      spec.alpha = 0.5f;
      spec.beta = -2.0f;
      spec.timing = TimingPlan{1, 3, 5.0, false};
      spec.compare_cublas = false;
      const RunResult r = run_gemm(lab, spec);
      EXPECT_TRUE(r.kernel.passed()) << r.kernel.first.summary() << " / " << r.kernel.last.summary();
    }
}

}  // namespace
