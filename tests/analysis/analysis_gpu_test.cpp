// The analysis on a real GPU: the occupancy model against the driver for every registered kernel
// and parameter combination (and a grid of synthetic configurations), the offline resource lookup
// against the driver's attributes, the peak microbenchmarks, and one profile under ncu.
#include <algorithm>
#include <cstring>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "analysis/device_occupancy.hpp"
#include "analysis/kernel_binary.hpp"
#include "analysis/peak.hpp"
#include "analysis/process.hpp"
#include "analysis/profiling.hpp"
#include "core/error.hpp"
#include "support/gpu_test.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

namespace {

// Shapes to find one that a kernel accepts (occupancy does not depend on the grid).
const std::vector<Shape> kShapes = {{1024, 1024, 1024}, {4096, 4096, 4096}, {512, 512, 512}, {2048, 2048, 2048},
                                    {256, 256, 256},    {3072, 3072, 3072}, {1536, 1536, 1536}};

class OccupancyOnGpu : public GpuTest {};

TEST_F(OccupancyOnGpu, ModelEqualsDriverForEveryKernelAndParameterSet) {
  const DeviceInfo dev = query_device(0);
  int compared = 0;
  for (const auto& kp : Registry::instance().kernels()) {
    const Kernel& k = *kp;
    if (k.info().min_cc > dev.cc()) continue;
    for (const Params& p : all_param_combinations(k)) {
      auto shape = std::find_if(kShapes.begin(), kShapes.end(), [&](const Shape& s) { return !k.reject(s, p, dev); });
      if (shape == kShapes.end()) continue;
      if (!k.plan(*shape, p).function) continue;  // library calls
      SCOPED_TRACE(fmt::format("{} {} at {}", k.info().id, params_to_string(p), to_string(*shape)));
      const KernelOccupancy o = occupancy_on_device(k, *shape, p, dev);
      EXPECT_EQ(o.model.active_blocks, o.driver_blocks)
          << "model: " << o.model.active_blocks << " blocks (warps " << o.model.limit_warps << ", registers "
          << o.model.limit_regs << ", shared memory " << o.model.limit_smem << "), " << o.resources.regs_per_thread
          << " registers, " << o.resources.static_smem << " + " << o.resources.dynamic_smem << " B shared";
      EXPECT_GT(o.driver_blocks, 0) << "a configuration the kernel accepts must fit on the GPU";
      EXPECT_EQ(o.local_bytes, 0u) << "local memory: register spills?";
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

// The model against the driver over a grid of block sizes and dynamic shared memory, on the
// microbenchmark kernels (different register counts), including the opt-in above 48 KB.
TEST_F(OccupancyOnGpu, ModelEqualsDriverOnSyntheticConfigurations) {
  const DeviceInfo dev = query_device(0);
  const ArchLimits limits = limits_of(dev, reserved_smem_per_block(0));
  int compared = 0;
  for (const auto& [name, fn] : peak_kernel_functions()) {
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, fn), cudaSuccess);
    for (int threads : {32, 33, 64, 96, 128, 160, 192, 256}) {
      if (threads > attr.maxThreadsPerBlock) continue;
      for (std::size_t dyn : {std::size_t(0), std::size_t(100), std::size_t(4096), std::size_t(20000),
                              std::size_t(48 * 1024), std::size_t(64 * 1024), std::size_t(100 * 1024),
                              dev.smem_per_block_optin}) {
        if (attr.sharedSizeBytes + dyn > dev.smem_per_block_optin) continue;
        if (attr.sharedSizeBytes + dyn > dev.smem_per_block)
          ASSERT_EQ(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)), cudaSuccess);
        ASSERT_EQ(cudaFuncGetAttributes(&attr, fn), cudaSuccess);
        KernelResources r;
        r.threads_per_block = threads;
        r.regs_per_thread = attr.numRegs;
        r.static_smem = attr.sharedSizeBytes;
        r.dynamic_smem = dyn;
        r.carveout_percent = attr.preferredShmemCarveout;
        int driver = -1;
        ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&driver, fn, threads, dyn), cudaSuccess);
        const Occupancy model = theoretical_occupancy(limits, r);
        EXPECT_EQ(model.active_blocks, driver) << fmt::format("{}: {} threads, {} registers, {} + {} B shared", name,
                                                              threads, attr.numRegs, attr.sharedSizeBytes, dyn);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 50);
}

