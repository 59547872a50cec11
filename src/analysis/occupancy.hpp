// Theoretical occupancy: how many blocks of a kernel fit on one SM at once, and which resource
// stops more from fitting. It is the calculation behind seed 003's Table 2 (and NVIDIA's
// occupancy calculator): for each resource (warp slots, registers, shared memory) the number of
// blocks it allows, after rounding the block's use up to the GPU's allocation units; the
// smallest of those and the GPU's own block limit is the answer.
//
// Pure arithmetic on ArchLimits and KernelResources: no GPU needed, so it works for any GPU in
// the database and is tested against the seed's table cell by cell.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "analysis/gpu_specs.hpp"

namespace gemmlab {

// What one block of a kernel asks of an SM.
struct KernelResources {
  int threads_per_block = 0;
  int regs_per_thread = 0;
  std::size_t static_smem = 0;   // bytes declared __shared__ in the kernel
  std::size_t dynamic_smem = 0;  // bytes given at launch
  // Preferred shared-memory carve-out in percent of the maximum (cudaFuncAttributePreferredSharedMemoryCarveout);
  // -1: no preference (the driver may use the largest).
  int carveout_percent = -1;
};

// "No limit from this resource" (a kernel without registers or shared memory).
constexpr int kUnlimited = std::numeric_limits<int>::max();

struct Occupancy {
  // Per block, after rounding to the allocation units.
  int warps_per_block = 0;
  int regs_per_block = 0;              // registers allocated to one block
  std::size_t smem_per_block = 0;      // shared memory allocated to one block (reserved part included)
  std::size_t smem_per_sm = 0;         // the shared memory the SM is configured with for this kernel
  bool needs_smem_optin = false;       // more than the default 48 KB per block: the kernel must opt in

  // Blocks per SM each resource allows (kUnlimited where it does not constrain).
  int limit_warps = 0;
  int limit_regs = 0;
  int limit_smem = 0;
  int limit_blocks = 0;  // the GPU's maximum resident blocks per SM

  int active_blocks = 0;
  int active_warps = 0;
  int active_threads = 0;   // active warps x 32: the thread slots the blocks hold (as seed 003 counts)
  double occupancy = 0;     // active warps / maximum warps per SM
  int max_warps = 0;

  std::vector<std::string> limited_by;  // "warps", "registers", "shared memory", "blocks"
  std::string why_zero;                 // when no block fits: the reason, in one sentence
};

Occupancy theoretical_occupancy(const ArchLimits& gpu, const KernelResources& k);

}  // namespace gemmlab
