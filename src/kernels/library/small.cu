// The library's small-tile kernel, host side (small.hpp): the checks, the rule dispatch tries it
// by, and the launch. The kernel is small.cuh; its instantiations small_bf16.cu and small_f16.cu.
#include "kernels/library/small.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/library/small.cuh"

namespace gemmlab::detail {

epi::Params epilogue_params(const Problem& p);

namespace small {
Kernel kernel_bf16(bool f32_out, bool a_k_major, bool b_k_major);
Kernel kernel_f16(bool f32_out, bool a_k_major, bool b_k_major);
}  // namespace small

namespace {

// Operand o is copied as it is stored, 16 bytes (8 elements) at a time.
bool copies_whole(const Operand& o, std::int64_t batch) { return rows_aligned(o.ptr, o.ld, o.stride, batch, 2, 16); }

}  // namespace

void prepare_small(DeviceState& state) {
  state.small_resident = 0;
  if (state.cc < 80) return;
  int blocks = 0;
  // Every instantiation has the same shared memory and registers within a few.
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small::kernel_bf16(true, true, false), small::kThreads, 0) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    blocks = 0;
  }
  state.small_resident = blocks;
}

std::optional<std::string> small_reject(const Problem& p, const DeviceState& state) {
  if (state.cc < 80) return fmt::format("needs an sm_80 GPU or later (cp.async, BF16 mma.sync); this one is sm_{}", state.cc);
  if (p.ab != DataType::bf16 && p.ab != DataType::f16) return std::string("takes bf16 and f16 operands");
  if (p.cd != p.ab && p.cd != DataType::f32) return std::string("writes D in the operands' type or f32");
  if (p.grouped()) return std::string("grouped GEMM is not offered");
  for (const auto& [name, o] : {std::pair{"A", &p.a}, std::pair{"B", &p.b}})
    if (!copies_whole(*o, p.batch))
      return fmt::format("{} is copied 16 bytes at a time: its pointer, leading dimension and batch stride must be "
                         "16-byte multiples",
                         name);
  // Offsets inside a tile are computed in 32 bits (64 rows at most).
  for (const auto& [name, ld] : {std::pair{"lda", p.a.ld}, std::pair{"ldb", p.b.ld}, std::pair{"ldd", p.ldd}})
    if (ld > small::kMaxLd) return fmt::format("{} {} is over {} elements", name, ld, small::kMaxLd);
  if (cdiv(p.m, small::kTile) * cdiv(p.n, small::kTile) * p.batch > INT_MAX)
    return std::string("more than 2^31 - 1 tiles of 64 x 64 in all");
  return std::nullopt;
}

bool small_first(const Problem& p, const DeviceState& state) {
  if (p.m > small::kTile || p.n > small::kTile || p.grouped() || p.determinism == Determinism::batch_invariant)
    return false;
  if (p.ab != DataType::bf16 && p.ab != DataType::f16) return false;
  // Fewer items than SMs leave SMs idle, where the Hopper kernel's stream-K tail shares a long k.
  return p.batch >= std::max(1, state.props.sm_count) && !small_reject(p, state);
}

void launch_small(const Problem& p, const LaunchEnv& env) {
  if (auto why = small_reject(p, *env.device)) throw Error(fmt::format("small-tile kernel: {}", *why));
  small::Args a;
  a.m = p.m, a.n = p.n, a.k = p.k, a.batch = p.batch;
  const std::int64_t tiles_m = cdiv(p.m, small::kTile), tiles_n = cdiv(p.n, small::kTile);
  a.per_item = Divisor(unsigned(tiles_m * tiles_n)), a.tiles_n = Divisor(unsigned(tiles_n));  // under 2^31 (small_reject)
  a.a = p.a.ptr, a.lda = p.a.ld, a.stride_a = p.a.stride;
  a.b = p.b.ptr, a.ldb = p.b.ld, a.stride_b = p.b.stride;
  a.c = p.c, a.ldc = p.ldc, a.stride_c = p.stride_c;
  a.d = p.d, a.ldd = p.ldd, a.stride_d = p.stride_d;
  const std::size_t es = size_of(p.cd);
  a.pair_stores = rows_aligned(p.d, p.ldd, p.stride_d, p.batch, es, 2 * es);
  a.vector_stores = rows_aligned(p.d, p.ldd, p.stride_d, p.batch, es, 16);
  a.epi = epilogue_params(p);
  a.plain = !a.epi.beta_ptr && a.epi.beta == 0.0f && a.epi.bias_kind == epi::kNoBias && a.epi.act == epi::kNone;
  const bool f32_out = p.cd == DataType::f32;
  const small::Kernel kernel = p.ab == DataType::bf16 ? small::kernel_bf16(f32_out, p.a.k_major, p.b.k_major)
                                                      : small::kernel_f16(f32_out, p.a.k_major, p.b.k_major);
  // As many CTAs as are resident at once, each with the same number of tiles (within one).
  const std::int64_t units = tiles_m * tiles_n * p.batch;
  const DeviceState& dev = *env.device;
  const std::int64_t slots = std::int64_t(std::max(1, dev.props.sm_count)) * std::max(1, dev.small_resident);
  const std::int64_t each = cdiv(units, slots);
  const KernelLaunch run(dim3(unsigned(cdiv(units, each))), dim3(small::kThreads), 0, env.queue());
  GEMMLAB_CUDA(run(kernel, a));
}

}  // namespace gemmlab::detail
