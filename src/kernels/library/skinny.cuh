// The skinny kernel (skinny.hpp): a GEMM whose D has at most 64 rows or at most 64 columns, the
// shape of a decode step (a few tokens against a weight matrix), a GEMV, or a projection to a few
// outputs. Such a GEMM is bound by the bytes of its long operand, not by arithmetic, so the kernel
// is built to stream that operand once at full bandwidth:
//
//   - Swap-AB. The long operand W (big x k) takes the tensor core's 16-row side and the short one
//     X (small x k, small <= 64) its 8-column side: mma.sync.m16n8k16 (m16n8k8 for FP32 operands)
//     computes 16 big x 8 small outputs, so a 1-row D wastes 7/8 of the mma's columns instead of
//     127/128 of a wgmma tile.
//   - No shared memory on the way in. Each lane loads its mma fragment straight from global memory
//     with 16-byte loads (W K-major: a vector of consecutive k of one row, the k order permuted
//     inside the mma, which a sum does not mind; W big-major: 8 consecutive rows of one k, paired up
//     with byte permutes for 16-bit elements), one k-step ahead of the mma that uses it. X is read
//     K-major in 16-byte vectors too or, stored MN-major with at most 16 columns (the M-major A of
//     a decode step), element by element: the kernels for that (kXK false) are instantiations of
//     their own, so the K-major ones keep their registers.
//   - Split K, deterministically. The 4 warps of a CTA take consecutive ranges of k (interleaved
//     k-steps over a K-major W), and a cluster of `splits` CTAs (1 to 8) splits k further. Warp
//     sums add in shared memory in warp order, then each CTA of the cluster adds a slice of the
//     tile over the cluster's CTAs in rank order, through distributed shared memory: no
//     workspace, no atomics, no second kernel.
//   - FP32 operands, where the call allows TF32, take the same path with m16n8k8.tf32.
//   - A W that is not in 16-byte vectors (an odd k or n, a view) is read in place all the same
//     (kWU): each lane loads its piece of a row from the aligned place below it, takes the rest
//     from its neighbour's piece by a shuffle, and shifts its bytes out; the elements past k (or
//     past W's end) read as zero. The operand copy the tile kernels need
//     there (operand_copy.hpp) would read and write W once more before the GEMM reads it.
#pragma once

#include <cooperative_groups.h>
#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/device_utils.cuh"
#include "kernels/library/epilogue.cuh"

namespace gemmlab::detail::skinny {

constexpr int kWarps = 4, kThreads = 32 * kWarps;

// n16 tiles of W per warp: 4 (64 rows) for up to 16 short-side columns, 2 above, to stay within
// the register budget with 4 to 8 mma columns.
__host__ __device__ constexpr int tiles_for(int mt) { return mt >= 4 ? 2 : 4; }

struct Args {
  std::int64_t big = 0, small = 0, k = 0, batch = 1;
  // W (big x k): element (r, kk) at w[r * ldw + kk] when w_kmajor, else w[kk * ldw + r].
  const void* w = nullptr;
  std::int64_t ldw = 0, stride_w = 0;
  std::int64_t w_extent = 0;  // elements from w to one past W's last (kWU: reads stay inside)
  // X (small x k): element (i, kk) at x[i * ldx + kk] in 16-byte rows (a copy when the caller's
  // X is stored otherwise), or at x[kk * ldx + i] in the kernels for an MN-major X (kXK false: an
  // M-major A of a decode step, read as stored, element by element; skinny.cu says where).
  const void* x = nullptr;
  std::int64_t ldx = 0, stride_x = 0;
  // D and C: element (r, i) at d[r * d_big + i * d_small].
  const void* c = nullptr;
  std::int64_t c_big = 0, c_small = 0, stride_c = 0;
  void* d = nullptr;
  std::int64_t d_big = 0, d_small = 0, stride_d = 0;
  int swapped = 0;  // W is op(B)^T: r indexes D's columns and i its rows (else r rows, i columns)
  int splits = 1;   // CTAs per cluster, along k
  std::int64_t steps_each = 0, steps_more = 0;  // the k-steps (kStepK) per warp of the cluster (the kernel divides nothing in 64 bits)
  epi::Params epi;
  // The TMA-fed form's persistent grid (SkinnyConfig::persistent; 0 units: a CTA a tile): `units`
  // (tile, stage) pairs, tile t's stages t * stages to (t + 1) * stages - 1, shared evenly by the
  // grid's CTAs in order. `partials`: two slots of a tile's sums per CTA (its first tile's and its
  // last's); `flags`: a counter per CTA, zero before the launch and after it.
  int units = 0, stages = 0;
  float* partials = nullptr;
  unsigned* flags = nullptr;
};

__device__ __forceinline__ void mma(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                    std::uint32_t a3, std::uint32_t b0, std::uint32_t b1, __nv_bfloat16) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                    std::uint32_t a3, std::uint32_t b0, std::uint32_t b1, __half) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// FP32 operands, where the call allows TF32: each operand rounded to TF32 (a 10-bit mantissa) and
// multiplied with m16n8k8. (Three TF32 products per product would give close to FP32's accuracy
// at no cost to a kernel bound by the bytes of W, but not FP32 products, which Compute::f32
// promises.)
struct Tf32 {};
template <class T> constexpr bool kWide = std::is_same_v<T, Tf32>;

