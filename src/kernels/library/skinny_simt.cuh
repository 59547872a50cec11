// The skinny kernel's CUDA-core form (skinny.hpp): exact FP32 products for a GEMM whose D has at
// most 16 rows or at most 16 columns, a decode step or a GEMV in FP32. Such a GEMM moves 4 bytes
// of its long operand W for at most 16 multiply-adds, well within the CUDA cores' rate, so like
// the mma.sync form (skinny.cuh) it is built to stream W once at full bandwidth, with the same
// operands (Args: W big x k, X small x k, K-major in 16-byte rows), the same split of k over the
// warps of a CTA and the CTAs of a cluster, and the same reduction in a fixed order:
//
//   - W K-major (a row of W is contiguous in k): a CTA takes 4 rows; each lane reads 16-byte
//     vectors of k of the 4 rows and the same k of every X row, and multiplies them out. The 32
//     lanes' sums of one warp are added by shuffles that halve the values at each step, so each
//     lane ends with its share of the warp's 4 x S sums.
//   - W big-major (a k row of W is contiguous in big): a CTA takes 128 rows, 4 per lane as one
//     16-byte vector per k; X's values of a k are the same for every lane (one broadcast load).
//     With 16 columns, 64 rows, 2 a lane, and X's values staged in shared memory per step.
//     No lane sums are needed: a lane's outputs are its own rows.
//
// Warp sums add in shared memory in warp order, then the cluster's CTAs in rank order through
// distributed shared memory, as in the mma.sync form: reproducible run to run.
#pragma once

#include <cooperative_groups.h>
#include <cstdint>

#include "kernels/library/epilogue.cuh"
#include "kernels/library/skinny.cuh"

namespace gemmlab::detail::skinny_simt {

using skinny::Args;

// Warps per CTA, each taking its own range of k: 8, for twice the bytes in flight per CTA of the
// mma.sync form's 4; 4 with 16 columns and W K-major, whose 64 sums a lane take the registers.
__host__ __device__ constexpr int warps(bool w_kmajor, int s) { return w_kmajor && s >= 16 ? 4 : 8; }

// W big-major: a lane's rows, one 16-byte vector of 4, or with 16 columns an 8-byte vector of 2,
// whose 2 x 16 sums leave the registers for 16 loads in flight (with 4 rows, 8 loads and 2 CTAs
// of 4 warps an SM drew about 2 TB/s from 16 x 28672 x 8192 on an H100).
__host__ __device__ constexpr int lane_rows(int s) { return s >= 16 ? 2 : 4; }
// Rows of W per CTA: 4 K-major (each warp reads the 4 rows; 4 x S accumulators a lane), 32 lanes'
// rows big-major.
__host__ __device__ constexpr int tile_big(bool w_kmajor, int s) { return w_kmajor ? 4 : 32 * lane_rows(s); }
// The 16-byte loads of W a lane has in flight in one step: with few columns a step does little
// arithmetic per byte, so it takes more bytes at once to keep the memory busy; with many the
// accumulators need the registers. K-major: depth / 4 vectors of k (128 k each across the warp)
// of each of the 4 rows; big-major: depth k rows.
__host__ __device__ constexpr int depth(bool w_kmajor, int s) {
  return s <= 2 || (!w_kmajor && s >= 16) ? 16 : w_kmajor && s >= 8 ? 4 : 8;
}
// The k of one step of a warp.
__host__ __device__ constexpr int step_k(bool w_kmajor, int s) { return w_kmajor ? 128 * (depth(true, s) / 4) : depth(false, s); }

__device__ __forceinline__ float4 load_w(const float* at) {
  float4 r;
  asm("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];\n" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(at));
  return r;
}

// Adds the 32 lanes' values v[0..N) (N a power of two). Each step sends half of the remaining
// values to the lane `o` away and keeps the other half, so a lane ends with the whole sums of
// max(1, N / 32) of them: those of index (lane's top bits) * N/32 + j. With N < 32 the lanes that
// agree in their top log2(N) bits hold the same sum.
template <int N>
__device__ __forceinline__ void reduce_scatter(float (&v)[N], int lane) {
  int n = N;
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) {
    if (n > 1) {
      const bool upper = (lane & o) != 0;
      const int half = n / 2;
#pragma unroll
      for (int j = 0; j < N / 2; ++j) {
        if (j >= half) break;
        const float send = upper ? v[j] : v[j + half], keep = upper ? v[j + half] : v[j];
        v[j] = keep + __shfl_xor_sync(0xffffffffu, send, o);
      }
      n = half;
    } else {
      v[0] += __shfl_xor_sync(0xffffffffu, v[0], o);
    }
  }
}

// log2 of a power of two, at compile time.
constexpr int log2i(int x) { return x <= 1 ? 0 : 1 + log2i(x / 2); }

