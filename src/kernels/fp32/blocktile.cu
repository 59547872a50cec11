// FP32 ladder, step 1: 2-D register blocking.
//
// The seed ladder stops at 16 outputs per thread. Here each thread of a 256-thread block computes an
// 8 x 8 tile of C (64 accumulators in registers) from a 128 x 128 block tile. Per k, a thread reads
// 8 values of A and 8 of B from shared memory and does 64 multiply-adds with them: 4 flops per
// shared-memory load instead of the 1 of the tiled seed kernel, so the arithmetic units, not shared
// memory, become the limit. A is stored transposed in shared memory (As[k][m]) so that the 8 values
// a thread needs for one k are adjacent. Loads are scalar and guarded: any M, N, K.
#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

__global__ void __launch_bounds__(kThreads) blocktile_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                                           const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[BK][BM];  // transposed: As[k][m]
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  float a[TM], b[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += kThreads) {
      const int m = i / BK, k = i % BK;  // consecutive threads read consecutive k of one row of A
      As[k][m] = (row0 + m < M && k0 + k < K) ? A[(row0 + m) * K + k0 + k] : 0.0f;
    }
    for (int i = threadIdx.x; i < BK * BN; i += kThreads) {
      const int k = i / BN, n = i % BN;  // ... and consecutive columns of one row of B
      Bs[k][n] = (k0 + k < K && col0 + n < N) ? B[(k0 + k) * N + col0 + n] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[k][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + ty * TM + i;
    if (r >= M) break;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int c = col0 + tx * TN + j;
      if (c < N) C[r * N + c] = dev::epilogue(acc[i][j], alpha, beta, &C[r * N + c]);
    }
  }
}

class BlockTile final : public KernelBase {
 public:
  BlockTile() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    return check_grid_fits(dev, ceil_div(s.n, BN), ceil_div(s.m, BM));
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    // Every block reads a BM x K panel of A and a K x BN panel of B.
    return tiled_traffic(s, BM, BN);
  }

  LaunchPlan plan(const Shape& s, const Params&) const override {
    return {reinterpret_cast<const void*>(&blocktile_gemm), dim3(unsigned(ceil_div(s.n, BN)), unsigned(ceil_div(s.m, BM))),
            dim3(kThreads), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    const LaunchPlan lp = plan(g.shape, p);
    blocktile_gemm<<<lp.grid, lp.block, 0, ctx.stream>>>(int(g.shape.m), int(g.shape.n), int(g.shape.k), g.alpha,
                                                         static_cast<const float*>(g.a), static_cast<const float*>(g.b),
                                                         g.beta, static_cast<float*>(g.c));
    GEMMLAB_CHECK_LAUNCH();
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "fp32.blocktile";
    i.family = "fp32";
    i.step = 1;
    i.title = "2-D register blocking: 8x8 outputs per thread, 128x128 block tile";
    i.origin = "technique: register blocking (continues seed 004's 16 outputs per thread)";
    i.summary =
        "Each thread keeps an 8x8 tile of C in registers and, per k, multiplies 8 values of A by 8 of B "
        "from shared memory: 64 FMAs per 16 shared loads. A is transposed in shared memory.";
    i.constraints = "any M, N, K >= 1 (guarded loads and stores)";
    return i;
  }
};

}  // namespace

void register_fp32_blocktile(Registry& r) { r.add(std::make_unique<BlockTile>()); }
GEMMLAB_REGISTER_KERNELS(register_fp32_blocktile);

}  // namespace gemmlab
