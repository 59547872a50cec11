// Split-K's second pass (split_k.hpp). Each thread adds the slices of VEC neighbouring outputs
// (4, as one 16-byte load a slice, where rows are multiples of 4), `ways` warps share a run of
// 32 x VEC outputs: warp w adds slices w, w + ways, ... in order, then the first adds the ways'
// sums in warp order. The order of every addition is fixed by the indices and `ways`, which the
// host picks from the shape and the SM count alone: a call is bitwise reproducible. ways > 1 only
// where the outputs are too few to keep the GPU's loads in flight (a 128 x 128 D of 128 slices);
// with many outputs (1000 x 1000) every thread adds its own, with no shared memory.
#include "kernels/library/split_k.hpp"

#include <algorithm>
#include <climits>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/library/epilogue.cuh"

namespace gemmlab::detail {

epi::Params epilogue_params(const Problem& p);

namespace {

constexpr int kWarps = 8;

struct ReduceArgs {
  const float* parts;
  int splits, m, n;
  int ways;  // warps per run of outputs: 1, 2, 4 or 8
  void* d;
  const void* c;
  std::int64_t ldd, ldc;
  epi::Params epi;
};

template <class OutT, int VEC>
__global__ void __launch_bounds__(kWarps * 32) split_k_reduce(const ReduceArgs a) {
  using Vec = std::conditional_t<VEC == 4, float4, float>;
  __shared__ Vec sums[kWarps][32];
  dev::start_in_stream_order();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int ways = a.ways, way = warp % ways, runs = kWarps / ways;
  const std::int64_t plane = std::int64_t(a.m) * a.n, vecs = plane / VEC, run_count = (vecs + 31) / 32;
  const epi::Scalars scal = epi::scalars(a.epi);
  // Every thread of the block walks the same sequence of runs (the barriers below are uniform).
  for (std::int64_t first = std::int64_t(blockIdx.x) * runs; first < run_count; first += std::int64_t(gridDim.x) * runs) {
    const std::int64_t v = (first + warp / ways) * 32 + lane;  // this thread's vector of outputs
    const bool mine = v < vecs;
    float s[VEC] = {};
    if (mine) {
      const Vec* p = reinterpret_cast<const Vec*>(a.parts) + v;
#pragma unroll 4
      for (int z = way; z < a.splits; z += ways) {
        const Vec x = p[std::int64_t(z) * vecs];
        if constexpr (VEC == 4) s[0] += x.x, s[1] += x.y, s[2] += x.z, s[3] += x.w;
        else s[0] += x;
      }
    }
    if (ways > 1) {
      if constexpr (VEC == 4) sums[warp][lane] = make_float4(s[0], s[1], s[2], s[3]);
      else sums[warp][lane] = s[0];
      __syncthreads();
      if (way == 0) {
        for (int w = 1; w < ways; ++w) {
          const Vec x = sums[warp + w][lane];
          if constexpr (VEC == 4) s[0] += x.x, s[1] += x.y, s[2] += x.z, s[3] += x.w;
          else s[0] += x;
        }
      }
      __syncthreads();  // sums[] is written again for the next runs
    }
    if (way != 0 || !mine) continue;
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const std::int64_t e = v * VEC + i;
      const int row = int(e / a.n), col = int(e % a.n);
      OutT* d = static_cast<OutT*>(a.d) + row * a.ldd + col;
      const OutT* c = static_cast<const OutT*>(a.c) + row * a.ldc + col;
      *d = epi::finish<OutT>(a.epi, scal, s[i], c, epi::bias_at<OutT>(a.epi, 0, row, col));
    }
  }
}

template <class OutT>
void launch(const ReduceArgs& a, int vec, unsigned blocks, cudaStream_t stream) {
  if (vec == 4) split_k_reduce<OutT, 4><<<blocks, kWarps * 32, 0, stream>>>(a);
  else split_k_reduce<OutT, 1><<<blocks, kWarps * 32, 0, stream>>>(a);
}

}  // namespace

SplitK split_k_slices(std::int64_t k, int splits, int bk) {
  if (splits <= 1) return {};
  const std::int64_t k_tiles = cdiv(k, bk), per = cdiv(k_tiles, splits);
  return {int(cdiv(k_tiles, per)), int(per)};
}

