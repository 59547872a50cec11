// The roofline: a kernel doing F flops while moving D bytes to and from device memory cannot
// run faster than min(peak compute, F/D x memory bandwidth). F/D is its arithmetic intensity.
//
// Seed 002 makes the same argument for the naive kernel: 8 bytes (an element of A and one of B)
// per 2 flops is 4 bytes per flop, so a GTX 1060 with 192 GB/s cannot exceed 192 / 4 = 48
// GFLOPS however fast its cores are (bandwidth_bound_gflops).
//
// The roofs come from `gemmlab peak --json` (measured) or, without that file, from the device's
// theoretical numbers; every result says which.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/device.hpp"
#include "core/types.hpp"
#include "kernels/kernel.hpp"

namespace gemmlab {

// The speed a memory-bound kernel cannot exceed: bandwidth (GB/s) / bytes it needs per flop.
// bandwidth_bound_gflops(192, 4) == 48 (seed 002, GTX 1060). Throws Error unless both are > 0.
double bandwidth_bound_gflops(double bandwidth_gbs, double bytes_per_flop);

// Bytes per flop of a kernel's own traffic model (its global loads and stores, caches ignored):
// about 4 for the naive kernel (two 4-byte loads per multiply-add), 4 / block for a tiled one.
double bytes_per_flop(const TrafficModel& t);

// The least device-memory traffic any GEMM of this shape needs: A and B read once, C written
// once (and read once when beta != 0).
double min_dram_bytes(const Shape& s, DType operand, DType output, bool reads_c);

// Peaks measured by `gemmlab peak` (0 where not measured), with the theoretical values beside them.
struct Peaks {
  std::string device;
  double fp32_tflops = 0;       // FFMA microbenchmark
  double dram_gbs = 0;          // copy kernel, bytes read + written per second
  double memcpy_gbs = 0;        // cudaMemcpy device to device, the same way
  double mma_bf16_tflops = 0;   // mma.sync m16n8k16 BF16 -> FP32 microbenchmark (sm_80+)
  double theoretical_fp32_tflops = 0;  // 2 x FP32 lanes x clock
  double theoretical_dram_gbs = 0;     // 2 x memory clock x bus width
  double datasheet_bf16_tflops = 0;    // dense tensor-core BF16 from the datasheet, 0 if unknown
};
nlohmann::json peaks_to_json(const Peaks& p);
Peaks peaks_from_json(const nlohmann::json& j);  // accepts the whole `gemmlab peak --json` file
Peaks read_peaks_file(const std::string& path);  // throws Error for a missing or malformed file

// The two roofs that apply to a kernel of precision `p`.
struct Roof {
  double compute_gflops = 0;  // 0: unknown for this precision on this device
  double bandwidth_gbs = 0;
  std::string compute_what;   // "FP32 FMA", "mma.sync BF16", ...
  std::string source;         // "measured (gemmlab peak)" or "theoretical"
};
// From `measured` when given (and it has the value), else from the device's theoretical numbers
// (DeviceInfo; the datasheet's tensor-core peak for the GPUs in the database).
Roof roof_for(Precision p, const DeviceInfo& dev, const Peaks* measured);

struct RoofPoint {
  double intensity = 0;          // flops per byte
  double attainable_gflops = 0;  // min(compute roof, intensity x bandwidth); 0 if a roof is unknown
  double share = 0;              // achieved / attainable; 0 if unknown
  bool memory_bound = false;     // intensity x bandwidth < compute roof
};
RoofPoint place_on_roof(const Roof& roof, double flops, double bytes, double achieved_gflops);

}  // namespace gemmlab