template <int S, bool kWK>
__global__ void __launch_bounds__(32 * warps(kWK, S), kWK && S >= 16 ? 1 : 2) skinny_simt_gemm(const Args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  constexpr int kRows = kWK ? tile_big(true, S) : lane_rows(S);  // K-major: the CTA's rows; big-major: a lane's
  constexpr int kAcc = kRows * S;
  // The CTA's values: K-major, the tile's kAcc sums; big-major, kAcc per lane.
  constexpr int kValues = kWK ? kAcc : kAcc * 32;
  constexpr int kWarps = warps(kWK, S), kThreads = 32 * kWarps;
  __shared__ float red[kWarps][kValues];
  dev::start_in_stream_order();
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = int(cluster.block_rank());
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const std::int64_t r0 = std::int64_t(blockIdx.x / unsigned(p.splits)) * tile_big(kWK, S);
  const std::int64_t worker = std::int64_t(rank) * kWarps + warp;
  const std::int64_t s_begin = worker * p.steps_each + min(worker, p.steps_more);
  const std::int64_t s_end = s_begin + p.steps_each + (worker < p.steps_more ? 1 : 0);
  const epi::Scalars sc = epi::scalars(p.epi);
  for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
    const float* W = static_cast<const float*>(p.w) + item * p.stride_w;
    const float* X = static_cast<const float*>(p.x) + item * p.stride_x;
    // Rows past the end of W or X are read at the last row instead: they feed only outputs that
    // are never written. k is a multiple of 4 (skinny_reject), so a vector is inside k or past it.
    const std::int64_t x_last = p.small - 1;
    auto x_at = [&](int i, std::int64_t k) { return __ldg(reinterpret_cast<const float4*>(X + min(std::int64_t(i), x_last) * p.ldx + k)); };
    float acc[kRows][S] = {};
    if constexpr (kWK) {
      const float* w_row[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) w_row[r] = W + min(r0 + r, p.big - 1) * p.ldw + 4 * lane;
      constexpr int kChunks = step_k(true, S) / 128;
      for (std::int64_t s = s_begin; s < s_end; ++s) {
        float4 w[kChunks][kRows];
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const std::int64_t k = s * step_k(true, S) + 128 * c;
#pragma unroll
          for (int r = 0; r < kRows; ++r) w[c][r] = k + 4 * lane < p.k ? load_w(w_row[r] + k) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const std::int64_t k = s * step_k(true, S) + 128 * c + 4 * lane;
          if (k >= p.k) break;
#pragma unroll
          for (int i = 0; i < S; ++i) {
            const float4 x = x_at(i, k);
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
              acc[r][i] = fmaf(w[c][r].x, x.x, acc[r][i]);
              acc[r][i] = fmaf(w[c][r].y, x.y, acc[r][i]);
              acc[r][i] = fmaf(w[c][r].z, x.z, acc[r][i]);
              acc[r][i] = fmaf(w[c][r].w, x.w, acc[r][i]);
            }
          }
        }
      }
      // The warp's sums: lane l holds those of index (l's top bits) * kHeld + j.
      float v[kAcc];
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int i = 0; i < S; ++i) v[r * S + i] = acc[r][i];
      reduce_scatter(v, lane);
      constexpr int kHeld = kAcc >= 32 ? kAcc / 32 : 1, kBits = log2i(kAcc / kHeld);
      if ((lane & ((32 >> kBits) - 1)) == 0)
