// The small-tile kernel (small.hpp): BF16 and FP16 GEMMs in 64 x 64 tiles of D, for batches of
// small problems (attention heads, 1024 x 64^3). The Hopper kernel's 128 x 128 tile spends 3/4 of
// its tensor-core work on padding there, and its producer, pipeline and epilogue ring are set up
// for one or two k-tiles per tile; such a batch is bound by the bytes of its operands and D, so
// this kernel is built to keep them streaming with many small CTAs:
//
//   - a CTA of 8 warps computes 64 x 64 tiles of D, each warp a 32 x 16 share with
//     mma.sync.m16n8k16 (FP32 sums); the grid fills the SMs once and each CTA walks its share of
//     all tiles of all items, loading one k-tile ahead across tiles too, so that the next tile's
//     operands are in flight while the last one's epilogue runs (with one CTA per tile, each
//     waited for its loads, then stored: latency, not bandwidth, set the time; docs/api.md);
//   - each operand's 64 x 64 k-tile reaches shared memory by 16-byte cp.async copies as it is
//     stored (K-major or MN-major rows of 128 bytes, the 16-byte chunks of row r XOR-swizzled by
//     r mod 8), two k-tiles in flight; ldmatrix reads K-major tiles and ldmatrix.trans MN-major
//     ones, so every layout runs at the same speed without a copy. Chunks past m, n or k are
//     zero-filled by the copy (src-size), so edges need no branches in the main loop;
//   - 32 KB of shared memory and at most 64 registers a thread (launch bounds: 4 CTAs per SM)
//     leave 32 warps resident per SM and four CTAs' loads in flight together;
//   - where D's rows are 16-byte aligned, the tile's FP32 sums go through shared memory and each
//     thread finishes 16 bytes of a row of D (the epilogue, epilogue.cuh) and stores them at once;
//     else the epilogue runs in registers and stores two adjacent outputs at a time, or one.
//   - a kernel that runs a few tiles per CTA lives on its instruction count: unit indices are
//     split by multiplications (divisor.hpp), offsets inside a tile are 32-bit, and plain sums
//     (no C, bias or activation) skip the epilogue's bounds and reads.
// Each tile's k order is fixed, and a row of D does not depend on m or on the tile it falls in, so
// results are reproducible run to run.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/device_utils.cuh"
#include "kernels/library/divisor.hpp"
#include "kernels/library/epilogue.cuh"
#include "kernels/library/skinny.cuh"  // skinny::mma, the m16n8k16 wrappers

namespace gemmlab::detail::small {

constexpr int kTile = 64;  // tile of D (64 x 64) and of k
// 8 warps, 2 x 4 over the tile, each 32 x 16 of D: twice the warps of a 2 x 2 split at the same
// registers per SM, to hide the latency of each warp's short chains of dependent instructions.
constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpN = kTile / kWarpsN, kNI = kWarpN / 8;  // a warp's columns, in n8 blocks
constexpr int kStages = 2;
constexpr int kTileBytes = kTile * kTile * 2;  // one operand's k-tile: 64 rows of 128 bytes
// The largest leading dimension (in elements) of A, B and D: 64 rows of it and a row's 64
// elements fit in 31 bits, so offsets inside a tile are 32-bit (fewer instructions per copy).
constexpr std::int64_t kMaxLd = (INT32_MAX - kTile) / kTile;

struct Args {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  // Tiles of an item and of its rows, to split a unit index (a tile of an item; fewer than 2^31 units).
  Divisor per_item, tiles_n;
  // op(A) (m x k): element (i, kk) at a[i * lda + kk] when a_k_major, else a[kk * lda + i]; op(B)
  // (k x n): (kk, j) at b[j * ldb + kk] when b_k_major, else b[kk * ldb + j]. Pointers, leading
  // dimensions and batch strides are 16-byte multiples, and 64 rows of A, B or D span fewer than
  // 2^31 elements, so that offsets inside a tile take 32 bits (small_reject).
  const void* a = nullptr;
  std::int64_t lda = 0, stride_a = 0;
  const void* b = nullptr;
  std::int64_t ldb = 0, stride_b = 0;
  const void* c = nullptr;  // row-major, read when beta != 0 (may be D)
  std::int64_t ldc = 0, stride_c = 0;
  void* d = nullptr;  // row-major
  std::int64_t ldd = 0, stride_d = 0;
  // Only alpha scales the sums: no bias, no activation, and beta a host value of 0 (a beta from a
  // device pointer takes the general epilogue, which reads C only where beta != 0). Decided on the
  // host: a flag computed in the kernel was re-evaluated at every use (about 50 instructions).
  int plain = 0;
  int pair_stores = 0;    // two adjacent outputs of a row may be stored as one access
  int vector_stores = 0;  // D's rows (and items) start at 16-byte multiples: 16-byte stores
  epi::Params epi;
};

// The byte offset of 16-byte chunk `chunk` (0..7) of row `row` in a swizzled 64 x 64 tile: the 8
// rows one ldmatrix reads hold the same logical chunk in 8 different bank groups.
__device__ __forceinline__ std::uint32_t swz(int row, int chunk) {
  return std::uint32_t(row * 128 + ((chunk ^ (row & 7)) << 4));
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// One k-tile of an operand as stored: 64 rows (`rows` of them inside the matrix) of 64 elements
// (`cols` inside), row r at src + r * ld. Each thread copies 2 of the 512 chunks, the same chunk
// of rows 32 apart; a chunk reads only its elements inside the matrix and the copy fills the rest
// with zeros.
__device__ __forceinline__ void load_tile(std::uint32_t dst, const unsigned short* src, int ld, int rows, int cols) {
  const int row0 = int(threadIdx.x) >> 3, chunk = int(threadIdx.x) & 7;
  const int left = cols - 8 * chunk, width = left < 0 ? 0 : left > 8 ? 8 : left;
  const unsigned short* from = src + (row0 * ld + 8 * chunk);
  constexpr int kRowStep = kThreads / 8;
#pragma unroll
  for (int j = 0; j < kTile / kRowStep; ++j) {
    const int row = row0 + kRowStep * j, elems = row < rows ? width : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst + swz(row, chunk)),
                 "l"(elems > 0 ? from + kRowStep * j * ld : src), "r"(2 * elems));
  }
}