// The offline path (own symbol table + cuobjdump) finds the same registers and static shared
// memory as the driver reports, for every registered kernel.
TEST_F(OccupancyOnGpu, OfflineResourcesMatchTheDriver) {
  if (find_tool("cuobjdump", "GEMMLAB_CUOBJDUMP").empty()) GTEST_SKIP() << "cuobjdump not on PATH";
  const DeviceInfo dev = query_device(0);
  const std::vector<FunctionResources> all = read_resource_usage(self_executable());
  int compared = 0;
  for (const auto& kp : Registry::instance().kernels()) {
    const Kernel& k = *kp;
    if (k.info().min_cc > dev.cc()) continue;
    for (const Params& p : all_param_combinations(k)) {
      auto shape = std::find_if(kShapes.begin(), kShapes.end(), [&](const Shape& s) { return !k.reject(s, p, dev); });
      if (shape == kShapes.end()) continue;
      const LaunchPlan plan = k.plan(*shape, p);
      if (!plan.function) continue;
      SCOPED_TRACE(fmt::format("{} {}", k.info().id, params_to_string(p)));
      const std::string mangled = host_symbol_at(plan.function);
      ASSERT_FALSE(mangled.empty());
      // The device's own name when the driver gives it: nvcc mangles class-type template
      // arguments (Sm90Shape{...}) differently in the host stub and the device function.
      std::string wanted = demangle(mangled);
      if (const char* device_name = nullptr; cudaFuncGetName(&device_name, plan.function) == cudaSuccess && device_name)
        wanted = demangle(device_name);
      const FunctionResources& f = select_function(all, wanted, "", dev.cc());
      cudaFuncAttributes attr{};
      ASSERT_EQ(cudaFuncGetAttributes(&attr, plan.function), cudaSuccess);
      EXPECT_EQ(f.registers, attr.numRegs);
      EXPECT_EQ(f.shared_bytes, attr.sharedSizeBytes);
      EXPECT_EQ(f.local_bytes, attr.localSizeBytes);
      const char* name = nullptr;
      if (cudaFuncGetName(&name, plan.function) == cudaSuccess && name)
        EXPECT_TRUE(name == f.mangled || demangle(name) == f.demangled) << "driver: " << name << ", found: " << f.mangled;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

class PeakOnGpu : public GpuTest {};

TEST_F(PeakOnGpu, MicrobenchmarksDoNotSpill) {
  for (const auto& [name, fn] : peak_kernel_functions()) {
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, fn), cudaSuccess);
    EXPECT_EQ(attr.localSizeBytes, 0u) << name << " uses local memory";
    EXPECT_GE(attr.maxThreadsPerBlock, 256) << name;
  }
}

TEST_F(PeakOnGpu, PeaksArePlausible) {
  Lab lab;
  PeakOptions o;
  o.iters = 5;
  o.target_ms = 5;
  const PeakReport r = measure_peaks(lab, o);
  const Peaks& p = r.peaks;
  const DeviceInfo& dev = lab.device();
  EXPECT_GT(p.fp32_tflops, 0.3 * dev.peak_fp32_tflops()) << "FFMA rate far below 2 x cores x clock";
  EXPECT_LT(p.fp32_tflops, 1.15 * dev.peak_fp32_tflops()) << "faster than the hardware can be: the count is wrong";
  EXPECT_GT(p.dram_gbs, 0.3 * dev.peak_dram_gbs());
  EXPECT_LT(p.dram_gbs, 1.05 * dev.peak_dram_gbs());
  EXPECT_GT(p.memcpy_gbs, 0.2 * dev.peak_dram_gbs());
  EXPECT_LT(p.memcpy_gbs, 1.05 * dev.peak_dram_gbs());
  if (dev.cc() >= 80) {
    EXPECT_GT(p.mma_bf16_tflops, p.fp32_tflops) << "tensor cores slower than the FP32 pipes?";
    if (p.datasheet_bf16_tflops > 0) EXPECT_LT(p.mma_bf16_tflops, 1.05 * p.datasheet_bf16_tflops);
  }
  for (const PeakMeasurement& m : r.rows)
    if (m.measured > 0) EXPECT_GE(m.ms.count, 3) << m.what;
}

class ProfileOnGpu : public GpuTest {};

TEST_F(ProfileOnGpu, NaiveKernelUnderNcu) {
  if (find_tool("ncu", "GEMMLAB_NCU").empty()) GTEST_SKIP() << "ncu not on PATH";
  const Kernel& k = Registry::instance().get("seed.naive");
  const Params p = resolve_params(k, {{"block", 16}});
  const Shape s{256, 256, 256};
  ProfileOutcome out;
  try {
    out = profile_with_ncu(k, s, p, GEMMLAB_EXE);
  } catch (const Error& e) {
    if (std::strstr(e.what(), "ERR_NVGPUCTRPERM")) GTEST_SKIP() << e.what();
    throw;
  }
  const ProfileMetrics& m = out.metrics;
  EXPECT_EQ(m.launches, 1) << "only the launch between cudaProfilerStart/Stop";
  ASSERT_FALSE(m.kernel_names.empty());
  EXPECT_NE(m.kernel_names[0].find("naive_gemm"), std::string::npos);
  EXPECT_TRUE(m.missing.empty()) << "ncu did not report " << fmt::format("{}", fmt::join(m.missing, ", "));
  EXPECT_NEAR(m.flops / s.flops(), 1.0, 0.01) << "FP32 instruction count vs 2MNK";
  EXPECT_GT(m.duration_ns, 0);
  EXPECT_GT(m.achieved_occupancy_pct, 0);
  EXPECT_LE(m.achieved_occupancy_pct, 100);
  EXPECT_GT(m.sm_activity_pct, 0);
  EXPECT_LE(m.sm_activity_pct, 100.5);
  // Two loads per multiply-add per thread: the measured CGMA (flops per thread-level access) is ~1.
  EXPECT_NEAR(m.measured_cgma(), k.traffic(s, p).cgma(), 0.02);
  // ncu's requested bytes count each byte once per warp instruction: a 16x16 block's warp covers 2
  // rows x 16 columns, so per k it asks for 2 floats of A and 16 of B (72 B) where its 32 threads
  // load 256 B (measured on an H100: 37748736 = 72/256 x 8 MNK at 256^3).
  EXPECT_NEAR(m.requested_load_bytes, 72.0 / 256.0 * 8.0 * 256 * 256 * 256, 0.02 * 72.0 / 256.0 * 8.0 * 256 * 256 * 256);
  EXPECT_DOUBLE_EQ(m.static_smem_bytes, 0);
  EXPECT_GT(m.dram_read_bytes, 0);
}

}  // namespace
