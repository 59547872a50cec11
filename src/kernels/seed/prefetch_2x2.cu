// Seed ladder, step 5: each thread computes a 2x2 group of C, with the register prefetch of step 4.
//
// Seed 003 version 5 (listing 5). A block of block x block threads owns a (2 block) x (2 block)
// tile of C; thread (ty, tx) computes rows 2ty, 2ty+1 and columns 2tx, 2tx+1 of it, and loads the
// 2x2 groups at the same positions of the (2 block)-wide A and B tiles of each strip. Every value
// read from shared memory now serves two multiply-adds (a 2x2 outer product per k), and every
// element fetched from global memory serves 2 block of them: CGMA = 2 block, twice step 4's.
//
// Seed 003 prefetches the next strip unconditionally, so its last iteration reads a whole tile
// past the end of A and B (docs/seed-errata.md). Here the prefetch happens only when there is a
// next strip, and edges are guarded, so any M, N, K works.
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/seed/seed_common.cuh"

namespace gemmlab {

namespace {

template <int BS>
__global__ void __launch_bounds__(BS * BS)
    prefetch_2x2_gemm(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                      float beta, float* __restrict__ C) {
  constexpr int T = 2 * BS;  // tile side: of C, and the width of a strip of K
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * T + 2 * ty;  // this thread's rows of C: row0, row0 + 1
  const int col0 = blockIdx.x * T + 2 * tx;  // and columns: col0, col0 + 1

  // The 2x2 groups this thread loads from the strip starting at k0: A rows row0 + r, columns
  // k0 + 2tx + c; B rows k0 + 2ty + r, columns col0 + c. Zero outside the matrices.
  float next_a[2][2], next_b[2][2];
  auto fetch = [&](int k0) {
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int a_row = row0 + r, a_col = k0 + 2 * tx + c;
        next_a[r][c] = (a_row < M && a_col < K) ? A[a_row * K + a_col] : 0.0f;
        const int b_row = k0 + 2 * ty + r, b_col = col0 + c;
        next_b[r][c] = (b_row < K && b_col < N) ? B[b_row * N + b_col] : 0.0f;
      }
  };

  float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  fetch(0);
  for (int k0 = 0; k0 < K; k0 += T) {
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        As[2 * ty + r][2 * tx + c] = next_a[r][c];
        Bs[2 * ty + r][2 * tx + c] = next_b[r][c];
      }
    __syncthreads();  // the tiles of strip k0 are complete
    if (k0 + T < K) fetch(k0 + T);  // in flight while we compute; never past the last strip
#pragma unroll
    for (int k = 0; k < T; ++k) {
      const float a0 = As[2 * ty][k], a1 = As[2 * ty + 1][k];
      const float b0 = Bs[k][2 * tx], b1 = Bs[k][2 * tx + 1];
      acc[0][0] += a0 * b0;
      acc[0][1] += a0 * b1;
      acc[1][0] += a1 * b0;
      acc[1][1] += a1 * b1;
    }
    __syncthreads();  // everyone is done reading before the next copy overwrites the tiles
  }
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int c = 0; c < 2; ++c)
      if (row0 + r < M && col0 + c < N) seed::store_output(C, (row0 + r) * N + col0 + c, acc[r][c], alpha, beta);
}

seed::GemmFunction function_for(int block) {
  switch (block) {
    case 8: return &prefetch_2x2_gemm<8>;
    case 16: return &prefetch_2x2_gemm<16>;
    case 32: return &prefetch_2x2_gemm<32>;
  }
  throw Error(fmt::format("seed.prefetch_2x2: no instance for block {}", block));
}

class Prefetch2x2 final : public KernelBase {
 public:
  Prefetch2x2() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    const int b = p.at("block");
    if (auto why = check_block_fits(dev, std::int64_t(b) * b, 2 * sizeof(float) * 4 * b * b)) return why;
    return check_grid_fits(dev, ceil_div(s.n, 2 * b), ceil_div(s.m, 2 * b));
  }

  TrafficModel traffic(const Shape& s, const Params& p) const override {
    const int tile = 2 * p.at("block");
    TrafficModel t;
    t.flops = s.flops();
    // A once per block column, B once per block row, with (2 block)-wide tiles of C.
    t.global_loads = double(s.m) * s.k * ceil_div(s.n, tile) + double(s.k) * s.n * ceil_div(s.m, tile);
    t.global_stores = double(s.m) * s.n;
    return t;
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    const int b = p.at("block");
    return {reinterpret_cast<const void*>(function_for(b)),
            dim3(unsigned(ceil_div(s.n, 2 * b)), unsigned(ceil_div(s.m, 2 * b))), dim3(b, b), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    seed::launch_gemm(function_for(p.at("block")), plan(g.shape, p), g, ctx);
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "seed.prefetch_2x2";
    i.family = "seed";
    i.step = 5;
    i.title = "2x2 outputs per thread, tiles with register prefetch";
    i.origin = "seed 003 section 3.5, version 5 (listing 5)";
    i.summary =
        "Step 4 with four times the work per thread: a block x block thread block owns a (2 block)-square tile of "
        "C and each thread computes a 2x2 group of it, an outer product of two A values and two B values per k. "
        "Shared-memory reads per multiply-add halve and each global element serves 2 block multiply-adds "
        "(CGMA = 2 block), at the price of four accumulators and eight prefetch registers per thread.";
    i.params = {{"block", "thread block is block x block; it owns a (2 block) x (2 block) tile of C", {8, 16, 32}, 16}};
    i.constraints = "any M, N, K >= 1 (edge tiles zero-filled, stores guarded, no prefetch past the last strip)";
    return i;
  }
};

}  // namespace

void register_seed_prefetch_2x2(Registry& r) { r.add(std::make_unique<Prefetch2x2>()); }
GEMMLAB_REGISTER_KERNELS(register_seed_prefetch_2x2);

}  // namespace gemmlab