__device__ __forceinline__ std::uint32_t tf32_bits(std::uint32_t x) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(x)));
  return r;
}
// A fragment as m16n8k8 takes it (a: rows g, g + 8 at k slot t, then at t + 4; b: k slots t, t + 4
// of column g), from FP32 bits.
__device__ __forceinline__ void mma(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                    std::uint32_t a3, std::uint32_t b0, std::uint32_t b1, Tf32) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(tf32_bits(a0)), "r"(tf32_bits(a1)), "r"(tf32_bits(a2)), "r"(tf32_bits(a3)), "r"(tf32_bits(b0)),
        "r"(tf32_bits(b1)));
}

using u16 = unsigned short;

// The operands' storage: 16-bit elements, or FP32 for Tf32.
template <class T> using Elem = std::conditional_t<kWide<T>, float, u16>;
// Elements per 16-byte vector, and the k of one step of a warp: 64 bytes of each W row (32 k of
// 16-bit elements in two m16n8k16, 16 k of FP32 in two m16n8k8), so both widths move the same
// bytes per step with the same registers.
template <class E> constexpr int kVec = 16 / int(sizeof(E));
template <class E> constexpr int kStepK = 4 * kVec<E>;
// 16-bit elements: pairs in a 32-bit word, the mma's k pairs; FP32: one per word.
template <class E> constexpr int kPerWord = 4 / int(sizeof(E));

// N consecutive 32-bit words from a 4N-byte aligned address; W is read once, so the loads do not
// keep it in L1.
template <int N> struct Words { std::uint32_t v[N]; };
// kPrefetch: the L2 fetches 256 bytes around each miss. It helps the big-major W, whose warp reads
// 128 contiguous bytes per k row and whose neighbour tile reads the next 128; it slowed the
// K-major W (docs/shapes.md, "The skinny kernel"), whose warp reads 64 bytes of each of 64 rows
// 32 KB apart.
template <int N, bool kPrefetch>
__device__ __forceinline__ Words<N> load_words(const void* at) {
  Words<N> r;
  if constexpr (N == 8) {
    const Words<4> lo = load_words<4, kPrefetch>(at), hi = load_words<4, kPrefetch>(static_cast<const char*>(at) + 16);
#pragma unroll
    for (int i = 0; i < 4; ++i) r.v[i] = lo.v[i], r.v[4 + i] = hi.v[i];
  } else if constexpr (N == 4 && kPrefetch) {
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];\n"
        : "=r"(r.v[0]), "=r"(r.v[1]), "=r"(r.v[2]), "=r"(r.v[3])
        : "l"(at));
  } else if constexpr (N == 4) {
    const uint4 q = __ldcs(static_cast<const uint4*>(at));
    r.v[0] = q.x, r.v[1] = q.y, r.v[2] = q.z, r.v[3] = q.w;
  } else if constexpr (N == 2) {
    asm("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0,%1}, [%2];\n" : "=r"(r.v[0]), "=r"(r.v[1]) : "l"(at));
  } else {
    asm("ld.global.nc.L1::no_allocate.L2::256B.u32 %0, [%1];\n" : "=r"(r.v[0]) : "l"(at));
  }
  return r;
}

