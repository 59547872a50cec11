// Seed ladder, step 6: 2 or 4 outputs per thread in adjacent blocks, double-buffered shared memory.
//
// Seed 000 method 6. A block of block x block threads owns
//   outputs = 2: a block x (2 block) piece of C; thread (ty, tx) computes (ty, tx) and (ty, tx + block),
//   outputs = 4: a (2 block) x (2 block) piece; thread (ty, tx) computes (ty, tx), (ty, tx + block),
//                (ty + block, tx) and (ty + block, tx + block).
// A thread's outputs sit at the same position in neighbouring block-sized sub-matrices, not side by
// side, so a warp's loads and stores stay consecutive (seed 000: "so that warps execute the same
// instruction on neighbouring data"). Per strip of K a thread loads 3 (resp. 4) elements and does
// 2 block (resp. 4 block) multiply-adds: CGMA = 4/3 block (resp. 2 block), seed 000 section 4.
//
// Double buffering, as seed 000 intends ("a buffer for the input matrices, to remove the dependency
// between loading and computing"): two copies of the shared tiles. While the block computes strip
// t from buffer t % 2, each thread has the loads of strip t+1 in flight into registers and stores
// them into the other buffer afterwards; one barrier per strip suffices, because the buffer being
// filled was last read in the previous iteration, before that iteration's barrier.
//
// Seed 000's printed code loads the *current* strip into its staging buffer (a, not a + aStep), so
// it multiplies strip 0 twice and never the last strip, and its 4-output version adds all four
// products into C_local and stores C_local2..4 as zeros (docs/seed-errata.md). Edges are guarded
// here, so any M, N, K works.
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/seed/seed_common.cuh"

namespace gemmlab {

namespace {

// ROWS = 1: two outputs per thread (one row, two column blocks); ROWS = 2: four (2 x 2 blocks).
template <int BS, int ROWS>
__global__ void __launch_bounds__(BS * BS)
    double_buffer_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[2][ROWS * BS][BS];  // [buffer][row of the block's A strip][k]
  __shared__ float Bs[2][BS][2 * BS];     // [buffer][k][column of the block's B strip]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * (ROWS * BS) + ty;  // this thread's rows: row0 + r * BS
  const int col0 = blockIdx.x * (2 * BS) + tx;     // and columns: col0 + j * BS

  // This thread's share of the strip starting at k0, zero outside the matrices.
  float next_a[ROWS], next_b[2];
  auto fetch = [&](int k0) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int row = row0 + r * BS, k = k0 + tx;
      next_a[r] = (row < M && k < K) ? A[row * K + k] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int k = k0 + ty, col = col0 + j * BS;
      next_b[j] = (k < K && col < N) ? B[k * N + col] : 0.0f;
    }
  };
  auto stash = [&](int buf) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) As[buf][ty + r * BS][tx] = next_a[r];
#pragma unroll
    for (int j = 0; j < 2; ++j) Bs[buf][ty][tx + j * BS] = next_b[j];
  };

  float acc[ROWS][2] = {};
  fetch(0);
  stash(0);
  __syncthreads();
  const int strips = (K + BS - 1) / BS;
  for (int t = 0; t < strips; ++t) {
    const int cur = t & 1;
    const bool more = t + 1 < strips;
    if (more) fetch((t + 1) * BS);  // global loads in flight during the multiply-adds below
#pragma unroll
    for (int k = 0; k < BS; ++k) {
      const float b0 = Bs[cur][k][tx], b1 = Bs[cur][k][tx + BS];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const float a = As[cur][ty + r * BS][k];
        acc[r][0] += a * b0;
        acc[r][1] += a * b1;
      }
    }
    // The other buffer was last read in iteration t - 1, which ended with a barrier: safe to fill.
    if (more) stash(cur ^ 1);
    __syncthreads();  // strip t + 1 is complete, and nobody reads buffer `cur` any more
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int row = row0 + r * BS, col = col0 + j * BS;
      if (row < M && col < N) seed::store_output(C, row * N + col, acc[r][j], alpha, beta);
    }
}

