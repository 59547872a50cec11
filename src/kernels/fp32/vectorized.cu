// FP32 ladder, steps 2 and 3: 128-bit loads, then shared-memory tiles free of bank conflicts.
//
// Step 2 (fp32.vectorized) keeps step 1's tiling but moves data 16 bytes at a time: one float4
// global load per thread per operand and tile, float4 shared-memory reads of the 8 A and 8 B values.
// Fewer, wider instructions; but two things still waste shared-memory bandwidth:
//   - writing the transposed A tile: the 32 threads of a warp write As[k][m] for 16 rows m and two
//     k quads, and with a row pitch of 128 floats (a multiple of the 32 banks) pairs of them hit the
//     same bank;
//   - reading B: each thread reads 8 adjacent columns, so a warp's float4 reads are 32 bytes apart
//     and span 512 bytes: 4 shared-memory wavefronts per instruction.
// Step 3 (fp32.conflict_free) pads the A tile's rows by 4 floats (the two k quads land in disjoint
// banks) and gives each thread two 4-wide column groups 64 apart (and two 4-row groups 64 apart), so
// a warp's float4 reads cover 256 contiguous bytes: 2 wavefronts instead of 4.
// The float4 path needs rows that start on 16 bytes (K and N multiples of 4); otherwise the same
// kernel runs with scalar loads.
#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

// PAD: floats added to each row of the transposed A tile. SPLIT: a thread's 8 rows/columns are two
// groups of 4, 64 apart (true) or 8 adjacent ones (false). VEC: float4 global loads.
template <int PAD, bool SPLIT, bool VEC>
__global__ void __launch_bounds__(kThreads) vectorized_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                                            const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ __align__(16) float As[BK][BM + PAD];
  __shared__ __align__(16) float Bs[BK][BN];
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  // First row/column of each of the thread's two 4-wide groups.
  const int r_lo = SPLIT ? ty * 4 : ty * 8, r_hi = SPLIT ? 64 + ty * 4 : ty * 8 + 4;
  const int c_lo = SPLIT ? tx * 4 : tx * 8, c_hi = SPLIT ? 64 + tx * 4 : tx * 8 + 4;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    if constexpr (VEC) {
      {  // A: 128 rows x 2 float4 = 256 float4, one per thread, stored transposed.
        const int m = threadIdx.x / 2, kq = (threadIdx.x % 2) * 4;
        float4 v = make_float4(0, 0, 0, 0);
        if (row0 + m < M && k0 + kq < K) v = *reinterpret_cast<const float4*>(&A[(row0 + m) * K + k0 + kq]);
        As[kq + 0][m] = v.x;
        As[kq + 1][m] = v.y;
        As[kq + 2][m] = v.z;
        As[kq + 3][m] = v.w;
      }
      {  // B: 8 rows x 32 float4, one per thread.
        const int k = threadIdx.x / 32, n = (threadIdx.x % 32) * 4;
        float4 v = make_float4(0, 0, 0, 0);
        if (k0 + k < K && col0 + n < N) v = *reinterpret_cast<const float4*>(&B[(k0 + k) * N + col0 + n]);
        *reinterpret_cast<float4*>(&Bs[k][n]) = v;
      }
    } else {
      for (int i = threadIdx.x; i < BM * BK; i += kThreads) {
        const int m = i / BK, k = i % BK;
        As[k][m] = (row0 + m < M && k0 + k < K) ? A[(row0 + m) * K + k0 + k] : 0.0f;
      }
      for (int i = threadIdx.x; i < BK * BN; i += kThreads) {
        const int k = i / BN, n = i % BN;
        Bs[k][n] = (k0 + k < K && col0 + n < N) ? B[(k0 + k) * N + col0 + n] : 0.0f;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[k][r_lo]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[k][r_hi]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][c_lo]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][c_hi]);
      const float a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + (i < 4 ? r_lo + i : r_hi + i - 4);
    if (r >= M) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = col0 + (h == 0 ? c_lo : c_hi);
      float* out = &C[r * N + c];
      if (VEC && c + 3 < N) {
        dev::epilogue4(out, acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3], alpha, beta);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (c + j < N) out[j] = dev::epilogue(acc[i][4 * h + j], alpha, beta, &out[j]);
      }
    }
  }
}

template <int PAD, bool SPLIT>
class Vectorized final : public KernelBase {
 public:
  explicit Vectorized(KernelInfo info) : KernelBase(std::move(info)) {}

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    return check_grid_fits(dev, ceil_div(s.n, BN), ceil_div(s.m, BM));
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    return tiled_traffic(s, BM, BN);
  }

  static bool vec(const Shape& s) { return s.k % 4 == 0 && s.n % 4 == 0; }

  LaunchPlan plan(const Shape& s, const Params&) const override {
    const void* f = vec(s) ? reinterpret_cast<const void*>(&vectorized_gemm<PAD, SPLIT, true>)
                           : reinterpret_cast<const void*>(&vectorized_gemm<PAD, SPLIT, false>);
    return {f, dim3(unsigned(ceil_div(s.n, BN)), unsigned(ceil_div(s.m, BM))), dim3(kThreads), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    const LaunchPlan lp = plan(g.shape, p);
    const int m = int(g.shape.m), n = int(g.shape.n), k = int(g.shape.k);
    const auto* a = static_cast<const float*>(g.a);
    const auto* b = static_cast<const float*>(g.b);
    auto* c = static_cast<float*>(g.c);
    if (vec(g.shape) && aligned16(a) && aligned16(b) && aligned16(c))
      vectorized_gemm<PAD, SPLIT, true><<<lp.grid, lp.block, 0, ctx.stream>>>(m, n, k, g.alpha, a, b, g.beta, c);
    else
      vectorized_gemm<PAD, SPLIT, false><<<lp.grid, lp.block, 0, ctx.stream>>>(m, n, k, g.alpha, a, b, g.beta, c);
    GEMMLAB_CHECK_LAUNCH();
  }
};

}  // namespace

void register_fp32_vectorized(Registry& r) {
  KernelInfo v;
  v.id = "fp32.vectorized";
  v.family = "fp32";
  v.step = 2;
  v.title = "128-bit global and shared-memory accesses (float4)";
  v.origin = "technique: vectorised memory access";
  v.summary =
      "Step 1 with float4 global loads and float4 shared-memory reads: a quarter of the load "
      "instructions. Transposing A into shared memory still causes 2-way bank conflicts, and B reads "
      "span 4 wavefronts.";
  v.constraints = "any M, N, K >= 1; float4 path when K and N are multiples of 4, scalar otherwise";
  r.add(std::make_unique<Vectorized<0, false>>(v));

  KernelInfo c = v;
  c.id = "fp32.conflict_free";
  c.step = 3;
  c.title = "Shared tiles free of bank conflicts (padded A tile, split thread tiles)";
  c.origin = "technique: shared-memory padding and conflict-free access patterns";
  c.summary =
      "The transposed A tile gets 4 floats of padding per row, so the transposing stores hit 32 "
      "different banks; each thread's 8x8 tile is split into 4-wide groups 64 apart, so a warp's float4 "
      "reads of B and A cover contiguous 256-byte runs (2 wavefronts instead of 4).";
  r.add(std::make_unique<Vectorized<4, true>>(c));
}
GEMMLAB_REGISTER_KERNELS(register_fp32_vectorized);

}  // namespace gemmlab