// N words of W from `at`, which need not be aligned beyond its element (kWU). The lanes read a W
// row in consecutive pieces of N words, the next piece `kNext` lanes up (`last`: the lane whose
// next piece no lane reads). Each lane loads its own piece from the aligned place at or below
// `at`, as for an aligned W, takes the first aligned vector of its neighbour's by a shuffle (the
// last lane loads it), and shifts its bytes out of the two (a funnel shift of each word pair):
// one load a lane, not two. Every lane of the warp must call it. Where the two pieces would
// reach outside [begin, end) (W's first or last bytes: piece_inside false), the words are wrong,
// and the caller reads them again with load_words_by_element.
template <int N> constexpr int kPieceAlign = N >= 4 ? 16 : 4 * N;
template <int N, class E>
__device__ __forceinline__ bool piece_inside(const E* at, const E* begin, const E* end) {
  const char* base =
      reinterpret_cast<const char*>(at) - (reinterpret_cast<std::uintptr_t>(at) & unsigned(kPieceAlign<N> - 1));
  return base >= reinterpret_cast<const char*>(begin) && base + 8 * N <= reinterpret_cast<const char*>(end);
}
template <int N, int kNext, bool kPrefetch, class E>
__device__ __forceinline__ Words<N> load_words_chained(const E* at, const E* begin, const E* end, bool last) {
  constexpr int kAlign = kPieceAlign<N>, kNextWords = kAlign / 4;
  const char* c = reinterpret_cast<const char*>(at);
  const unsigned off = unsigned(reinterpret_cast<std::uintptr_t>(c) & unsigned(kAlign - 1));
  const char* base = c - off;
  // The lane's piece, and for the last lane its neighbour's (which starts 4N bytes on), inside W.
  const bool own_in = base >= reinterpret_cast<const char*>(begin) && base + 4 * N <= reinterpret_cast<const char*>(end);
  const Words<N> own = own_in ? load_words<N, kPrefetch>(base) : Words<N>{};
  const Words<kNextWords> extra =
      last && piece_inside<N>(at, begin, end) ? load_words<kNextWords, kPrefetch>(base + 4 * N) : Words<kNextWords>{};
  std::uint32_t w[N + kNextWords];
#pragma unroll
  for (int i = 0; i < N; ++i) w[i] = own.v[i];
#pragma unroll
  for (int i = 0; i < kNextWords; ++i) {
    const std::uint32_t up = __shfl_down_sync(0xffffffffu, own.v[i], kNext);
    w[N + i] = last ? extra.v[i] : up;
  }
  const unsigned q = off >> 2, shift = (off & 3) * 8;
  Words<N> r;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    std::uint32_t lo = w[i], hi = w[i + 1];
#pragma unroll
    for (int j = 1; j < kNextWords; ++j)
      if (q == unsigned(j)) lo = w[i + j], hi = w[i + j + 1];
    r.v[i] = __funnelshift_r(lo, hi, shift);
  }
  return r;
}
// The same words element by element, those at or past `end` zero.
template <int N, class E>
__device__ __noinline__ Words<N> load_words_by_element(const E* at, const E* end) {
  Words<N> r;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if constexpr (kPerWord<E> == 2) {
      const std::uint32_t lo = at + 2 * i < end ? at[2 * i] : 0u, hi = at + 2 * i + 1 < end ? at[2 * i + 1] : 0u;
      r.v[i] = lo | (hi << 16);
    } else {
      r.v[i] = at + i < end ? __float_as_uint(at[i]) : 0u;
    }
  }
  return r;
}

// Words of k = kk, kk + 1, ... with those at k or past it zeroed (kWU: k need not be a multiple of
// a vector, so a lane's last vector may run past it, into the next row's elements or a copy's
// padding, which could hold an infinity or a NaN that a zero would not cancel).
template <class E, int N>
__device__ __forceinline__ void zero_past_k(Words<N>& w, std::int64_t kk, std::int64_t k) {
  if (kk + N * kPerWord<E> <= k) return;
  const std::int64_t valid = k - kk;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (i * kPerWord<E> >= valid) w.v[i] = 0;
    else if (kPerWord<E> == 2 && i * kPerWord<E> + 1 >= valid) w.v[i] &= 0xffffu;
  }
}

