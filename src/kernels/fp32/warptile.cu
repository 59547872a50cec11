// FP32 ladder, step 4: warp tiling, with the next tiles prefetched through registers.
//
// The block tile is still 128 x 128 x 8, but now split explicitly into levels (as CUTLASS names
// them): 8 warps of 32 x 64 (a 4 x 2 grid of warps), and inside a warp 32 lanes of 8 x 8 outputs
// (a 4 x 8 grid of lanes). Each lane's 8 x 8 tile is four 4 x 4 pieces, 16 rows and 32 columns
// apart, so for every float4 a warp reads from shared memory only 4 (A) or 8 (B) distinct 16-byte
// words are involved, which the hardware serves in one wavefront (broadcast), and the warp's
// A and B fragments stay in its own small region of the tile.
// Loading also changes: while a tile is multiplied out of one shared buffer, the next tile's
// values travel from global memory into registers, and are stored into the other buffer after the
// math (double buffering): one barrier per tile instead of two, and global latency hidden behind
// the FMAs. (This is seed 003 version 4's idea, at the block-tile scale.)
#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int WARPS_M = 4, WARPS_N = 2;          // warp grid in the block
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 32 x 64 warp tile
constexpr int kThreads = WARPS_M * WARPS_N * 32;  // 256
constexpr int PAD = 4;

template <bool VEC>
__global__ void __launch_bounds__(kThreads, 2) warptile_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                                              const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ __align__(16) float As[2][BK][BM + PAD];  // transposed A tiles
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;  // warp tile origin in the block tile
  const int lm = (lane / 8) * 4, ln = (lane % 8) * 4;                // lane's first row / column in it
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  // Global -> register staging: one float4 (or 4 scalars) of A and of B per thread and tile.
  const int a_m = threadIdx.x / 2, a_k = (threadIdx.x % 2) * 4;     // A tile: 128 rows x 2 quads
  const int b_k = threadIdx.x / 32, b_n = (threadIdx.x % 32) * 4;   // B tile: 8 rows x 32 quads
  float ra[4], rb[4];
  auto load_tile = [&](int k0) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (!VEC) {
        const int r = row0 + a_m, k = k0 + a_k + j;
        ra[j] = (r < M && k < K) ? A[r * K + k] : 0.0f;
        const int kb = k0 + b_k, c = col0 + b_n + j;
        rb[j] = (kb < K && c < N) ? B[kb * N + c] : 0.0f;
      }
    }
    if (VEC) {
      float4 va = make_float4(0, 0, 0, 0), vb = va;
      if (row0 + a_m < M && k0 + a_k < K) va = *reinterpret_cast<const float4*>(&A[(row0 + a_m) * K + k0 + a_k]);
      if (k0 + b_k < K && col0 + b_n < N) vb = *reinterpret_cast<const float4*>(&B[(k0 + b_k) * N + col0 + b_n]);
      ra[0] = va.x, ra[1] = va.y, ra[2] = va.z, ra[3] = va.w;
      rb[0] = vb.x, rb[1] = vb.y, rb[2] = vb.z, rb[3] = vb.w;
    }
  };
  auto store_tile = [&](int buf) {
#pragma unroll
    for (int j = 0; j < 4; ++j) As[buf][a_k + j][a_m] = ra[j];
    *reinterpret_cast<float4*>(&Bs[buf][b_k][b_n]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
  };

  float acc[8][8] = {};
  load_tile(0);
  store_tile(0);
  __syncthreads();
  const int tiles = (K + BK - 1) / BK;
  for (int t = 0; t < tiles; ++t) {
    const int buf = t % 2;
    if (t + 1 < tiles) load_tile((t + 1) * BK);  // in flight during the math below
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[8], b[8];
      *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[buf][k][wm + lm]);
      *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[buf][k][wm + lm + 16]);
      *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[buf][k][wn + ln]);
      *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[buf][k][wn + ln + 32]);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
    }
    if (t + 1 < tiles) store_tile(buf ^ 1);  // the other buffer: nobody reads it during this tile
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + wm + lm + (i < 4 ? i : 12 + i);
    if (r >= M) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = col0 + wn + ln + 32 * h;
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


class WarpTile final : public KernelBase {
 public:
  WarpTile() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    return check_grid_fits(dev, ceil_div(s.n, BN), ceil_div(s.m, BM));
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    return tiled_traffic(s, BM, BN);
  }

  static bool vec(const Shape& s) { return s.k % 4 == 0 && s.n % 4 == 0; }

  LaunchPlan plan(const Shape& s, const Params&) const override {
    const void* f = vec(s) ? reinterpret_cast<const void*>(&warptile_gemm<true>)
                           : reinterpret_cast<const void*>(&warptile_gemm<false>);
    return {f, dim3(unsigned(ceil_div(s.n, BN)), unsigned(ceil_div(s.m, BM))), dim3(kThreads), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    const LaunchPlan lp = plan(g.shape, p);
    const int m = int(g.shape.m), n = int(g.shape.n), k = int(g.shape.k);
    const auto* a = static_cast<const float*>(g.a);
    const auto* b = static_cast<const float*>(g.b);
    auto* c = static_cast<float*>(g.c);
    if (vec(g.shape) && aligned16(a) && aligned16(b) && aligned16(c))
      warptile_gemm<true><<<lp.grid, lp.block, 0, ctx.stream>>>(m, n, k, g.alpha, a, b, g.beta, c);
    else
      warptile_gemm<false><<<lp.grid, lp.block, 0, ctx.stream>>>(m, n, k, g.alpha, a, b, g.beta, c);
    GEMMLAB_CHECK_LAUNCH();
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "fp32.warptile";
    i.family = "fp32";
    i.step = 4;
    i.title = "Warp tiling (32x64 per warp, 4x4 pieces) with register-staged double buffering";
    i.origin = "technique: warp-level tiling (CUTLASS's block/warp/thread hierarchy); seed 003 v4's prefetch";
    i.summary =
        "Block tile 128x128x8 split into 8 warp tiles of 32x64 and 8x8 per lane in four 4x4 pieces: every "
        "float4 shared read is one wavefront. The next tile is loaded into registers during the math and "
        "stored into a second shared buffer: one barrier per tile.";
    i.constraints = "any M, N, K >= 1; float4 path when K and N are multiples of 4, scalar otherwise";
    return i;
  }
};

}  // namespace

void register_fp32_warptile(Registry& r) { r.add(std::make_unique<WarpTile>()); }
GEMMLAB_REGISTER_KERNELS(register_fp32_warptile);

}  // namespace gemmlab
