// Tensor-core ladder, step 1: WMMA, the portable C++ API for the tensor cores (sm_70+; bf16 and
// tf32 need sm_80+).
//
// A warp multiplies 16 x 16 fragments with one call (wmma::mma_sync) instead of 4096 separate
// FMAs. Block tile 128 x 128 x 32, 8 warps in a 2 x 4 grid, each owning 64 x 32 of C as 4 x 2
// accumulator fragments in FP32. Tiles are staged in shared memory with padded rows (the fragment
// loads read 8 rows at a time; without padding they would share banks). Loads are guarded, so any
// M, N, K works; for tf32 the FP32 operands are rounded to TF32 after loading into fragments.
#include <mma.h>

#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/tensor/tc_types.cuh"

namespace gemmlab {

namespace {

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int WARPS_M = 2, WARPS_N = 4, kThreads = WARPS_M * WARPS_N * 32;
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 64 x 32 per warp

template <Precision P> struct WmmaShape { static constexpr int K = 16; using frag_t = tc::operand_t<P>; };
template <> struct WmmaShape<Precision::tf32> { static constexpr int K = 8; using frag_t = wmma::precision::tf32; };

template <Precision P, class OutT>
__global__ void __launch_bounds__(kThreads) wmma_gemm(int M, int N, int K, float alpha, const tc::operand_t<P>* __restrict__ A,
                                                      const tc::operand_t<P>* __restrict__ B, float beta, OutT* __restrict__ C) {
  using T = tc::operand_t<P>;
  constexpr int FK = WmmaShape<P>::K;
  using FragT = typename WmmaShape<P>::frag_t;
  // Row pitches padded by 16 bytes' worth of elements; the C staging (one 16x16 fragment per warp
  // at a time) reuses the same memory after the last tile.
  constexpr int A_LD = BK + 16 / int(sizeof(T)), B_LD = BN + 16 / int(sizeof(T)), C_LD = 16 + 4;
  constexpr int kTileBytes = (BM * A_LD + BK * B_LD) * int(sizeof(T));
  constexpr int kCBytes = WARPS_M * WARPS_N * 16 * C_LD * int(sizeof(float));
  __shared__ __align__(32) unsigned char smem[kTileBytes > kCBytes ? kTileBytes : kCBytes];
  T* As = reinterpret_cast<T*>(smem);
  T* Bs = As + BM * A_LD;

  const int warp = threadIdx.x / 32;
  const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, FK, float> acc[WM / 16][WN / 16];
#pragma unroll
  for (int i = 0; i < WM / 16; ++i)
#pragma unroll
    for (int j = 0; j < WN / 16; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = threadIdx.x; e < BM * BK; e += kThreads) {
      const int m = e / BK, k = e % BK;
      As[m * A_LD + k] = (row0 + m < M && k0 + k < K) ? A[std::size_t(row0 + m) * K + k0 + k] : T(0.0f);
    }
    for (int e = threadIdx.x; e < BK * BN; e += kThreads) {
      const int k = e / BN, n = e % BN;
      Bs[k * B_LD + n] = (k0 + k < K && col0 + n < N) ? B[std::size_t(k0 + k) * N + col0 + n] : T(0.0f);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += FK) {
      wmma::fragment<wmma::matrix_a, 16, 16, FK, FragT, wmma::row_major> a[WM / 16];
      wmma::fragment<wmma::matrix_b, 16, 16, FK, FragT, wmma::row_major> b[WN / 16];
#pragma unroll
      for (int i = 0; i < WM / 16; ++i) {
        wmma::load_matrix_sync(a[i], As + (wm + 16 * i) * A_LD + kk, A_LD);
        if constexpr (P == Precision::tf32)
          for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
      }
#pragma unroll
      for (int j = 0; j < WN / 16; ++j) {
        wmma::load_matrix_sync(b[j], Bs + kk * B_LD + wn + 16 * j, B_LD);
        if constexpr (P == Precision::tf32)
          for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
      }
#pragma unroll
      for (int i = 0; i < WM / 16; ++i)
#pragma unroll
        for (int j = 0; j < WN / 16; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  // Accumulators -> shared memory -> guarded, converted stores (fragments have no public layout),
  // one 16 x 16 fragment per warp at a time.
  float* Cs = reinterpret_cast<float*>(smem) + warp * 16 * C_LD;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < WM / 16; ++i)
#pragma unroll
    for (int j = 0; j < WN / 16; ++j) {
      wmma::store_matrix_sync(Cs, acc[i][j], C_LD, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int r = row0 + wm + 16 * i + e / 16, c = col0 + wn + 16 * j + e % 16;
        if (r < M && c < N) tc::store_output(&C[std::size_t(r) * N + c], Cs[(e / 16) * C_LD + e % 16], alpha, beta);
      }
      __syncwarp();
    }
}

template <Precision P>
class Wmma final : public KernelBase {
 public:
  Wmma() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    return check_grid_fits(dev, ceil_div(s.n, BN), ceil_div(s.m, BM));
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    return tiled_traffic(s, BM, BN, double(sizeof(tc::operand_t<P>)));
  }

  LaunchPlan plan(const Shape& s, const Params&) const override {
    return {reinterpret_cast<const void*>(&wmma_gemm<P, float>), dim3(unsigned(ceil_div(s.n, BN)), unsigned(ceil_div(s.m, BM))),
            dim3(kThreads), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    const LaunchPlan lp = plan(g.shape, p);
    const int m = int(g.shape.m), n = int(g.shape.n), k = int(g.shape.k);
    const auto* a = static_cast<const tc::operand_t<P>*>(g.a);
    const auto* b = static_cast<const tc::operand_t<P>*>(g.b);
    if (g.c_type == DType::f32) {
      wmma_gemm<P, float><<<lp.grid, lp.block, 0, ctx.stream>>>(m, n, k, g.alpha, a, b, g.beta, static_cast<float*>(g.c));
    } else if constexpr (P != Precision::tf32) {
      wmma_gemm<P, tc::operand_t<P>><<<lp.grid, lp.block, 0, ctx.stream>>>(m, n, k, g.alpha, a, b, g.beta,
                                                                           static_cast<tc::operand_t<P>*>(g.c));
    }
    GEMMLAB_CHECK_LAUNCH();
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = fmt::format("tc.wmma.{}", precision_name(P));
    i.family = "tensor";
    i.step = 1;
    i.precision = P;
    i.title = fmt::format("WMMA fragments (16x16x{}), 128x128x32 block tile, {}", WmmaShape<P>::K, precision_name(P));
    i.origin = "technique: tensor cores through the portable WMMA API (nvcuda::wmma)";
    i.summary =
        "Each warp multiplies 16x16 fragments with wmma::mma_sync out of padded shared-memory tiles and "
        "accumulates in FP32; C goes through shared memory for guarded, converted stores.";
    i.constraints = "any M, N, K >= 1 (guarded loads and stores)";
    i.min_cc = 80;
    if (P != Precision::tf32) i.outputs = {DType::f32, operand_type(P)};
    return i;
  }
};

}  // namespace

void register_tc_wmma(Registry& r) {
  r.add(std::make_unique<Wmma<Precision::bf16>>());
  r.add(std::make_unique<Wmma<Precision::fp16>>());
  r.add(std::make_unique<Wmma<Precision::tf32>>());
}
GEMMLAB_REGISTER_KERNELS(register_tc_wmma);

}  // namespace gemmlab