// The operands of one k-step in one lane's registers (the same count for both widths).
// W K-major: [tile][row g, row g + 8] one 16-byte vector of k each. W big-major: [half][k row]
// 2 NT big rows each, the k rows of a half being (2t, 2t+1, 2t+8, 2t+9) of a k16 for 16-bit
// elements and (t, t+4) of a k8 for FP32. X: [mt] one 16-byte vector of k of row mt * 8 + g
// (K-major W), or [half][mt] the k slots t and t + 4 of the half's mma (as pairs for 16-bit).
template <class E, int MT, int NT, bool kWK>
struct Step {
  static constexpr int kRows = 2 * kPerWord<E>, kRowWords = 2 * NT / kPerWord<E>;
  Words<kWK ? 4 : kRowWords> w[kWK ? NT : 2][kWK ? 2 : kRows];
  Words<kWK ? 4 : 2> x[kWK ? 1 : 2][MT];
};

// What a lane reads, worked out once. Rows past the end of W or X are read at a row inside
// instead: each feeds only outputs of its own row (or column), which are never written, so they
// need no zeros and the loop no bounds checks on rows. K is a multiple of a 16-byte vector
// (skinny_reject), so a lane's vector of k is all inside K or all past it; past it, both sides
// read as zero.
template <class E, int MT, int NT, bool kWK>
struct Lane {
  const E* w[kWK ? NT : 1][kWK ? 2 : 1];  // K-major: rows (tile, g / g + 8) at k = kVec t; big-major: k = (2 or 1) t, row 2 NT g
  const E* x[MT];                         // X's row mt * 8 + g at k = 0
};

template <class E, int MT, int NT, bool kWK, bool kXK, bool kWU>
__device__ __forceinline__ Lane<E, MT, NT, kWK> lane_setup(const Args& p, const E* W, const E* X, std::int64_t r0,
                                                           int g, int t) {
  Lane<E, MT, NT, kWK> l;
  if constexpr (kWK) {
#pragma unroll
    for (int q = 0; q < NT; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h) l.w[q][h] = W + min(r0 + 16 * q + g + 8 * h, p.big - 1) * p.ldw + kVec<E> * t;
  } else {
    // big is a multiple of 8 here, so the last whole vector starts at big - 2 NT; read unaligned
    // (kWU), any big: a vector past it feeds only rows that are not written, and its reads past
    // W's end read zeros.
    l.w[0][0] = W + std::int64_t(kPerWord<E> * t) * p.ldw + (kWU ? r0 + 2 * NT * g : min(r0 + 2 * NT * g, p.big - 2 * NT));
  }
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) l.x[mt] = X + min(std::int64_t(mt * 8 + g), p.small - 1) * (kXK ? p.ldx : 1);
  return l;
}

// N words of an MN-major X's row at k = kk, kk + 1, ... (`at`: the row's element at k = 0, `ld`
// elements between k): 16-bit elements in pairs, low half first, as a K-major row's words hold them.
// X is small and its lines stay in L1 (each load of a warp reads 16 or 32 contiguous bytes, the 8
// columns of a group, from each of 4 k rows), so the reads cost less than a copy's launch.
template <class E, int N>
__device__ __forceinline__ Words<N> gather_x(const E* at, std::int64_t kk, std::int64_t ld) {
  Words<N> r;
#pragma unroll
  for (int w = 0; w < N; ++w) {
    if constexpr (kPerWord<E> == 2) {
      const std::uint32_t lo = __ldg(at + (kk + 2 * w) * ld), hi = __ldg(at + (kk + 2 * w + 1) * ld);
      r.v[w] = lo | (hi << 16);
    } else {
      r.v[w] = __float_as_uint(__ldg(at + (kk + w) * ld));
    }
  }
  return r;
}