#pragma unroll
        for (int j = 0; j < kHeld; ++j) red[warp][(lane >> (5 - kBits)) * kHeld + j] = v[j];
    } else if constexpr (S >= 16) {
      // 16 columns: 2 rows a lane (8-byte loads), 16 k rows a step. X's 16 x 16 values of a step
      // go through this warp's slice of shared memory, each lane loading 8 of them, and are read
      // back as broadcasts at fixed offsets: held in registers, or read from 16 row addresses,
      // they took more than 128 registers and spilled.
      constexpr int kK = step_k(false, S);
      static_assert(S * kK == 32 * 8, "each lane stages 8 values of X a step");
      __shared__ __align__(16) float xs[kWarps][S][kK];
      const float* w_col = W + min(r0 + kRows * lane, p.big - kRows);
      const int xi = lane / 2, xk = 8 * (lane % 2);  // the lane's X row and its 8 k of the step
      const float* x_row = X + min(std::int64_t(xi), x_last) * p.ldx + xk;
      for (std::int64_t s = s_begin; s < s_end; ++s) {
        const std::int64_t k0 = s * kK;
        const bool whole = k0 + kK <= p.k;  // else a last partial step: k past k reads as zeros
        float2 w[kK];
#pragma unroll
        for (int kk = 0; kk < kK; ++kk) {
          w[kk] = make_float2(0.f, 0.f);
          if (whole || k0 + kk < p.k) {
            const float* at = w_col + (k0 + kk) * p.ldw;
            asm("ld.global.nc.L1::no_allocate.v2.f32 {%0,%1}, [%2];\n" : "=f"(w[kk].x), "=f"(w[kk].y) : "l"(at));
          }
        }
        const std::int64_t kx = k0 + xk;
        const float4 x0 = whole || kx < p.k ? __ldg(reinterpret_cast<const float4*>(x_row + k0)) : make_float4(0.f, 0.f, 0.f, 0.f);
        const float4 x1 =
            whole || kx + 4 < p.k ? __ldg(reinterpret_cast<const float4*>(x_row + k0 + 4)) : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncwarp();  // the step before has read the slice
        *reinterpret_cast<float4*>(&xs[warp][xi][xk]) = x0;
        *reinterpret_cast<float4*>(&xs[warp][xi][xk + 4]) = x1;
        __syncwarp();
#pragma unroll
        for (int i = 0; i < S; ++i)
#pragma unroll
          for (int h = 0; h < kK / 4; ++h) {
            const float4 x = *reinterpret_cast<const float4*>(&xs[warp][i][4 * h]);
            const float xv[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              acc[0][i] = fmaf(w[4 * h + e].x, xv[e], acc[0][i]);
              acc[1][i] = fmaf(w[4 * h + e].y, xv[e], acc[1][i]);
            }
          }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int i = 0; i < S; ++i) red[warp][(r * S + i) * 32 + lane] = acc[r][i];
    } else {
      // big is a multiple of 4 (skinny_reject): the last whole vector starts at big - 4.
      const float* w_col = W + min(r0 + 4 * lane, p.big - 4);
      constexpr int kK = step_k(false, S);
      for (std::int64_t s = s_begin; s < s_end; ++s) {
        const std::int64_t k0 = s * kK;
        const bool whole = k0 + kK <= p.k;  // else a last partial step: k rows past k read as zeros
        float4 w[kK];
#pragma unroll
        for (int kk = 0; kk < kK; ++kk)
          w[kk] = whole || k0 + kk < p.k ? load_w(w_col + (k0 + kk) * p.ldw) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int i = 0; i < S; ++i)
#pragma unroll
          for (int h = 0; h < kK / 4; ++h) {
            const float4 x = whole || k0 + 4 * h < p.k ? x_at(i, k0 + 4 * h) : make_float4(0.f, 0.f, 0.f, 0.f);
            const float xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const float4 wv = w[4 * h + e];
              acc[0][i] = fmaf(wv.x, xs[e], acc[0][i]);
              acc[1][i] = fmaf(wv.y, xs[e], acc[1][i]);
              acc[2][i] = fmaf(wv.z, xs[e], acc[2][i]);
              acc[3][i] = fmaf(wv.w, xs[e], acc[3][i]);
            }
          }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int i = 0; i < S; ++i) red[warp][(r * S + i) * 32 + lane] = acc[r][i];
    }
    // The CTA's sums (warp order), then the cluster's (rank order).
    __syncthreads();
    float* cta = &red[0][0];
    for (int v = int(threadIdx.x); v < kValues; v += kThreads) {
      float sum = cta[v];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) sum += cta[w * kValues + v];
      cta[v] = sum;
    }
    cluster.sync();
    const int per = (kValues + p.splits - 1) / p.splits;
    const int v_end = min(kValues, (rank + 1) * per);
    float* D = static_cast<float*>(p.d) + item * p.stride_d;
    const float* C = static_cast<const float*>(p.c) + item * p.stride_c;
    for (int v = rank * per + int(threadIdx.x); v < v_end; v += kThreads) {
      float sum = 0.0f;
      for (int other = 0; other < p.splits; ++other) sum += cluster.map_shared_rank(cta, other)[v];
      const int value = kWK ? v : v / 32, i = value % S, rr = value / S;
      const std::int64_t r = kWK ? r0 + rr : r0 + kRows * (v % 32) + rr;
      if (r >= p.big || i >= p.small) continue;
      const std::int64_t row = p.swapped ? i : r, col = p.swapped ? r : i;
      const float bias = epi::bias_at<float>(p.epi, item, row, col);
      D[r * p.d_big + i * p.d_small] = epi::finish<float>(p.epi, sc, sum, C + r * p.c_big + i * p.c_small, bias);
    }
    cluster.sync();  // the other CTAs have read this one's sums
  }
#else
  __trap();  // skinny_reject refuses GPUs before sm_90 (clusters)
#endif
}

using Kernel = void (*)(Args);

// The instantiation for at most S short-side columns (1, 2, 4, 8 or 16) and W's layout.
inline Kernel kernel_for(int s, bool w_kmajor) {
  switch (s) {
    case 1: return w_kmajor ? skinny_simt_gemm<1, true> : skinny_simt_gemm<1, false>;
    case 2: return w_kmajor ? skinny_simt_gemm<2, true> : skinny_simt_gemm<2, false>;
    case 4: return w_kmajor ? skinny_simt_gemm<4, true> : skinny_simt_gemm<4, false>;
    case 8: return w_kmajor ? skinny_simt_gemm<8, true> : skinny_simt_gemm<8, false>;
    case 16: return w_kmajor ? skinny_simt_gemm<16, true> : skinny_simt_gemm<16, false>;
    default: return nullptr;
  }
}

}  // namespace gemmlab::detail::skinny_simt