__device__ __forceinline__ void ldsm_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// A warp's 32 x 16 share of one k-tile: for each k16, two m16 fragments of A and two n8 of B
// (ldmatrix: lane l addresses row l mod 8 of 8 x 8 matrix l / 8), then 8 mma.
template <class T, bool kAK, bool kBK>
__device__ __forceinline__ void mma_tile(float (&acc)[2][kNI][4], std::uint32_t sa, std::uint32_t sb, int wm, int wn,
                                         int lane) {
  const int mat = lane >> 3, r = lane & 7;
#pragma unroll
  for (int kk = 0; kk < kTile / 16; ++kk) {
    std::uint32_t a[2][4], b[kNI / 2][4];
#pragma unroll
    for (int mi = 0; mi < 2; ++mi) {
      const int m0 = 32 * wm + 16 * mi;
      // The matrices a0..a3: (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
      if constexpr (kAK) ldsm_x4(a[mi], sa + swz(m0 + (mat & 1) * 8 + r, 2 * kk + (mat >> 1)));
      else ldsm_x4_trans(a[mi], sa + swz(16 * kk + (mat >> 1) * 8 + r, (m0 >> 3) + (mat & 1)));
    }
#pragma unroll
    for (int np = 0; np < kNI / 2; ++np) {
      const int n0 = kWarpN * wn + 16 * np;
      // b0, b1 of columns n0..n0+7, then of n0+8..n0+15: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
      if constexpr (kBK) ldsm_x4(b[np], sb + swz(n0 + (mat >> 1) * 8 + r, 2 * kk + (mat & 1)));
      else ldsm_x4_trans(b[np], sb + swz(16 * kk + (mat & 1) * 8 + r, (n0 >> 3) + (mat >> 1)));
    }
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int ni = 0; ni < kNI; ++ni)
        skinny::mma(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b[ni >> 1][2 * (ni & 1)],
                    b[ni >> 1][2 * (ni & 1) + 1], T{});
  }
}

// Of `left` rows, columns or k from a tile's start, those in the tile.
__device__ __forceinline__ int inside(std::int64_t left) { return left < kTile ? int(left) : kTile; }

template <class OutT>
struct alignas(2 * sizeof(OutT)) Pair {
  OutT x, y;
};