// The operands of the k-step at k0.
// Row j of half h of a big-major W's k-step, from the lane's first (16-bit: 2t + 16h + {0, 1, 8, 9};
// FP32: t + 8h + {0, 4}).
template <class E> __device__ __forceinline__ std::int64_t row_dk(int h, int j) {
  return 8 * kPerWord<E> * h + (kPerWord<E> == 2 ? (j & 1) + 8 * (j >> 1) : 4 * j);
}

// kWU: W read unaligned (load_words_chained), from w_begin to w_end; X then K-major in rows of a
// vector multiple (a copy where k is not one), its elements past k zeroed here as W's are.
template <class E, int MT, int NT, bool kWK, bool kXK, bool kWU>
__device__ __forceinline__ void load_step(Step<E, MT, NT, kWK>& s, const Lane<E, MT, NT, kWK>& l, const Args& p,
                                          std::int64_t k0, int t, const E* w_begin, const E* w_end) {
  using S = Step<E, MT, NT, kWK>;
  if constexpr (kWK) {
    const std::int64_t kk = k0 + kVec<E> * t;
    const bool in = kk < p.k;
#pragma unroll
    for (int q = 0; q < NT; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if constexpr (kWU)  // every lane loads (a piece past k may hold a neighbour's elements before it)
          s.w[q][h] = load_words_chained<4, 1, false>(l.w[q][h] + k0, w_begin, w_end, t == 3);
        else
          s.w[q][h] = in ? load_words<4, false>(l.w[q][h] + k0) : Words<4>{};
      }
    if constexpr (kWU) {
      // W's first and last pieces again, element by element (one branch for all, after the loads).
      bool edge = false;
#pragma unroll
      for (int q = 0; q < NT; ++q)
#pragma unroll
        for (int h = 0; h < 2; ++h) edge |= !piece_inside<4>(l.w[q][h] + k0, w_begin, w_end);
      if (edge) {
#pragma unroll
        for (int q = 0; q < NT; ++q)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            if (!piece_inside<4>(l.w[q][h] + k0, w_begin, w_end))
              s.w[q][h] = load_words_by_element<4>(l.w[q][h] + k0, w_end);
      }
#pragma unroll
      for (int q = 0; q < NT; ++q)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          if (!in) s.w[q][h] = Words<4>{};
          zero_past_k<E>(s.w[q][h], kk, p.k);
        }
    }
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      if constexpr (kXK) {
        const uint4 v = in ? __ldg(reinterpret_cast<const uint4*>(l.x[mt] + kk)) : make_uint4(0, 0, 0, 0);
        s.x[0][mt].v[0] = v.x, s.x[0][mt].v[1] = v.y, s.x[0][mt].v[2] = v.z, s.x[0][mt].v[3] = v.w;
        if constexpr (kWU) zero_past_k<E>(s.x[0][mt], kk, p.k);
      } else {
        s.x[0][mt] = in ? gather_x<E, 4>(l.x[mt], kk, p.ldx) : Words<4>{};
      }
    }
  } else {
    // The k rows of half h: 16-bit, k0 + 2t + (16h + {0, 1, 8, 9}); FP32, k0 + t + (8h + {0, 4}).
    constexpr int kHalfK = 8 * kPerWord<E>;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int j = 0; j < S::kRows; ++j) {
        const std::int64_t dk = row_dk<E>(h, j);
        const bool in = k0 + kPerWord<E> * t + dk < p.k;
        if constexpr (kWU)  // the 8 lanes of a t read one k row, g after g (lane + 4 holds the next piece)
          s.w[h][j] = load_words_chained<S::kRowWords, 4, true>(l.w[0][0] + (k0 + dk) * p.ldw, w_begin, w_end,
                                                                  (threadIdx.x & 31) >= 28);
        else
          s.w[h][j] = in ? load_words<S::kRowWords, true>(l.w[0][0] + (k0 + dk) * p.ldw) : Words<S::kRowWords>{};
      }
    if constexpr (kWU) {
      bool edge = false;
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int j = 0; j < S::kRows; ++j)
          edge |= !piece_inside<S::kRowWords>(l.w[0][0] + (k0 + row_dk<E>(h, j)) * p.ldw, w_begin, w_end);
      if (edge) {
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int j = 0; j < S::kRows; ++j) {
            const E* at = l.w[0][0] + (k0 + row_dk<E>(h, j)) * p.ldw;
            if (!piece_inside<S::kRowWords>(at, w_begin, w_end)) s.w[h][j] = load_words_by_element<S::kRowWords>(at, w_end);
          }
      }
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int j = 0; j < S::kRows; ++j)
          if (k0 + kPerWord<E> * t + row_dk<E>(h, j) >= p.k) s.w[h][j] = Words<S::kRowWords>{};
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // k slot t of the half's mma and slot t + 4 (k pairs for 16-bit elements).
      const std::int64_t kk = k0 + kHalfK * h + kPerWord<E> * t, far = 4 * kPerWord<E>;
      const bool lo = kk < p.k, hi = kk + far < p.k;
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        if constexpr (kXK) {
          s.x[h][mt].v[0] = lo ? __ldg(reinterpret_cast<const unsigned*>(l.x[mt] + kk)) : 0u;
          s.x[h][mt].v[1] = hi ? __ldg(reinterpret_cast<const unsigned*>(l.x[mt] + kk + far)) : 0u;
          if constexpr (kWU && kPerWord<E> == 2) {  // a pair of k = k - 1 and k: the second zeroed
            if (kk + 1 == p.k) s.x[h][mt].v[0] &= 0xffffu;
            if (kk + far + 1 == p.k) s.x[h][mt].v[1] &= 0xffffu;
          }
        } else {
          s.x[h][mt].v[0] = lo ? gather_x<E, 1>(l.x[mt], kk, p.ldx).v[0] : 0u;
          s.x[h][mt].v[1] = hi ? gather_x<E, 1>(l.x[mt], kk + far, p.ldx).v[0] : 0u;
        }
      }
    }
  }
}

