// The harness itself on a GPU: the device reference agrees with the CPU loop, the verifier catches
// what it must, .npy inputs and outputs round-trip, timings are sane.
#include <cstdio>
#include <filesystem>

#include <cuda_runtime.h>

#include "core/buffer.hpp"
#include "core/error.hpp"
#include "core/fill.hpp"
#include "core/npy.hpp"
#include "support/gpu_test.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"
#include "reference/cpu_gemm.hpp"
#include "reference/device_reference.hpp"
#include "results/record.hpp"

using namespace gemmlab;

namespace {

std::string tmp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gemmlab_gpu_" + name)).string();
}

class Harness : public GpuTest {};

TEST_F(Harness, DeviceReferenceMatchesCpuLoop) {
  Lab lab;
  const Shape s{37, 53, 29};
  const auto a = fill_uniform_host(s.m * s.k, 7, 1), b = fill_uniform_host(s.k * s.n, 7, 2);
  const auto c0 = fill_uniform_host(s.m * s.n, 7, 3);
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(c0.size() * 4);
  GEMMLAB_CUDA(cudaMemcpy(da.get(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
  GEMMLAB_CUDA(cudaMemcpy(db.get(), b.data(), db.bytes(), cudaMemcpyHostToDevice));
  GEMMLAB_CUDA(cudaMemcpy(dc.get(), c0.data(), dc.bytes(), cudaMemcpyHostToDevice));
  const DeviceReference ref =
      compute_reference(lab.cublas(), lab.stream(), s, 0.5, da.get(), db.get(), DType::f32, -2.0, dc.get(), DType::f32);
  std::vector<double> got(std::size_t(s.m * s.n)), scale(got.size());
  GEMMLAB_CUDA(cudaMemcpy(got.data(), ref.ref.get(), got.size() * 8, cudaMemcpyDeviceToHost));
  GEMMLAB_CUDA(cudaMemcpy(scale.data(), ref.scale.get(), got.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end()), want(c0.begin(), c0.end()), want_scale(got.size());
  gemm_cpu(s, 0.5, ad.data(), bd.data(), -2.0, want.data());
  std::vector<double> c0d(c0.begin(), c0.end());
  abs_gemm_cpu(s, 0.5, ad.data(), bd.data(), -2.0, c0d.data(), want_scale.data());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-12 * want_scale[i] + 1e-14) << i;
    ASSERT_NEAR(scale[i], want_scale[i], 1e-12 * want_scale[i]) << i;
  }
}

TEST_F(Harness, DeviceComparisonMatchesHostComparison) {
  Lab lab;
  const std::int64_t n = 5000;
  std::vector<float> c(n);
  std::vector<double> ref(n), scale(n);
  for (std::int64_t i = 0; i < n; ++i) {
    ref[i] = std::sin(double(i));
    scale[i] = 1.0 + (i % 7);
    c[i] = float(ref[i] * (1 + 1e-6 * double(i % 13)));
  }
  c[4321] = std::numeric_limits<float>::quiet_NaN();
  DeviceBuffer dc(n * 4), dr(n * 8), ds(n * 8);
  GEMMLAB_CUDA(cudaMemcpy(dc.get(), c.data(), n * 4, cudaMemcpyHostToDevice));
  GEMMLAB_CUDA(cudaMemcpy(dr.get(), ref.data(), n * 8, cudaMemcpyHostToDevice));
  GEMMLAB_CUDA(cudaMemcpy(ds.get(), scale.data(), n * 8, cudaMemcpyHostToDevice));
  const ErrorSums dev = compare_device(dc.get(), DType::f32, dr.as<double>(), ds.as<double>(), n, lab.stream());
  std::vector<double> cd(c.begin(), c.end());
  const ErrorSums host = compare_host(cd.data(), ref.data(), scale.data(), n);
  EXPECT_EQ(dev.count, n);
  EXPECT_EQ(dev.nonfinite, 1);
  EXPECT_EQ(host.nonfinite, 1);
  EXPECT_NEAR(dev.sum_sq_diff, host.sum_sq_diff, 1e-9 * host.sum_sq_diff);
  EXPECT_DOUBLE_EQ(dev.max_abs_diff, host.max_abs_diff);
  EXPECT_DOUBLE_EQ(dev.max_scaled_diff, host.max_scaled_diff);
}

TEST_F(Harness, NpyInputsAndSavedOutputRoundTrip) {
  Lab lab;
  const Shape s{24, 40, 16};
  HostMatrix a, b;
  a.rows = s.m; a.cols = s.k; a.dtype = DType::f32; a.bytes.resize(std::size_t(s.m * s.k * 4));
  b.rows = s.k; b.cols = s.n; b.dtype = DType::f64; b.bytes.resize(std::size_t(s.k * s.n * 8));
  for (std::int64_t i = 0; i < a.elements(); ++i) a.as<float>()[i] = float((i % 9) - 4);
  for (std::int64_t i = 0; i < b.elements(); ++i) b.as<double>()[i] = double((i % 5) - 2) * 0.5;
  write_npy(tmp("a.npy"), a);
  write_npy(tmp("b.npy"), b);
  RunSpec spec;
  spec.kernel = "seed.naive";
  spec.shape = s;
  spec.inputs.a_npy = tmp("a.npy");
  spec.inputs.b_npy = tmp("b.npy");
  spec.save_c = tmp("c.npy");
  spec.timing.iters = 0;
  spec.compare_cublas = false;
  const RunResult r = run_gemm(lab, spec);
  EXPECT_TRUE(r.kernel.first.passed);
  const HostMatrix c = read_npy(tmp("c.npy"));
  ASSERT_EQ(c.rows, s.m);
  ASSERT_EQ(c.cols, s.n);
  std::vector<double> want(std::size_t(s.m * s.n));
  gemm_cpu(s, 1.0, to_double(a).data(), to_double(b).data(), 0.0, want.data());
  const std::vector<double> got = to_double(c);
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << i;  // small integers: exact
  for (auto f : {"a.npy", "b.npy", "c.npy"}) std::remove(tmp(f).c_str());
}

TEST_F(Harness, NpyShapeMismatchIsAnError) {
  Lab lab;
  HostMatrix a;
  a.rows = 8; a.cols = 8; a.dtype = DType::f32; a.bytes.resize(256);
  write_npy(tmp("a8.npy"), a);
  RunSpec spec;
  spec.kernel = "seed.naive";
  spec.shape = {8, 8, 9};
  spec.inputs.a_npy = tmp("a8.npy");
  spec.inputs.b_npy = tmp("a8.npy");
  spec.timing.iters = 0;
  EXPECT_THROW(run_gemm(lab, spec), Error);
  std::remove(tmp("a8.npy").c_str());
}

TEST_F(Harness, TooLargeForMemoryIsRefusedBeforeAllocating) {
  Lab lab;
  RunSpec spec;
  spec.kernel = "seed.naive";
  spec.shape = {46000, 46000, 46000};  // ~8 GiB per FP32 matrix plus ~50 GiB of reference
  spec.timing.iters = 1;
  spec.params = {{"block", 16}};
  // Matrices of fewer than 2^31 elements cannot outgrow a GPU of 100 GiB or more (an H200's 141
  // GB holds this one, whose naive run and reference then take minutes).
  if (lab.device().global_mem_bytes >= (std::size_t(100) << 30))
    GTEST_SKIP() << "this GPU holds the largest problem of sub-2^31-element matrices";
  try {
    run_gemm(lab, spec);
    FAIL() << "expected an out-of-memory refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
  }
}

TEST_F(Harness, TimingIsPositiveAndCublasRatioIsReported) {
  Lab lab;
  RunSpec spec;
  spec.kernel = "seed.naive";
  spec.shape = {512, 512, 512};
  spec.timing = TimingPlan{2, 10, 5.0, true};
  const RunResult r = run_gemm(lab, spec);
  ASSERT_TRUE(r.kernel.timing);
  ASSERT_TRUE(r.cublas && r.cublas->timing);
  EXPECT_EQ(r.kernel.timing->iters, 10);
  EXPECT_GT(r.kernel.timing->ms.min, 0);
  EXPECT_LE(r.kernel.timing->ms.min, r.kernel.timing->ms.median);
  EXPECT_LE(r.kernel.timing->ms.median, r.kernel.timing->ms.max);
  EXPECT_GT(r.ratio_to_cublas(), 0);
  EXPECT_TRUE(r.passed());
}

// Cold runs (the L2 flushed before each timed run, harness/l2_flush.hpp) with either flush: timed
// as asked, the results still verified after the last timed run, and the flush's mode recorded.
TEST_F(Harness, ColdRunsAreTimedAndVerifiedWithEitherFlush) {
  for (const char* mode : {"read", "write"}) {
    ::setenv("GEMMLAB_L2_FLUSH", mode, 1);
    Lab lab;
    RunSpec spec;
    spec.kernel = "auto.bf16";
    spec.shape = {16, 1000, 3000};
    spec.timing = TimingPlan{1, 5, 5.0, true, true};
    const RunResult r = run_gemm(lab, spec);
    ASSERT_TRUE(r.kernel.timing && r.cublas && r.cublas->timing) << mode;
    EXPECT_EQ(r.kernel.timing->iters, 5) << mode;
    EXPECT_GT(r.kernel.timing->ms.min, 0) << mode;
    EXPECT_TRUE(r.kernel.last.checked) << mode;
    EXPECT_TRUE(r.passed()) << mode << ": " << r.kernel.last.summary();
    EXPECT_EQ(run_context(lab.device(), "test").at("l2_flush"), mode);
  }
  ::unsetenv("GEMMLAB_L2_FLUSH");
}

// --interleave: the kernel and cuBLAS alternate run by run. Both get the same number of timed runs,
// and with beta != 0 each run must still start from C0 (checked by the verification after timing).
TEST_F(Harness, InterleavedTimingTimesBothAndRestoresC) {
  Lab lab;
  for (const float beta : {0.0f, 0.5f}) {
    RunSpec spec;
    spec.kernel = "seed.naive";
    spec.shape = {1021, 1031, 1019};
    spec.beta = beta;
    spec.timing = TimingPlan{2, 7, 5.0, false, true};
    const RunResult r = run_gemm(lab, spec);
    ASSERT_TRUE(r.kernel.timing && r.cublas && r.cublas->timing);
    EXPECT_EQ(r.kernel.timing->iters, 7);
    EXPECT_EQ(r.cublas->timing->iters, 7);
    EXPECT_EQ(r.kernel.timing->samples.size(), 7u);
    EXPECT_EQ(r.cublas->timing->samples.size(), 7u);
    // The naive kernel is far slower than cuBLAS: the two timings were not swapped.
    EXPECT_LT(r.ratio_to_cublas(), 1.0) << "beta " << beta;
    EXPECT_TRUE(r.kernel.last.checked && r.cublas->last.checked);
    EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << r.kernel.last.summary();
  }
}

TEST_F(Harness, EveryCublasPrecisionVerifies) {
  Lab lab;
  for (const char* id : {"cublas.fp32", "cublas.tf32", "cublas.bf16", "cublas.fp16"}) {
    RunSpec spec;
    spec.kernel = id;
    spec.shape = {301, 257, 263};
    spec.timing.iters = 0;
    const RunResult r = run_gemm(lab, spec);
    EXPECT_TRUE(r.kernel.first.passed) << id << ": " << r.kernel.first.summary();
  }
  // TF32 really is less precise than FP32: the baselines are what they say they are.
  RunSpec f32, t32;
  f32.kernel = "cublas.fp32";
  t32.kernel = "cublas.tf32";
  f32.shape = t32.shape = {512, 512, 2048};
  f32.timing.iters = t32.timing.iters = 0;
  EXPECT_LT(run_gemm(lab, f32).kernel.first.rel_frobenius * 20, run_gemm(lab, t32).kernel.first.rel_frobenius);
}

}  // namespace
