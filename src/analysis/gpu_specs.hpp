// What the occupancy model and the roofline need to know about a GPU without having one: the
// per-SM limits of each compute capability (with the allocation granularities that decide how
// many blocks fit), and a small database of the GPUs the seed documents used and the ones
// gemmlab targets, with their SM counts, clocks and memory bandwidths.
//
// Sources: the CUDA C++ Programming Guide's table of technical specifications per compute
// capability, the CUDA occupancy calculator's allocation rules (register and shared-memory
// allocation units, register-file sub-partitions, shared-memory carve-outs, the 1 KB the driver
// reserves per block from CC 8.0 on), NVIDIA's datasheets, and the seeds' own device tables.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/device.hpp"

namespace gemmlab {

// The resource limits of one streaming multiprocessor (SM) and the rules by which a block's
// registers and shared memory are rounded up when it is placed on one.
struct ArchLimits {
  int cc = 0;  // compute capability x 10: 12 for 1.2, 90 for 9.0
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;           // 32-bit registers in an SM's register file
  int max_regs_per_block = 0;
  int max_regs_per_thread = 0;
  // Registers are handed out in units of reg_alloc_unit. From CC 2.0 on, per warp
  // (regs x 32 rounded up to the unit); on CC 1.x per block, after rounding the block's warps up
  // to a multiple of reg_warp_granularity.
  int reg_alloc_unit = 0;
  bool reg_alloc_per_warp = true;
  int reg_warp_granularity = 1;
  // From CC 3.0 on the register file is split into this many parts, one per warp scheduler; a
  // warp's registers come from one part, so the warps that fit are (part size / regs per warp)
  // times the parts.
  int reg_file_parts = 1;
  std::size_t smem_per_sm = 0;           // the most shared memory an SM can give (largest carve-out)
  std::size_t smem_per_block = 0;        // per-block limit without opting in (48 KB from CC 2.0 on)
  std::size_t smem_per_block_optin = 0;  // per-block limit after cudaFuncSetAttribute(MaxDynamicSharedMemorySize)
  int smem_alloc_unit = 0;               // shared memory is allocated in these units
  std::size_t smem_reserved_per_block = 0;  // the driver's own use, per block (1 KB from CC 8.0 on)
  // From CC 7.0 on, L1 and shared memory share one array; the shared part ("carve-out") is one
  // of these sizes in bytes. Empty: a fixed size (smem_per_sm).
  std::vector<std::size_t> smem_carveouts;

  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

// The limits of a compute capability (major, minor). Throws Error for one gemmlab has no model of.
ArchLimits arch_limits(int cc_major, int cc_minor);

// One GPU in the database.
struct GpuSpec {
  std::string key;     // what --gpu takes: "gt240", "h100"
  std::string name;    // "NVIDIA H100 SXM5 80GB"
  std::string source;  // where the numbers come from
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int fp32_lanes_per_sm = 0;  // FP32 lanes ("CUDA cores") per SM
  double clock_mhz = 0;       // the SM clock the peak is quoted at (boost)
  double dram_gbs = 0;        // memory bandwidth, GB/s (1e9 bytes per second)
  double bf16_dense_tflops = 0;  // tensor-core BF16 dense peak from the datasheet; 0 where none
  std::size_t memory_bytes = 0;

  int cc() const { return cc_major * 10 + cc_minor; }
  // Two flops (a fused multiply-add) per lane per clock: the seeds' and NVIDIA's FP32 peak.
  double peak_fp32_tflops() const { return 2.0 * sm_count * fp32_lanes_per_sm * clock_mhz * 1e6 / 1e12; }
  ArchLimits limits() const { return arch_limits(cc_major, cc_minor); }
};

// All GPUs gemmlab knows offline, oldest first.
const std::vector<GpuSpec>& gpu_database();
// By key or by name, case-insensitive, ignoring spaces, dashes and a leading "geforce"/"nvidia"
// ("GT 240", "gt240", "h100"). Throws Error listing the known keys.
const GpuSpec& find_gpu(const std::string& name);
// The database entry whose name matches a real device (e.g. "NVIDIA H100 80GB HBM3" -> h100),
// or nullptr. Used for the datasheet numbers a device does not report (BF16 tensor peak).
const GpuSpec* match_gpu(const DeviceInfo& dev);

// The limits of the GPU gemmlab is running on: the compute capability's allocation rules with
// every count the device reports (threads, blocks, registers, shared memory) taken from it.
ArchLimits limits_of(const DeviceInfo& dev, std::size_t reserved_smem_per_block);

// A DeviceInfo for a database GPU (for Kernel::reject() offline).
DeviceInfo device_info_of(const GpuSpec& gpu);

}  // namespace gemmlab