std::optional<std::string> split_k_refusal(const Problem& p, int splits, int bk) {
  if (p.grouped() || p.batch > 1) return std::string("split-K takes one problem, not a batch or groups");
  if (p.determinism == Determinism::batch_invariant)
    return std::string("split-K's slices depend on the shape: not batch-invariant");
  if (splits > cdiv(p.k, bk))
    return fmt::format("{} splits of K = {}: at most one per {}-deep k-tile", splits, p.k, bk);
  if (p.m * p.n > INT_MAX) return std::string("split-K: m x n too large for its reduction's 32-bit indices");
  return std::nullopt;
}

std::int64_t split_k_model(const Problem& p, int tile_m, int tile_n, bool count_rereads, std::int64_t resident,
                           int bk, std::int64_t min_slice_tiles, std::size_t room) {
  const std::int64_t row_tiles = cdiv(p.m, tile_m), col_tiles = cdiv(p.n, tile_n);
  const std::int64_t tiles = row_tiles * col_tiles;
  if (p.grouped() || p.batch != 1 || p.m * p.n > INT_MAX || tiles <= 0) return 1;
  const std::int64_t k_tiles = cdiv(p.k, bk);
  std::int64_t splits = std::min(resident / tiles, k_tiles / min_slice_tiles);
  // The operand bytes a slice reads per unit of K: A and B once, or, counting the tiles' re-reads,
  // each row of A once per column of tiles and each column of B once per row of tiles.
  const double operand_bytes_per_k =
      (count_rereads ? double(p.m * col_tiles + p.n * row_tiles) : double(p.m + p.n)) * double(size_of(p.ab));
  auto heavy = [&](std::int64_t s) {
    const double slice_k = double(cdiv(k_tiles, s) * bk);
    return 8.0 * double(p.m) * double(p.n) > 0.25 * operand_bytes_per_k * slice_k;
  };
  while (splits >= 2 && (heavy(splits) || split_k_parts_bytes(p, splits) > room)) splits /= 2;
  return std::max<std::int64_t>(1, splits);
}

std::size_t split_k_parts_bytes(const Problem& p, std::int64_t splits) {
  return (std::size_t(splits) * std::size_t(p.m) * std::size_t(p.n) * sizeof(float) + 255) / 256 * 256;
}

Problem split_k_first_pass(const Problem& q, int splits, void* parts) {
  Problem r = q;
  r.cd = DataType::f32;
  r.batch = splits;
  r.a.stride = 0, r.b.stride = 0;
  r.c = nullptr, r.ldc = 0, r.stride_c = 0;
  r.d = parts, r.ldd = q.n, r.stride_d = q.m * q.n;
  r.alpha = 1.0f, r.beta = 0.0f, r.alpha_ptr = nullptr, r.beta_ptr = nullptr;
  r.bias_kind = BiasKind::none, r.bias = nullptr, r.act = Activation::none;
  return r;
}

void launch_split_k_reduce(const Problem& p, const float* parts, int splits, int sms, cudaStream_t stream) {
  if (p.batch != 1 || p.grouped()) throw Error("split-K reduction: one problem only (not batched or grouped)");
  ReduceArgs a{};
  a.parts = parts;
  a.splits = splits;
  a.m = int(p.m), a.n = int(p.n);
  a.d = p.d;
  a.c = p.c;
  a.ldd = p.ldd, a.ldc = p.ldc;
  a.epi = epilogue_params(p);
  // 16-byte loads where every slice's rows are multiples of 4 floats (slices start 256-byte aligned).
  const int vec = p.n % 4 == 0 && reinterpret_cast<std::uintptr_t>(parts) % 16 == 0 ? 4 : 1;
  // Warps per run: doubled while the threads still number at most the GPU's (2048 per SM).
  const std::int64_t vecs = p.m * p.n / vec, threads = std::int64_t(std::max(1, sms)) * 2048;
  a.ways = 1;
  while (a.ways < kWarps && a.ways < splits && vecs * a.ways * 2 <= threads) a.ways *= 2;
  const std::int64_t runs = cdiv(vecs, 32), per_block = kWarps / a.ways;
  const unsigned blocks = unsigned(std::min<std::int64_t>(cdiv(runs, per_block), std::int64_t(std::max(1, sms)) * 32));
  switch (p.cd) {
    case DataType::f32: launch<float>(a, vec, blocks, stream); break;
    case DataType::bf16: launch<__nv_bfloat16>(a, vec, blocks, stream); break;
    case DataType::f16: launch<__half>(a, vec, blocks, stream); break;
    default: throw Error("split-K reduction: D must be f32, bf16 or f16");
  }
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace gemmlab::detail