// The mma of half h of a k-step (the first or second m16n8k16 / m16n8k8 of each tile pair): the
// words of `s` that half reads, and only those (the TMA-fed form reads a half at a time).
template <class T, class E, int MT, int NT, bool kWK>
__device__ __forceinline__ void mma_half(float (&acc)[NT][MT][4], const Step<E, MT, NT, kWK>& s, int h) {
  if constexpr (kWK) {
    // Lane t holds one 16-byte vector of k of its rows and of X's, and the mma's k slots are
    // filled from it in a permuted order, which a sum does not mind. 16-bit: k = 8t .. 8t+7, the
    // first m16n8k16 (h = 0) takes 8t .. 8t+3 in the places of k = 2t, 2t+1, 2t+8, 2t+9, the second
    // 8t+4 .. 8t+7. FP32: k = 4t .. 4t+3, the first m16n8k8 takes 4t, 4t+1 in slots t, t + 4, the
    // second 4t+2, 4t+3. Both read the same words in the same places.
#pragma unroll
    for (int q = 0; q < NT; ++q)
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        mma(acc[q][mt], s.w[q][0].v[2 * h], s.w[q][1].v[2 * h], s.w[q][0].v[2 * h + 1], s.w[q][1].v[2 * h + 1],
            s.x[0][mt].v[2 * h], s.x[0][mt].v[2 * h + 1], T{});
  } else if constexpr (kPerWord<E> == 2) {
    // Word q of a loaded k row holds big rows 2q (low half) and 2q + 1 (high half) of the lane's
    // 2 NT: tile q's fragment row g is big row 2 NT g + 2q, row g + 8 is 2 NT g + 2q + 1.
#pragma unroll
    for (int q = 0; q < NT; ++q) {
      const std::uint32_t a0 = __byte_perm(s.w[h][0].v[q], s.w[h][1].v[q], 0x5410);
      const std::uint32_t a1 = __byte_perm(s.w[h][0].v[q], s.w[h][1].v[q], 0x7632);
      const std::uint32_t a2 = __byte_perm(s.w[h][2].v[q], s.w[h][3].v[q], 0x5410);
      const std::uint32_t a3 = __byte_perm(s.w[h][2].v[q], s.w[h][3].v[q], 0x7632);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) mma(acc[q][mt], a0, a1, a2, a3, s.x[h][mt].v[0], s.x[h][mt].v[1], T{});
    }
  } else {
    // FP32: word 2q of a k row is big row 2 NT g + 2q (tile q's row g), word 2q + 1 the next
    // (row g + 8); k row 0 of the half is slot t, k row 1 slot t + 4.
#pragma unroll
    for (int q = 0; q < NT; ++q)
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        mma(acc[q][mt], s.w[h][0].v[2 * q], s.w[h][0].v[2 * q + 1], s.w[h][1].v[2 * q], s.w[h][1].v[2 * q + 1],
            s.x[h][mt].v[0], s.x[h][mt].v[1], T{});
  }
}

