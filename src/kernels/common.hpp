// Small helpers that kernel files share: a base class holding the KernelInfo, the usual
// resource checks, and integer arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "kernels/kernel.hpp"

namespace gemmlab {

// SM count of the current GPU (132 on an H100), or 132 when no GPU can be asked: choices that
// depend on it (persistent grids, the FP32 dispatcher) must still be computable offline.
int current_sm_count();

// 16-byte alignment: what float4 accesses, 16-byte cp.async and TMA need of a pointer.
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The traffic model of a kernel whose every BM x BN block tile reads a BM x K panel of A and a K x BN
// panel of B once from global memory (through shared memory) and writes its part of C once.
inline TrafficModel tiled_traffic(const Shape& s, std::int64_t bm, std::int64_t bn, double element_bytes = 4) {
  TrafficModel t;
  t.flops = s.flops();
  t.global_loads = double(ceil_div(s.m, bm)) * double(ceil_div(s.n, bn)) * double(s.k) * double(bm + bn);
  t.global_stores = double(s.m) * s.n;
  t.element_bytes = element_bytes;
  return t;
}

// Holds the description so that a kernel file only writes the behaviour.
class KernelBase : public Kernel {
 public:
  explicit KernelBase(KernelInfo info) : info_(std::move(info)) {}
  const KernelInfo& info() const override { return info_; }

 protected:
  KernelInfo info_;
};

// Does a block of `threads` threads and `smem` bytes of shared memory fit on `dev`?
inline std::optional<std::string> check_block_fits(const DeviceInfo& dev, std::int64_t threads,
                                                   std::size_t smem_bytes) {
  if (threads > dev.max_threads_per_block)
    return fmt::format("a block of {} threads exceeds the device limit of {}", threads,
                       dev.max_threads_per_block);
  if (smem_bytes > dev.smem_per_block_optin)
    return fmt::format("{} bytes of shared memory per block exceed the device limit of {}", smem_bytes,
                       dev.smem_per_block_optin);
  return std::nullopt;
}

// Does a grid fit in the device's grid limits?
inline std::optional<std::string> check_grid_fits(const DeviceInfo& dev, std::int64_t gx, std::int64_t gy,
                                                  std::int64_t gz = 1) {
  if (gx > dev.max_grid_dim[0] || gy > dev.max_grid_dim[1] || gz > dev.max_grid_dim[2])
    return fmt::format("a grid of {} x {} x {} blocks exceeds the device limits ({} x {} x {})", gx, gy, gz,
                       dev.max_grid_dim[0], dev.max_grid_dim[1], dev.max_grid_dim[2]);
  return std::nullopt;
}

}  // namespace gemmlab
