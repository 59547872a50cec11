// What the library's kernels receive from the dispatcher besides the problem: the stream, the
// scratch memory of the call, and what the context measured about the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "gemmlab/context.hpp"
#include "kernels/launch_config.hpp"

namespace gemmlab::detail {

// Per-device facts kernels size their grids by, measured once when a Context is made (never in a
// static: two contexts on two GPUs each hold their own).
struct DeviceState {
  DeviceProperties props;
  int cc = 0;  // 90 for sm_90
  // Resident clusters (or blocks) of each compiled configuration of a kernel family, indexed as the
  // family's own configuration list; filled by the family's prepare function.
  std::vector<int> sm90_resident;
  std::vector<int> simt_resident;
  std::vector<int> tf32_resident;
  std::vector<int> skinny_resident;  // CTAs of the skinny kernels resident on the GPU in clusters of each
                                     // split of k (skinny.hpp says how they are laid out)
  int small_resident = 0;            // CTAs of the small-tile kernel resident per SM
  // Kernels are launched early (KernelLaunch): sm_90 or later, and Context::Options::early_launch.
  bool early_launch = false;
};

// Scratch memory of one call: `bytes` of workspace (256-byte aligned) and the zeroed counters
// (kFlagCount of them) that stream-K tails signal with; kernels leave them zero.
struct Scratch {
  unsigned char* data = nullptr;
  std::size_t bytes = 0;
  unsigned* flags = nullptr;
};
inline constexpr int kFlagCount = 4096;
// Bytes rounded up to the workspace's alignment, for the pieces kernels lay out in it one after
// another.
inline constexpr std::size_t align256(std::size_t x) { return (x + 255) / 256 * 256; }

// Whether every row of every item of a strided matrix (`ld` and `stride` in elements of `elem`
// bytes; stride ignored for one item or a broadcast) starts at a multiple of `bytes` bytes: what
// a kernel needs to move its rows in accesses of that size.
inline bool rows_aligned(const void* ptr, std::int64_t ld, std::int64_t stride, std::int64_t items, std::size_t elem,
                         std::size_t bytes) {
  const auto multiple = [&](std::int64_t n) { return std::size_t(n) * elem % bytes == 0; };
  return reinterpret_cast<std::uintptr_t>(ptr) % bytes == 0 && multiple(ld) && (items == 1 || multiple(stride));
}

// The stream a library kernel goes on, and whether it is launched early there (KernelLaunch).
struct KernelStream {
  cudaStream_t id = nullptr;
  bool early = false;
};

struct LaunchEnv {
  cudaStream_t stream = nullptr;
  Scratch scratch;
  const DeviceState* device = nullptr;
  KernelStream queue() const { return {stream, device != nullptr && device->early_launch}; }
};

// The launch of one of the library's GEMM kernels (grid, block, dynamic shared memory, clusters of
// `cluster` CTAs along x) on `stream`, early where the stream says so (LaunchConfig): its blocks
// take the SMs the kernel ahead of it frees as it drains and wait there (each library kernel starts
// with dev::start_in_stream_order), shortening the gap between a call's copy and its GEMM, or
// between consecutive calls (docs/shapes.md, "Early launch"). Only the GEMM kernels are launched
// so; their grids take one CTA an SM or fill every SM. The copies and the split-K reductions keep
// plain stream order: their small grids, placed early, piled onto the few SMs free first (a
// reduction of 128 slices of 64 x 64 ran slower).
class KernelLaunch : public LaunchConfig {
 public:
  KernelLaunch(dim3 grid, dim3 block, std::size_t smem, KernelStream stream, unsigned cluster = 1)
      : LaunchConfig(grid, block, smem, stream.id, cluster, stream.early) {}
};

}  // namespace gemmlab::detail
