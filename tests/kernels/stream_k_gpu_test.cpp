// The stream-K tails of the persistent sm_90a kernels. The shapes of kernels_test.cpp are too small
// to leave a partial last wave on a full GPU; these have one: more tiles than SMs, not a multiple of
// them, with K from a single k-tile (no tail: nothing to share) to many, and tails from a few units
// (many helpers per unit) to nearly a wave (3328 x 2560: 2 to 4 helpers with 32 items each). Every
// parameter combination of every kernel that has a "stream_k" parameter (2 forces the tail).
#include <fmt/format.h>

#include "support/gpu_test.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

namespace {

std::vector<std::string> stream_k_kernels() {
  std::vector<std::string> ids;
  for (const auto& k : Registry::instance().kernels())
    for (const ParamSpec& p : k->info().params)
      if (p.name == "stream_k") ids.push_back(k->info().id);
  if (ids.empty()) ids.push_back("none");  // built without sm_90a: one test that skips
  return ids;
}

class StreamKTail : public GpuTestWithParam<std::string> {};

TEST_P(StreamKTail, PartialLastWavesMatchTheReference) {
  if (GetParam() == "none") GTEST_SKIP() << "no kernel with a stream-K tail in this build";
  const Kernel& k = Registry::instance().get(GetParam());
  Lab lab;
  if (k.info().min_cc > lab.device().cc()) GTEST_SKIP() << "needs a newer GPU";
  // 17 x 8 tiles of 128 x 256 (9 x 16 of 256 x 128): just over a wave of 132 SMs; the prime 2063
  // leaves a ragged last row of tiles.
  const std::vector<Shape> shapes = {{2176, 2048, 64},  {2176, 2048, 1000}, {2063, 2056, 520},
                                     {4096, 2304, 256}, {3328, 2560, 1000}};
  int ran = 0;
  for (const Params& p : all_param_combinations(k)) {
    if (p.count("group") && p.at("group") != 8) continue;  // the raster group does not change the tail
    for (const Shape& s : shapes) {
      if (k.reject(s, p, lab.device())) continue;
      SCOPED_TRACE(fmt::format("{} {} {}", k.info().id, params_to_string(p), to_string(s)));
      RunSpec spec;
      spec.kernel = k.info().id;
      spec.params = p;
      spec.shape = s;
      spec.timing = TimingPlan{0, 2, 5.0, false};  // repeated launches: the flags must come back to zero
      spec.compare_cublas = false;
      spec.inputs.seed = 2000 + ran;
      if (ran % 3 == 1) spec.alpha = -0.5f, spec.beta = 2.0f;  // the direct epilogue
      const RunResult r = run_gemm(lab, spec);
      EXPECT_TRUE(r.kernel.first.passed) << r.kernel.first.summary();
      EXPECT_TRUE(r.kernel.last.passed) << "after timed runs: " << r.kernel.last.summary();
      ++ran;
    }
  }
  EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(Hopper, StreamKTail, ::testing::ValuesIn(stream_k_kernels()), kernel_test_name);

}  // namespace
