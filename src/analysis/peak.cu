// The microbenchmarks behind `gemmlab peak` (see peak.hpp for what each measures and why).
#include "analysis/peak.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/gpu_specs.hpp"
#include "core/buffer.hpp"
#include "core/error.hpp"
#include "core/fill.hpp"
#include "harness/timing.hpp"

namespace gemmlab {

namespace {

constexpr int kThreads = 256;      // per block, all three kernels
constexpr int kFmaChains = 8;      // independent FFMA chains per thread: hides the FMA latency
constexpr int kFmaUnroll = 32;     // FFMAs per chain per round
constexpr int kMmaAccumulators = 4;  // independent mma.sync accumulators per warp

// Each round: kFmaUnroll x kFmaChains FFMAs per thread. `mul` and `add` come from the host so the
// compiler cannot fold the chains; the sum is stored so it cannot drop them.
__global__ void __launch_bounds__(kThreads) ffma_peak_kernel(float* out, int rounds, float mul, float add) {
  float acc[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) acc[c] = float(threadIdx.x + c);
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int u = 0; u < kFmaUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kFmaChains; ++c) acc[c] = fmaf(acc[c], mul, add);
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += acc[c];
  out[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

// Grid-stride copy with 16-byte accesses, four independent loads in flight per thread.
__global__ void __launch_bounds__(kThreads) copy_peak_kernel(const float4* __restrict__ src, float4* __restrict__ dst,
                                                             std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

// mma.sync m16n8k16, BF16 operands, FP32 accumulators: kMmaAccumulators independent D += A B per
// round and warp. The operand registers hold `operand_bits` (two BF16 values); asm volatile keeps
// every instruction.
__global__ void __launch_bounds__(kThreads) mma_bf16_peak_kernel(float* out, int rounds, unsigned operand_bits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned a0 = operand_bits, a1 = operand_bits ^ (threadIdx.x & 1u), a2 = operand_bits, a3 = operand_bits;
  const unsigned b0 = operand_bits, b1 = operand_bits;
  float d[kMmaAccumulators][4];
#pragma unroll
  for (int j = 0; j < kMmaAccumulators; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) d[j][e] = 0.0f;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int j = 0; j < kMmaAccumulators; ++j) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kMmaAccumulators; ++j) sum += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  out[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
#else
  // Below sm_80 there is no BF16 mma.sync; the host never launches this.
  out[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = 0.0f;
#endif
}

// Blocks that fill every SM with 2048 threads (or the SM's maximum).
int full_grid(const DeviceInfo& dev) {
  return dev.sm_count * std::max(1, dev.max_threads_per_sm / kThreads);
}

// Times `run(rounds)` and rescales rounds so that one run takes about target_ms; twice, because
// a short first probe is dominated by the launch overhead.
int calibrate_rounds(Lab& lab, int rounds, double target_ms, const std::function<void(int)>& run) {
  for (int pass = 0; pass < 2; ++pass) {
    const TimingPlan probe{1, 3, 10.0, false};
    const Timing t = time_runs(lab, probe, [&] { run(rounds); });
    const double scale = target_ms / std::max(t.ms.median, 1e-3);
    rounds = int(std::clamp(double(rounds) * scale, 1.0, 1e9));
  }
  return rounds;
}

}  // namespace

std::vector<std::pair<std::string, const void*>> peak_kernel_functions() {
  return {{"ffma_peak_kernel", reinterpret_cast<const void*>(&ffma_peak_kernel)},
          {"copy_peak_kernel", reinterpret_cast<const void*>(&copy_peak_kernel)},
          {"mma_bf16_peak_kernel", reinterpret_cast<const void*>(&mma_bf16_peak_kernel)}};
}

PeakReport measure_peaks(Lab& lab, const PeakOptions& o) {
  if (o.iters < 1 || o.warmup < 0 || !(o.target_ms > 0)) throw Error("peak: iters must be >= 1 and the run time > 0");
  const DeviceInfo& dev = lab.device();
  const cudaStream_t s = lab.stream();
  const TimingPlan plan{o.warmup, o.iters, 60.0, false};
  PeakReport rep;
  rep.peaks.device = dev.name;
  rep.peaks.theoretical_fp32_tflops = dev.peak_fp32_tflops();
  rep.peaks.theoretical_dram_gbs = dev.peak_dram_gbs();
  if (const GpuSpec* spec = match_gpu(dev)) rep.peaks.datasheet_bf16_tflops = spec->bf16_dense_tflops;
  const int blocks = full_grid(dev);
  DeviceBuffer sink(std::size_t(blocks) * kThreads * sizeof(float));

  // FP32 FMA.
  {
    auto run = [&](int rounds) {
      ffma_peak_kernel<<<blocks, kThreads, 0, s>>>(sink.as<float>(), rounds, 0.999999f, 1e-6f);
      GEMMLAB_CHECK_LAUNCH();
    };
    const int rounds = calibrate_rounds(lab, 64, o.target_ms, run);
    const Timing t = time_runs(lab, plan, [&] { run(rounds); });
    PeakMeasurement m;
    m.what = "FP32 FMA (CUDA cores)";
    m.unit = "TFLOPS";
    m.work = 2.0 * kFmaChains * kFmaUnroll * double(rounds) * double(blocks) * kThreads;
    m.measured = m.work / (t.ms.median * 1e-3) / 1e12;
    m.reference = dev.peak_fp32_tflops();
    m.reference_what = fmt::format("2 x {} lanes x {} MHz", dev.cuda_cores(), dev.clock_khz / 1000);
    m.ms = t.ms;
    rep.peaks.fp32_tflops = m.measured;
    rep.rows.push_back(m);
  }

  // Device memory: two buffers of up to 1 GiB each (at least 8x L2), within a quarter of free memory.
  {
    const std::size_t want = std::size_t(1) << 30;
    const std::size_t bytes = std::min(want, lab.free_memory() / 4) / 16 * 16;
    if (bytes < 8 * std::size_t(std::max(dev.l2_bytes, 1 << 20)))
      throw Error(fmt::format("peak: not enough free device memory for a bandwidth test ({} MiB)", bytes >> 20));
    DeviceBuffer src(bytes), dst(bytes);
    fill_f32(src.as<float>(), std::int64_t(bytes / 4), Init::uniform, 7, 1, s);  // never time on zeros
    const std::size_t n4 = bytes / 16;
    const Timing t = time_runs(lab, plan, [&] {
      copy_peak_kernel<<<blocks * 2, kThreads, 0, s>>>(src.as<float4>(), dst.as<float4>(), n4);
      GEMMLAB_CHECK_LAUNCH();
    });
    PeakMeasurement m;
    m.what = "device memory: copy kernel, 16-byte accesses";
    m.unit = "GB/s";
    m.work = 2.0 * double(bytes);
    m.measured = m.work / (t.ms.median * 1e-3) / 1e9;
    m.reference = dev.peak_dram_gbs();
    m.reference_what = fmt::format("2 x {} MHz x {} bit", dev.memory_clock_khz / 1000, dev.memory_bus_bits);
    m.ms = t.ms;
    rep.peaks.dram_gbs = m.measured;
    rep.rows.push_back(m);

    const Timing tc = time_runs(lab, plan, [&] {
      GEMMLAB_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
    });
    PeakMeasurement c = m;
    c.what = "device memory: cudaMemcpy device to device";
    c.measured = c.work / (tc.ms.median * 1e-3) / 1e9;
    c.ms = tc.ms;
    rep.peaks.memcpy_gbs = c.measured;
    rep.rows.push_back(c);
  }

  // Tensor cores, mma.sync BF16.
  if (o.tensor) {
    PeakMeasurement m;
    m.what = "tensor cores: mma.sync BF16 (m16n8k16, FP32 accumulate)";
    m.unit = "TFLOPS";
    m.reference = rep.peaks.datasheet_bf16_tflops;
    m.reference_what = m.reference > 0 ? "datasheet, dense (reached with wgmma on Hopper)" : "unknown for this GPU";
    if (dev.cc() < 80) {
      m.what += ": not measured, needs compute capability 8.0";
      rep.rows.push_back(m);
    } else {
      // 1/256 in BF16 (0x3B80), twice: accumulators stay far from overflow however long it runs.
      const unsigned operand = 0x3B803B80u;
      auto run = [&](int rounds) {
        mma_bf16_peak_kernel<<<blocks, kThreads, 0, s>>>(sink.as<float>(), rounds, operand);
        GEMMLAB_CHECK_LAUNCH();
      };
      const int rounds = calibrate_rounds(lab, 64, o.target_ms, run);
      const Timing t = time_runs(lab, plan, [&] { run(rounds); });
      const double warps = double(blocks) * kThreads / 32.0;
      m.work = 4096.0 * kMmaAccumulators * double(rounds) * warps;  // 2 x 16 x 8 x 16 per mma
      m.measured = m.work / (t.ms.median * 1e-3) / 1e12;
      m.ms = t.ms;
      rep.peaks.mma_bf16_tflops = m.measured;
      rep.rows.push_back(m);
    }
  }
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  return rep;
}

}  // namespace gemmlab
