// The skinny kernel fed by the TMA (skinny.hpp, SkinnyConfig::bulk): the same swap-AB mma.sync
// products, fragments, split of k over a cluster and fixed order of sums as skinny.cuh, but W and
// X reach the warps through a pipeline of shared-memory stages that one producer thread fills with
// tensor copies (cp.async.bulk.tensor, one instruction per 64 x 64 box) instead of each lane
// loading its own 16-byte vectors into registers.
//
// Why: a GEMV-like problem streams W once and is bound by the bytes it keeps in flight to DRAM.
// The register path keeps one k-step per warp in flight, as many as its registers allow (about
// 96 KB an SM); on an H200 that left it well short of cuBLAS, whose TMA pipeline keeps about 200 KB
// in flight (docs/shapes.md, "TMA stages for long decode operands"). Here the stages hold the bytes
// in flight, about 200 KB an SM, and cost no registers. A stage per call costs more to fill and
// drain than the register path's first loads, so it serves long operands (bulk_first in
// skinny.cu).
//
// Levels: a CTA (one an SM) owns kWarps x 64 rows of W, each consumer warp its own 64, and a range
// of k-stages; a stage is 64 of k (two warp k-steps), one TMA box per consumer warp and one for X;
// the CTAs of a cluster split k as in skinny.cuh and add their sums in rank order through
// distributed shared memory. 16-bit operands with at most 16 short-side columns (a decode step).
#pragma once

#include "kernels/library/skinny.cuh"
#include "kernels/tensor/sm90_ptx.cuh"
#include "kernels/tensor/sm90_store_ring.cuh"  // swizzle128

namespace gemmlab::detail::skinny {

constexpr int kBulkThreads = 32 * (kWarps + 1);  // kWarps consumer warps and one producer warp

// One stage in shared memory: each consumer warp's box of W (its 16 NT rows by 64 k, 128-byte
// rows swizzled by the TMA: K-major, a row of W per box row; big-major, a k per box row), then X's
// box (8 MT rows by 64 k). The swizzle (16-byte chunk c of box row r at chunk c ^ (r % 8)) spreads
// the lanes' reads over the banks.
template <class E, int MT, bool kWK>
struct BulkLayout {
  static_assert(sizeof(E) == 2, "16-bit operands");
  static constexpr int NT = tiles_for(MT);
  static_assert(NT == 4, "a warp's W box is 64 rows of 128 bytes");
  static constexpr int kTile = kWarps * 16 * NT;  // W rows of a CTA
  static constexpr int kBK = 64;                  // k of a stage: two warp k-steps
  static constexpr int kBoxBytes = 64 * 128;      // a warp's W box
  static constexpr int kWBytes = kWarps * kBoxBytes;
  static constexpr int kXRows = 8 * MT;
  static constexpr int kXBytes = kXRows * 128;
  static constexpr int kStageBytes = kWBytes + kXBytes;  // a multiple of 1024, the swizzle's alignment
  static constexpr int kStages = (232448 - 1024 - 256) / kStageBytes < 8 ? (232448 - 1024 - 256) / kStageBytes : 8;
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + 2 * kStages * 8;  // 1024: alignment slack
  static constexpr int kRegs = NT * MT * 4;
  static_assert(kStages >= 3, "a pipeline of at least three stages");
  static_assert(kWarps * kRegs * 32 * 4 <= kStages * kStageBytes, "the sums reuse the stages' memory");
};

// Byte `b` of row `r` of a 128-byte-swizzled box at `box` (the layout the TMA epilogue writes).
__device__ __forceinline__ std::uint32_t swizzled(std::uint32_t box, int r, int b) {
  return box + std::uint32_t(tc::sm90::swizzle128(r, b));
}

template <int N>
__device__ __forceinline__ void lds(std::uint32_t* words, std::uint32_t at) {
  if constexpr (N == 4) {
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]), "=r"(words[3])
                 : "r"(at));
  } else if constexpr (N == 2) {
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];\n" : "=r"(words[0]), "=r"(words[1]) : "r"(at));
  } else {
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(words[0]) : "r"(at));
  }
}

// The operands of the warp's k-step `st` (0 or 1) of a stage, from its W box and the X box: the
// fragments skinny.cuh's load_step loads from global memory. The TMA filled whatever lies past k,
// past W's rows or past X's rows with zeros.
template <class E, int MT, int NT, bool kWK>
__device__ __forceinline__ void read_step(Step<E, MT, NT, kWK>& s, std::uint32_t w_box, std::uint32_t x_box, int st,
                                          int g, int t) {
  using S = Step<E, MT, NT, kWK>;
  if constexpr (kWK) {
    const int b = 64 * st + 16 * t;  // lane t's 16 bytes of k
#pragma unroll
    for (int q = 0; q < NT; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h) lds<4>(s.w[q][h].v, swizzled(w_box, 16 * q + g + 8 * h, b));
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) lds<4>(s.x[0][mt].v, swizzled(x_box, mt * 8 + g, b));
  } else {
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int j = 0; j < S::kRows; ++j) {
        const int kr = 32 * st + 16 * h + (j & 1) + 8 * (j >> 1) + 2 * t;
        lds<S::kRowWords>(s.w[h][j].v, swizzled(w_box, kr, 2 * NT * g * 2));
      }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const int b = 2 * (32 * st + 16 * h + 2 * t);
        lds<1>(&s.x[h][mt].v[0], swizzled(x_box, mt * 8 + g, b));
        lds<1>(&s.x[h][mt].v[1], swizzled(x_box, mt * 8 + g, b + 16));
      }
  }
}

