#include "analysis/occupancy.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

namespace {

constexpr long long round_up(long long x, long long unit) { return unit <= 0 ? x : (x + unit - 1) / unit * unit; }
constexpr long long div_up(long long x, long long y) { return (x + y - 1) / y; }

// The shared memory an SM is configured with for this kernel. Before CC 7.0 a fixed amount.
// From 7.0 on the driver picks a carve-out: the preferred one (rounded up to a supported size)
// if a block fits in it, otherwise the smallest supported size a block fits in.
std::size_t configured_smem(const ArchLimits& gpu, std::size_t per_block, int carveout_percent) {
  if (gpu.smem_carveouts.empty()) return gpu.smem_per_sm;
  auto align_up = [&](std::size_t bytes) {
    for (std::size_t c : gpu.smem_carveouts)
      if (bytes <= c) return c;
    return gpu.smem_carveouts.back();
  };
  const std::size_t preferred =
      carveout_percent < 0 ? gpu.smem_per_sm : align_up(std::size_t(carveout_percent) * gpu.smem_per_sm / 100);
  if (preferred >= per_block) return std::min(preferred, gpu.smem_per_sm);
  return std::min(align_up(per_block), gpu.smem_per_sm);
}

}  // namespace

Occupancy theoretical_occupancy(const ArchLimits& gpu, const KernelResources& k) {
  if (k.threads_per_block <= 0) throw Error("occupancy: a block needs at least one thread");
  if (k.regs_per_thread < 0) throw Error("occupancy: the register count cannot be negative");
  if (gpu.max_threads_per_sm <= 0 || gpu.warp_size <= 0) throw Error("occupancy: GPU limits are not set");
  Occupancy o;
  o.max_warps = gpu.max_warps_per_sm();
  o.warps_per_block = int(div_up(k.threads_per_block, gpu.warp_size));
  o.limit_blocks = gpu.max_blocks_per_sm;
  std::vector<std::string> zero;

  // Warp slots. Seed 003 lists this limit uncapped (16 blocks of 2 warps on a 32-warp SM even
  // though only 8 blocks may be resident): the block cap is its own row.
  if (k.threads_per_block > gpu.max_threads_per_block) {
    o.limit_warps = 0;
    zero.push_back(fmt::format("a block of {} threads exceeds the limit of {}", k.threads_per_block,
                               gpu.max_threads_per_block));
  } else {
    o.limit_warps = o.max_warps / o.warps_per_block;
  }

  // Registers.
  if (k.regs_per_thread == 0) {
    o.regs_per_block = 0;
    o.limit_regs = kUnlimited;
  } else if (!gpu.reg_alloc_per_warp) {
    // CC 1.x: the whole block at once, warps rounded up to the warp granularity.
    const long long warps = round_up(o.warps_per_block, gpu.reg_warp_granularity);
    o.regs_per_block = int(round_up(warps * gpu.warp_size * k.regs_per_thread, gpu.reg_alloc_unit));
    if (k.regs_per_thread > gpu.max_regs_per_thread || o.regs_per_block > gpu.max_regs_per_block) {
      o.limit_regs = 0;
    } else {
      o.limit_regs = gpu.regs_per_sm / o.regs_per_block;
    }
  } else {
    // CC >= 2.0: per warp, rounded up to the unit; the register file is split into parts and a
    // warp lives in one part, so count whole warps per part. The per-block check assumes the
    // block's warps are rounded up to a multiple of the parts (as the hardware checks it).
    const long long regs_per_warp = round_up(1ll * k.regs_per_thread * gpu.warp_size, gpu.reg_alloc_unit);
    o.regs_per_block = int(regs_per_warp * o.warps_per_block);
    const long long checked = regs_per_warp * round_up(o.warps_per_block, gpu.reg_file_parts);
    if (k.regs_per_thread > gpu.max_regs_per_thread || checked > gpu.max_regs_per_block) {
      o.limit_regs = 0;
    } else {
      const long long warps_per_part = (gpu.regs_per_sm / gpu.reg_file_parts) / regs_per_warp;
      o.limit_regs = int(warps_per_part * gpu.reg_file_parts / o.warps_per_block);
    }
  }
  if (o.limit_regs == 0)
    zero.push_back(fmt::format("{} registers per thread ({} per block) exceed the limits ({} per thread, {} per block)",
                               k.regs_per_thread, o.regs_per_block, gpu.max_regs_per_thread, gpu.max_regs_per_block));

  // Shared memory: static + dynamic + what the driver reserves, rounded up to the unit.
  const std::size_t used = k.static_smem + k.dynamic_smem;
  o.smem_per_block = std::size_t(round_up(static_cast<long long>(used + gpu.smem_reserved_per_block), gpu.smem_alloc_unit));
  o.needs_smem_optin = used > gpu.smem_per_block;
  const std::size_t block_limit = o.needs_smem_optin ? gpu.smem_per_block_optin : gpu.smem_per_block;
  o.smem_per_sm = configured_smem(gpu, o.smem_per_block, k.carveout_percent);
  if (used > block_limit || o.smem_per_block > gpu.smem_per_sm) {
    o.limit_smem = 0;
    zero.push_back(fmt::format("{} bytes of shared memory per block exceed the limit of {}", used, block_limit));
  } else if (o.smem_per_block == 0) {
    o.limit_smem = kUnlimited;
  } else {
    o.limit_smem = int(o.smem_per_sm / o.smem_per_block);
  }

  o.active_blocks = std::min({o.limit_warps, o.limit_regs, o.limit_smem, o.limit_blocks});
  o.active_warps = o.active_blocks * o.warps_per_block;
  o.active_threads = o.active_warps * gpu.warp_size;
  o.occupancy = double(o.active_warps) / double(o.max_warps);
  if (o.limit_warps == o.active_blocks) o.limited_by.push_back("warps");
  if (o.limit_regs == o.active_blocks) o.limited_by.push_back("registers");
  if (o.limit_smem == o.active_blocks) o.limited_by.push_back("shared memory");
  if (o.limit_blocks == o.active_blocks) o.limited_by.push_back("blocks per SM");
  if (o.active_blocks == 0) o.why_zero = zero.empty() ? "no block fits" : zero.front();
  return o;
}

}  // namespace gemmlab