template <class T, class E, int MT, int NT, bool kWK>
__device__ __forceinline__ void mma_step(float (&acc)[NT][MT][4], const Step<E, MT, NT, kWK>& s) {
#pragma unroll
  for (int h = 0; h < 2; ++h) mma_half<T>(acc, s, h);
}

// A warp's sums into its slice of a reduction buffer: value e of tile q, column group mt, lane l
// at ((q MT + mt) 4 + e) 32 + l (conflict-free: the lanes side by side).
template <int MT, int NT>
__device__ __forceinline__ void stash_sums(float* at, const float (&acc)[NT][MT][4], int lane) {
#pragma unroll
  for (int q = 0; q < NT; ++q)
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int e = 0; e < 4; ++e) at[((q * MT + mt) * 4 + e) * 32 + lane] = acc[q][mt][e];
}

// Value v of a warp's stashed sums (as stash_sums lays them out), added over the cluster: where it
// lands in D for a warp whose W rows start at r0, then the epilogue and the store. Rows past W's
// or X's end are not written. kWK: the K-major fragments' rows (those of a wgmma's accumulators
// too), else the big-major ones'.
template <class TD, int MT, int NT, bool kWK>
__device__ __forceinline__ void store_sum(const Args& p, const epi::Scalars& sc, std::int64_t item, std::int64_t r0,
                                          int v, float sum) {
  const int reg = v / 32, vl = v % 32, vg = vl / 4, vt = vl % 4;
  const int e = reg % 4, mt = (reg / 4) % MT, q = reg / (4 * MT);
  const std::int64_t r = kWK ? r0 + 16 * q + vg + 8 * (e >> 1) : r0 + 2 * NT * vg + 2 * q + (e >> 1);
  const std::int64_t i = mt * 8 + 2 * vt + (e & 1);
  if (r >= p.big || i >= p.small) return;
  TD* D = static_cast<TD*>(p.d) + item * p.stride_d;
  const TD* C = static_cast<const TD*>(p.c) + item * p.stride_c;
  const std::int64_t row = p.swapped ? i : r, col = p.swapped ? r : i;
  const float bias = epi::bias_at<TD>(p.epi, item, row, col);
  D[r * p.d_big + i * p.d_small] = epi::finish<TD>(p.epi, sc, sum, C + r * p.c_big + i * p.c_small, bias);
}