// The bits of an output, to pack into the words of a 16-byte store.
__device__ __forceinline__ std::uint32_t bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ std::uint32_t bits(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }
__device__ __forceinline__ std::uint32_t bits(__half x) { return __half_as_ushort(x); }
// 16 bytes of outputs o[0..16 / sizeof(OutT)) as one vector.
template <class OutT>
__device__ __forceinline__ uint4 pack16(const OutT* o) {
  std::uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    w[i] = sizeof(OutT) == 4 ? bits(o[i]) : bits(o[2 * i]) | bits(o[2 * i + 1]) << 16;
  return make_uint4(w[0], w[1], w[2], w[3]);
}
// One 16-byte store to global memory (a plain uint4 assignment of pack16's result was split into
// four 4-byte stores by the compiler).
__device__ __forceinline__ void store16(void* to, uint4 v) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(to), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// T: __nv_bfloat16 or __half; OutT: float or T; kAK / kBK: A / B K-major.
template <class T, class OutT, bool kAK, bool kBK>
__global__ void __launch_bounds__(kThreads, 4) small_gemm(const Args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __shared__ __align__(128) unsigned char smem[kStages][2][kTileBytes];
  dev::start_in_stream_order();
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31, wm = warp / kWarpsN, wn = warp % kWarpsN;
  const int g = lane >> 2, t = lane & 3;
  const epi::Scalars sc = epi::scalars(p.epi);
  // Units (tiles of items) are counted in 32 bits (small_reject) and split by multiplications
  // (Divisor): divisions here would cost more instructions than a unit's mma.
  const unsigned units = p.per_item.d * unsigned(p.batch);
  const int ktiles = int((p.k + kTile - 1) / kTile);
  // Unit u (a tile of an item): its item and its tile's row and column among the item's tiles
  // (32 bits: registers are the kernel's limit at 4 CTAs per SM).
  struct Unit {
    unsigned item, tm, tn;
    __device__ std::int64_t m0() const { return std::int64_t(tm) * kTile; }
    __device__ std::int64_t n0() const { return std::int64_t(tn) * kTile; }
  };
  auto unit_at = [&](unsigned u) {
    const unsigned item = p.per_item.quotient(u), tile = u - item * p.per_item.d, tm = p.tiles_n.quotient(tile);
    return Unit{item, tm, tile - tm * p.tiles_n.d};
  };
  // k-tile kt of unit w's operands into stage s.
  auto load = [&](const Unit& w, int kt, int s) {
    const auto* A = static_cast<const unsigned short*>(p.a) + w.item * p.stride_a;
    const auto* B = static_cast<const unsigned short*>(p.b) + w.item * p.stride_b;
    const std::int64_t m0 = w.m0(), n0 = w.n0();
    const int m_in = inside(p.m - m0), n_in = inside(p.n - n0);
    const std::int64_t k0 = std::int64_t(kt) * kTile;
    const int k_in = inside(p.k - k0);
    if constexpr (kAK) load_tile(smem_addr(smem[s][0]), A + m0 * p.lda + k0, int(p.lda), m_in, k_in);
    else load_tile(smem_addr(smem[s][0]), A + k0 * p.lda + m0, int(p.lda), k_in, m_in);
    if constexpr (kBK) load_tile(smem_addr(smem[s][1]), B + n0 * p.ldb + k0, int(p.ldb), n_in, k_in);
    else load_tile(smem_addr(smem[s][1]), B + k0 * p.ldb + n0, int(p.ldb), k_in, n_in);
    asm volatile("cp.async.commit_group;\n" ::);
  };
  // The CTA's units are blockIdx.x, + gridDim.x, ...; their k-tiles one sequence of steps, each
  // loaded one step ahead, across units too: the next unit's first k-tile is in flight while
  // this one's epilogue runs.
  unsigned u = blockIdx.x;
  if (u >= units) return;
  Unit cur = unit_at(u);
  load(cur, 0, 0);
  int kt = 0, stage = 0;
  float acc[2][kNI][4] = {};
  while (true) {
    // The step after this one: the next k-tile, or the next unit's first.
    const bool last_k = kt + 1 == ktiles;
    const unsigned u_next = last_k ? u + gridDim.x : u;  // no wrap: units + gridDim.x < 2^32
    if (u_next < units) {
      load(last_k ? unit_at(u_next) : cur, last_k ? 0 : kt + 1, stage ^ 1);
      asm volatile("cp.async.wait_group 1;\n" ::);
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();
    mma_tile<T, kAK, kBK>(acc, smem_addr(smem[stage][0]), smem_addr(smem[stage][1]), wm, wn, lane);
    __syncthreads();  // every warp has read the stage before it is loaded again
    stage ^= 1;
    if (!last_k) {
      ++kt;
      continue;
    }
    const std::int64_t item = cur.item, m0 = cur.m0(), n0 = cur.n0();
    // Item `item`'s D and C (computed where used: registers are the limit).
    auto D = [&] { return static_cast<OutT*>(p.d) + item * p.stride_d; };
    auto C = [&] { return static_cast<const OutT*>(p.c) + item * p.stride_c; };
    const bool plain = p.plain != 0;  // the common call: only alpha scales the sums
    auto value = [&](float sum, std::int64_t row, std::int64_t col) {
      return plain ? epi::from_f32<OutT>(sc.alpha * sum)
                   : epi::finish<OutT>(p.epi, sc, sum, C() + row * p.ldc + col, epi::bias_at<OutT>(p.epi, item, row, col));
    };
    // acc[mi][ni]: rows g and g + 8 of the m16 block, columns 2t and 2t + 1 of the n8 block.
    if (p.vector_stores) {
      // Through the stage just read (16 KB, free since the barrier above; the next unit's first
      // k-tile is loading into the other): the tile's FP32 sums as 64 rows of 256 bytes, whole,
      // edges included (no bounds); then row by row, each thread the epilogue of 16 bytes of
      // outputs and one 16-byte store. The 16-byte chunks of row r sit at chunk ^ 2 (r mod 8), so
      // that neither the float2 writes of 4 rows nor the reads of a row's chunks share banks.
      float* out = reinterpret_cast<float*>(&smem[stage ^ 1][0][0]);
      auto staged = [&](int r, int c) { return out + r * kTile + (((c >> 2) ^ ((r & 7) << 1)) << 2) + (c & 3); };
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = 32 * wm + 16 * mi + g + 8 * h;
#pragma unroll
          for (int ni = 0; ni < kNI; ++ni)
            *reinterpret_cast<float2*>(staged(r, kWarpN * wn + 8 * ni + 2 * t)) =
                make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
        }
      __syncthreads();
      constexpr int kPerStore = 16 / int(sizeof(OutT)), kStores = kTile / kPerStore;  // per row
      const int rows_in = inside(p.m - m0), cols_in = inside(p.n - n0);
      OutT* Dt = D() + m0 * p.ldd + n0;
#pragma unroll 1
      for (int q = int(threadIdx.x); q < kTile * kStores; q += kThreads) {
        const int r = q / kStores, col = q % kStores * kPerStore;
        if (r >= rows_in || col >= cols_in) continue;
        float f[kPerStore];
#pragma unroll
        for (int e4 = 0; e4 < kPerStore; e4 += 4)
          *reinterpret_cast<float4*>(f + e4) = *reinterpret_cast<const float4*>(staged(r, col + e4));
        OutT o[kPerStore];
        if (plain) {
#pragma unroll
          for (int e = 0; e < kPerStore; ++e) o[e] = epi::from_f32<OutT>(sc.alpha * f[e]);
        } else {
          // Past D's last column, the last column's C and bias stand in (read, not stored).
#pragma unroll
          for (int e = 0; e < kPerStore; ++e) o[e] = value(f[e], m0 + r, n0 + min(col + e, cols_in - 1));
        }
        OutT* to = Dt + (r * int(p.ldd) + col);
        if (col + kPerStore <= cols_in) {
          store16(to, pack16(o));
        } else {
#pragma unroll
          for (int e = 0; e < kPerStore; ++e)
            if (col + e < cols_in) to[e] = o[e];
        }
      }
      __syncthreads();  // read out before the stage is loaded again
    } else {
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const std::int64_t row = m0 + 32 * wm + 16 * mi + g + 8 * h;
          if (row >= p.m) continue;
#pragma unroll
          for (int ni = 0; ni < kNI; ++ni) {
            const std::int64_t col = n0 + kWarpN * wn + 8 * ni + 2 * t;
            if (col >= p.n) continue;
            OutT* d = D() + row * p.ldd + col;
            const OutT v0 = value(acc[mi][ni][2 * h], row, col);
            if (col + 1 < p.n) {
              const OutT v1 = value(acc[mi][ni][2 * h + 1], row, col + 1);
              if (p.pair_stores) {
                *reinterpret_cast<Pair<OutT>*>(d) = Pair<OutT>{v0, v1};
              } else {
                d[0] = v0;
                d[1] = v1;
              }
            } else {
              d[0] = v0;
            }
          }
        }
    }
    if (u_next >= units) break;
    u = u_next, cur = unit_at(u), kt = 0;
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;
  }
#else
  __trap();  // small_reject refuses GPUs before sm_80 (cp.async, bf16 mma.sync)
#endif
}

using Kernel = void (*)(Args);

template <class T, class OutT>
Kernel kernel_for(bool a_k_major, bool b_k_major) {
  if (a_k_major) return b_k_major ? small_gemm<T, OutT, true, true> : small_gemm<T, OutT, true, false>;
  return b_k_major ? small_gemm<T, OutT, false, true> : small_gemm<T, OutT, false, false>;
}

}  // namespace gemmlab::detail::small
