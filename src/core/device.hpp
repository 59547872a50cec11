// What gemmlab knows about the GPU it runs on: the properties the seeds tabulate, and the
// software versions every result file records.
#pragma once

#include <string>
#include <vector>

namespace gemmlab {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int fp32_lanes_per_sm = 0;  // "CUDA cores" per SM, from the architecture
  int clock_khz = 0;          // maximum SM clock
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  std::size_t global_mem_bytes = 0;
  int l2_bytes = 0;
  std::size_t smem_per_block = 0;         // default limit
  std::size_t smem_per_block_optin = 0;   // after cudaFuncSetAttribute
  std::size_t smem_per_sm = 0;
  int regs_per_block = 0, regs_per_sm = 0;
  int max_threads_per_block = 0, max_threads_per_sm = 0, max_blocks_per_sm = 0;
  int warp_size = 0;
  int max_block_dim[3] = {0, 0, 0};
  int max_grid_dim[3] = {0, 0, 0};
  bool ecc = false;

  int cc() const { return cc_major * 10 + cc_minor; }  // 90 for sm_90
  int cuda_cores() const { return sm_count * fp32_lanes_per_sm; }
  double peak_fp32_tflops() const { return 2.0 * cuda_cores() * clock_khz * 1e3 / 1e12; }
  double peak_dram_gbs() const { return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8) / 1e9; }
};

struct SoftwareVersions {
  std::string driver, runtime, cublas;
};

// Number of usable CUDA devices; 0 when there is no GPU or no driver (never throws).
int device_count();
// Throws gemmlab::Error naming the reason when no GPU is usable.
void require_gpu();
DeviceInfo query_device(int ordinal = 0);
SoftwareVersions software_versions();
int fp32_lanes_per_sm(int cc_major, int cc_minor);

}  // namespace gemmlab