seed::GemmFunction function_for(int block, int outputs) {
  if (outputs == 2) {
    switch (block) {
      case 8: return &double_buffer_gemm<8, 1>;
      case 16: return &double_buffer_gemm<16, 1>;
      case 32: return &double_buffer_gemm<32, 1>;
    }
  } else if (outputs == 4) {
    switch (block) {
      case 8: return &double_buffer_gemm<8, 2>;
      case 16: return &double_buffer_gemm<16, 2>;
      case 32: return &double_buffer_gemm<32, 2>;
    }
  }
  throw Error(fmt::format("seed.double_buffer: no instance for block {} with {} outputs", block, outputs));
}

int rows_per_thread(const Params& p) { return p.at("outputs") / 2; }

class DoubleBuffer final : public KernelBase {
 public:
  DoubleBuffer() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    const int b = p.at("block"), rows = rows_per_thread(p);
    const std::size_t smem = 2 * sizeof(float) * (std::size_t(rows) * b * b + 2ull * b * b);
    if (auto why = check_block_fits(dev, std::int64_t(b) * b, smem)) return why;
    return check_grid_fits(dev, ceil_div(s.n, 2 * b), ceil_div(s.m, std::int64_t(rows) * b));
  }

  TrafficModel traffic(const Shape& s, const Params& p) const override {
    const int b = p.at("block"), rows = rows_per_thread(p);
    TrafficModel t;
    t.flops = s.flops();
    // A block covers (rows * b) x (2 b) of C: A is loaded once per block column, B once per block row.
    // Square N: N^3 / (2b) + N^3 / b loads for 2 outputs (CGMA 4/3 b), N^3 / b for 4 (CGMA 2 b).
    t.global_loads = double(s.m) * s.k * ceil_div(s.n, 2 * b) + double(s.k) * s.n * ceil_div(s.m, std::int64_t(rows) * b);
    t.global_stores = double(s.m) * s.n;
    return t;
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    const int b = p.at("block"), rows = rows_per_thread(p);
    return {reinterpret_cast<const void*>(function_for(b, p.at("outputs"))),
            dim3(unsigned(ceil_div(s.n, 2 * b)), unsigned(ceil_div(s.m, std::int64_t(rows) * b))), dim3(b, b), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    seed::launch_gemm(function_for(p.at("block"), p.at("outputs")), plan(g.shape, p), g, ctx);
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "seed.double_buffer";
    i.family = "seed";
    i.step = 6;
    i.title = "2 or 4 outputs per thread in adjacent blocks, double-buffered shared memory";
    i.origin = "seed 000 section 3, method 6 (a: 2 neighbouring elements, b: 4) and section 4 (CGMA)";
    i.summary =
        "Each thread computes 2 outputs (same row, neighbouring column blocks) or 4 (2x2 neighbouring blocks), so "
        "the values it reads from shared memory serve 2 multiply-adds each, and a strip it helps load serves more "
        "outputs: CGMA = 4/3 block with 2 outputs, 2 block with 4 (seed 000). The shared tiles are double-buffered: "
        "the loads of the next strip are in flight while the current one is multiplied, and one barrier per strip "
        "suffices.";
    i.params = {{"block", "thread block is block x block", {8, 16, 32}, 16},
                {"outputs", "outputs per thread: 2 (one row, two column blocks) or 4 (2 x 2 blocks)", {2, 4}, 4}};
    i.constraints = "any M, N, K >= 1 (edge tiles zero-filled, stores guarded)";
    return i;
  }
};

}  // namespace

void register_seed_double_buffer(Registry& r) { r.add(std::make_unique<DoubleBuffer>()); }
GEMMLAB_REGISTER_KERNELS(register_seed_double_buffer);

}  // namespace gemmlab