// W's tensor map: 3-D (inner, outer, batch item), boxes of 64 x 64 (K-major: 64 k of 64 rows;
// big-major: 64 rows of 64 k); X's: (k, small, item), boxes of 64 k x 8 MT rows; both 128-byte
// swizzled. Args::steps_each and steps_more count stages (64 of k) per CTA of the cluster.
template <class T, class TD, int MT, bool kWK>
__global__ void __launch_bounds__(kBulkThreads, 1)
    skinny_bulk_gemm(const __grid_constant__ CUtensorMap w_map, const __grid_constant__ CUtensorMap x_map, const Args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  namespace tc = gemmlab::tc::sm90;
  using E = Elem<T>;
  using L = BulkLayout<E, MT, kWK>;
  constexpr int NT = L::NT, kRegs = L::kRegs, kTileBig = 16 * NT, kStages = L::kStages;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  unsigned char* smem = tc::align1024(smem_raw);
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + kStages * L::kStageBytes);
  std::uint64_t* empty = full + kStages;
  const std::uint32_t base = dev::smem_addr(smem);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) tc::mbar_init(&full[s], 1), tc::mbar_init(&empty[s], kWarps);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  dev::start_in_stream_order();
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = int(cluster.block_rank());
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  const std::int64_t tile0 = std::int64_t(blockIdx.x / unsigned(p.splits)) * L::kTile;
  const std::int64_t first = rank * p.steps_each + min(std::int64_t(rank), p.steps_more);
  const std::int64_t count = p.steps_each + (rank < p.steps_more ? 1 : 0);
  const epi::Scalars sc = epi::scalars(p.epi);
  std::uint32_t n = 0;  // stages used so far, across batch items: slot n % kStages, use n / kStages
  for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
    float acc[NT][MT][4] = {};
    if (warp == kWarps) {
      // The producer: one thread, kWarps + 1 boxes a stage.
      if (lane == 0) {
        const int wz = p.stride_w == 0 ? 0 : int(item), xz = p.stride_x == 0 ? 0 : int(item);
        for (std::int64_t i = 0; i < count; ++i, ++n) {
          const int slot = int(n % kStages);
          tc::mbar_wait(dev::smem_addr(&empty[slot]), ((n / kStages) & 1) ^ 1);
          const int k0 = int((first + i) * L::kBK);
          const std::uint32_t bar = dev::smem_addr(&full[slot]);
          const std::uint32_t at = base + std::uint32_t(slot * L::kStageBytes);
          tc::mbar_expect_tx(bar, unsigned(L::kStageBytes));
#pragma unroll
          for (int w = 0; w < kWarps; ++w) {
            const int rows = int(tile0) + w * kTileBig;
            if (kWK)
              tc::tma_load_3d(at + std::uint32_t(w * L::kBoxBytes), &w_map, bar, k0, rows, wz);
            else
              tc::tma_load_3d(at + std::uint32_t(w * L::kBoxBytes), &w_map, bar, rows, k0, wz);
          }
          tc::tma_load_3d(at + std::uint32_t(L::kWBytes), &x_map, bar, k0, 0, xz);
        }
      } else {
        n += std::uint32_t(count);
      }
    } else {
      for (std::int64_t i = 0; i < count; ++i, ++n) {
        const int slot = int(n % kStages);
        tc::mbar_wait(dev::smem_addr(&full[slot]), (n / kStages) & 1);
        const std::uint32_t at = base + std::uint32_t(slot * L::kStageBytes);
#pragma unroll
        for (int st = 0; st < 2; ++st) {
          Step<E, MT, NT, kWK> cur;
          read_step(cur, at + std::uint32_t(warp * L::kBoxBytes), at + std::uint32_t(L::kWBytes), st, g, t);
          mma_step<T>(acc, cur);
        }
        __syncwarp();
        if (lane == 0) tc::mbar_arrive(&empty[slot]);
      }
    }
    // Every stage is consumed, so every copy has landed: the sums reuse the stages' memory.
    __syncthreads();
    float* red = reinterpret_cast<float*>(smem);
    constexpr int kValues = kRegs * 32, kAll = kWarps * kValues;
    if (warp < kWarps) stash_sums(red + warp * kValues, acc, lane);
    cluster.sync();
    const int per = (kAll + p.splits - 1) / p.splits;
    const int v_end = min(kAll, (rank + 1) * per);
    for (int v = rank * per + int(threadIdx.x); v < v_end; v += kBulkThreads) {
      float sum = 0.0f;
      for (int other = 0; other < p.splits; ++other) sum += cluster.map_shared_rank(red, other)[v];
      // Value v is warp v / kValues's, whose rows start kTileBig rows apart.
      store_sum<TD, MT, NT, kWK>(p, sc, item, tile0 + (v / kValues) * kTileBig, v % kValues, sum);
    }
    cluster.sync();  // the other CTAs have read this one's sums, and the stages are free again
  }
#else
  __trap();  // skinny_reject refuses GPUs before sm_90
#endif
}

using BulkKernel = void (*)(CUtensorMap, CUtensorMap, Args);

template <class T, class TD>
BulkKernel bulk_kernel_for(int mt, bool w_kmajor) {
  switch (mt) {
    case 1: return w_kmajor ? skinny_bulk_gemm<T, TD, 1, true> : skinny_bulk_gemm<T, TD, 1, false>;
    case 2: return w_kmajor ? skinny_bulk_gemm<T, TD, 2, true> : skinny_bulk_gemm<T, TD, 2, false>;
    default: return nullptr;
  }
}

}  // namespace gemmlab::detail::skinny
