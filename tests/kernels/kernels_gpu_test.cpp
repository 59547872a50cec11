// Every registered kernel, every parameter combination, on shapes it allows (awkward ones too),
// against the float64 reference, with C poisoned before the run.
#include <fmt/format.h>

#include "support/gpu_test.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

namespace {

std::vector<std::string> all_kernel_ids() {
  std::vector<std::string> ids;
  for (const auto& k : Registry::instance().kernels()) ids.push_back(k->info().id);
  return ids;
}

// Squares (powers of two and the seeds' sizes), primes, 1, thin and non-multiples of any tile.
const std::vector<Shape> kShapes = {
    {1, 1, 1},      {2, 3, 5},       {17, 19, 23},   {64, 64, 64},    {127, 129, 131}, {176, 176, 176},
    {256, 256, 256}, {333, 97, 515}, {128, 1, 64},   {1, 128, 64},    {64, 64, 1},     {512, 512, 512},
    {1000, 1000, 1000}, {1024, 768, 320}};

class KernelCorrectness : public GpuTestWithParam<std::string> {};

TEST_P(KernelCorrectness, MatchesFloat64ReferenceOnEveryAllowedShape) {
  const Kernel& k = Registry::instance().get(GetParam());
  Lab lab;
  if (k.info().min_cc > lab.device().cc()) GTEST_SKIP() << "needs a newer GPU";
  int ran = 0;
  for (const Params& p : all_param_combinations(k)) {
    for (const Shape& s : kShapes) {
      if (k.reject(s, p, lab.device())) continue;
      if (k.info().slow && s.m * s.n * s.k > 256ll * 256 * 256) continue;
      SCOPED_TRACE(fmt::format("{} {} {}", k.info().id, params_to_string(p), to_string(s)));
      RunSpec spec;
      spec.kernel = k.info().id;
      spec.params = p;
      spec.shape = s;
      spec.timing.iters = 0;  // correctness only
      spec.compare_cublas = false;
      spec.inputs.seed = 1000 + ran;  // fresh inputs for every case
      const RunResult r = run_gemm(lab, spec);
      EXPECT_TRUE(r.kernel.first.passed) << r.kernel.first.summary();
      ++ran;
    }
  }
  EXPECT_GT(ran, 0) << "the kernel accepted none of the test shapes";
}

TEST_P(KernelCorrectness, AlphaBetaAndTimedRunsStayCorrect) {
  const Kernel& k = Registry::instance().get(GetParam());
  Lab lab;
  if (k.info().min_cc > lab.device().cc()) GTEST_SKIP() << "needs a newer GPU";
  const Params p = resolve_params(k, {});
  for (const Shape& s : {Shape{256, 256, 256}, Shape{160, 96, 352}, Shape{128, 128, 64}}) {
    if (k.reject(s, p, lab.device())) continue;
    SCOPED_TRACE(fmt::format("{} {}", k.info().id, to_string(s)));
    RunSpec spec;
    spec.kernel = k.info().id;
    spec.shape = s;
    spec.alpha = -1.5f;
    spec.beta = 0.75f;
    spec.timing = TimingPlan{1, 3, 5.0, false};
    spec.compare_cublas = false;
    const RunResult r = run_gemm(lab, spec);
    EXPECT_TRUE(r.kernel.first.passed) << r.kernel.first.summary();
    EXPECT_TRUE(r.kernel.last.passed) << "after timed runs: " << r.kernel.last.summary();
    return;
  }
  GTEST_SKIP() << "no test shape allowed";
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelCorrectness, ::testing::ValuesIn(all_kernel_ids()), kernel_test_name);

}  // namespace