template <class T, class TD, int MT, bool kWK, bool kXK, bool kWU = false>
__global__ void __launch_bounds__(kThreads) skinny_gemm(const Args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  using E = Elem<T>;
  constexpr int NT = tiles_for(MT), kRegs = NT * MT * 4, kTileBig = 16 * NT;
  __shared__ float red[kWarps][kRegs][32];
  dev::start_in_stream_order();
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = int(cluster.block_rank());
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  const std::int64_t r0 = std::int64_t(blockIdx.x / unsigned(p.splits)) * kTileBig;
  // Worker w (warp of rank r: w = r * kWarps + warp) takes steps_each k-steps, one more when
  // w < steps_more. Over a big-major W, a range of consecutive steps each. Over a K-major W, every
  // workers-th step from step w: the workers then read neighbouring 64-byte pieces of each W row
  // together, runs of 256 bytes a CTA and more a cluster, where ranges of steps read 64-byte pieces
  // far apart (docs/shapes.md, "Interleaved k-steps over a K-major W").
  const std::int64_t workers = std::int64_t(p.splits) * kWarps, worker = std::int64_t(rank) * kWarps + warp;
  const std::int64_t step_first = kWK ? worker : worker * p.steps_each + min(worker, p.steps_more);
  const std::int64_t step_stride = kWK ? workers : 1;
  const std::int64_t step_count = p.steps_each + (worker < p.steps_more ? 1 : 0);
  const epi::Scalars sc = epi::scalars(p.epi);
  const E* w_begin = static_cast<const E*>(p.w);
  const E* w_end = w_begin + p.w_extent;
  for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
    const E* W = static_cast<const E*>(p.w) + item * p.stride_w;
    const E* X = static_cast<const E*>(p.x) + item * p.stride_x;
    const Lane<E, MT, NT, kWK> l = lane_setup<E, MT, NT, kWK, kXK, kWU>(p, W, X, r0, g, t);
    float acc[NT][MT][4] = {};
    // One step of loads, then its mma: a second step in flight per warp (registers for both)
    // left fewer CTAs resident, and as many bytes in flight per SM.
    Step<E, MT, NT, kWK> cur;
    for (std::int64_t s = 0; s < step_count; ++s) {
      load_step<E, MT, NT, kWK, kXK, kWU>(cur, l, p, (step_first + s * step_stride) * kStepK<E>, t, w_begin, w_end);
      mma_step<T>(acc, cur);
    }
    // The warps' sums, then the CTA's (warp order), then the cluster's (rank order).
    stash_sums(&red[warp][0][0], acc, lane);
    __syncthreads();
    float* cta = &red[0][0][0];
    constexpr int kValues = kRegs * 32;
    for (int v = int(threadIdx.x); v < kValues; v += kThreads) {
      float sum = cta[v];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) sum += cta[w * kValues + v];
      cta[v] = sum;
    }
    cluster.sync();
    const int per = (kValues + p.splits - 1) / p.splits;
    const int v_end = min(kValues, (rank + 1) * per);
    for (int v = rank * per + int(threadIdx.x); v < v_end; v += kThreads) {
      float sum = 0.0f;
      for (int other = 0; other < p.splits; ++other) sum += cluster.map_shared_rank(cta, other)[v];
      store_sum<TD, MT, NT, kWK>(p, sc, item, r0, v, sum);
    }
    cluster.sync();  // the other CTAs have read this one's sums
  }
#else
  __trap();  // skinny_reject refuses GPUs before sm_90 (clusters)
#endif
}

using Kernel = void (*)(Args);

// The instantiation for X's columns in mt groups of 8 (1, 2, 4 or 8), W's layout and X's, and
// whether W is read unaligned: an MN-major X is read as stored with 1 or 2 groups only, for TF32
// over a big-major W only, and not beside an unaligned W (else nullptr: the caller copies X;
// skinny.cu, x_as_stored, says why).
template <class T, class TD, int MT>
Kernel kernel_for(bool w_kmajor, bool x_kmajor, bool w_unaligned) {
  if (w_unaligned) {
    if (!x_kmajor) return nullptr;
    return w_kmajor ? skinny_gemm<T, TD, MT, true, true, true> : skinny_gemm<T, TD, MT, false, true, true>;
  }
  if (x_kmajor) return w_kmajor ? skinny_gemm<T, TD, MT, true, true> : skinny_gemm<T, TD, MT, false, true>;
  if constexpr (MT <= 2) {
    if (!w_kmajor) return skinny_gemm<T, TD, MT, false, false>;
    if constexpr (!kWide<T>) return skinny_gemm<T, TD, MT, true, false>;
  }
  return nullptr;
}
template <class T, class TD>
Kernel kernel_for(int mt, bool w_kmajor, bool x_kmajor, bool w_unaligned) {
  switch (mt) {
    case 1: return kernel_for<T, TD, 1>(w_kmajor, x_kmajor, w_unaligned);
    case 2: return kernel_for<T, TD, 2>(w_kmajor, x_kmajor, w_unaligned);
    case 4: return kernel_for<T, TD, 4>(w_kmajor, x_kmajor, w_unaligned);
    case 8: return kernel_for<T, TD, 8>(w_kmajor, x_kmajor, w_unaligned);
    default: return nullptr;
  }
}

}  // namespace gemmlab::detail::skinny
