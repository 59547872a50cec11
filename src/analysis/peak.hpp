// `gemmlab peak`: the device's real roofs, measured with gemmlab's own microbenchmarks.
//
//   FP32 FMA       every thread runs 8 independent chains of fused multiply-adds, with a full SM
//                  of threads (2048 per SM): the issue rate of the FP32 pipes, 2 flops per FFMA.
//   device memory  a grid-stride copy of a buffer far larger than L2 with 16-byte (float4)
//                  loads and stores; bandwidth counts the bytes read plus the bytes written.
//                  cudaMemcpy device-to-device on the same buffers, counted the same way, beside it.
//   tensor cores   mma.sync.m16n8k16 BF16 x BF16 -> FP32 in 4 independent accumulators per warp
//                  (sm_80+), 4096 flops per warp-level instruction. Labelled "mma.sync BF16":
//                  Hopper's full tensor rate needs wgmma, which the tensor-core kernels measure.
// Each is timed with CUDA events after warm-up, repeated, and the median reported.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/roofline.hpp"
#include "core/stats.hpp"
#include "harness/lab.hpp"

namespace gemmlab {

struct PeakOptions {
  int warmup = 3;
  int iters = 20;
  double target_ms = 20;  // each timed run is sized to take about this long
  bool tensor = true;     // run the mma.sync benchmark (where the GPU has it)
};

struct PeakMeasurement {
  std::string what;              // "FP32 FMA (CUDA cores)"
  double measured = 0;           // in `unit`, from the median time
  std::string unit;              // "TFLOPS", "GB/s"
  double reference = 0;          // the theoretical / datasheet value; 0 if unknown
  std::string reference_what;    // how the reference is obtained
  Stats ms;                      // the timed runs
  double work = 0;               // flops or bytes per run
};

struct PeakReport {
  Peaks peaks;
  std::vector<PeakMeasurement> rows;
};

// Throws Error on CUDA failures; skips the tensor benchmark (and says so in the rows) below sm_80.
PeakReport measure_peaks(Lab& lab, const PeakOptions& options);

// The microbenchmark kernels (name, __global__ function), for the test that they do not spill.
std::vector<std::pair<std::string, const void*>> peak_kernel_functions();

}  // namespace gemmlab
