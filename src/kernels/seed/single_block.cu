// Seed ladder, step 1: ONE thread block for the whole matrix, operands from global memory.
//
// Seed 000 method 1 and seed 003 version 1. The grid is a single block of block x block threads;
// the block walks C one block-sized sub-matrix at a time, so each thread computes
// ceil(M / block) * ceil(N / block) elements (seed 003: "(matrix size / block size)^2"). Each
// multiply-add needs two global loads (CGMA = 1, seed 000 section 4), and only one SM works:
// this is the bottom of the ladder, slow on purpose.
//
// What the seeds printed and gemmlab fixes (docs/seed-errata.md): seed 000 reads A[ty * N + k]
// and B[k * N + tx], i.e. the same sub-matrix for every step of its loops; seed 003 offsets
// columns by blockDim.y. Here the row is i0 + ty and the column j0 + tx, edges are guarded (any
// M, N, K), and beta == 0 never reads C.
#include <fmt/format.h>

#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/seed/seed_common.cuh"

namespace gemmlab {

namespace {

// Not a template: the block size only sets loop strides here, nothing the compiler could unroll.
__global__ void single_block_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                  const float* __restrict__ B, float beta, float* __restrict__ C) {
  const int bs = blockDim.x;  // the block is square
  for (int i0 = 0; i0 < M; i0 += bs) {  // block-sized sub-matrices of C, one block row after another
    const int row = i0 + threadIdx.y;
    for (int j0 = 0; j0 < N; j0 += bs) {
      const int col = j0 + threadIdx.x;
      if (row >= M || col >= N) continue;
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
      seed::store_output(C, row * N + col, acc, alpha, beta);
    }
  }
}

// One SM does all the work: at 2048^3 and 8x8 threads one run already takes seconds. Beyond that a
// measurement (warm-up, verification, timed runs) would take minutes, which is never what a user
// of this kernel wants; the limit is stated in the constraints.
constexpr double kMaxWork = 2048.0 * 2048.0 * 2048.0;

class SingleBlock final : public KernelBase {
 public:
  SingleBlock() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    const int b = p.at("block");
    if (auto why = check_block_fits(dev, std::int64_t(b) * b, 0)) return why;
    if (double(s.m) * double(s.n) * double(s.k) > kMaxWork)
      return fmt::format("it runs on one SM and would take minutes at this size; it accepts M*N*K up to 2048^3 "
                         "(this shape has {:.3g})",
                         double(s.m) * double(s.n) * double(s.k));
    return std::nullopt;
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = 2.0 * double(s.m) * s.n * s.k;  // one A and one B element per multiply-add
    t.global_stores = double(s.m) * s.n;
    return t;
  }

  LaunchPlan plan(const Shape&, const Params& p) const override {
    const int b = p.at("block");
    return {reinterpret_cast<const void*>(&single_block_gemm), dim3(1, 1), dim3(b, b), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    seed::launch_gemm(&single_block_gemm, plan(g.shape, p), g, ctx);
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "seed.single_block";
    i.family = "seed";
    i.step = 1;
    i.title = "One thread block for the whole matrix, global memory only";
    i.origin = "seed 000 section 3, method 1 (GRID_SIZE 1); seed 003 section 3.1, version 1 (listing 1)";
    i.summary =
        "A single block of block x block threads walks C one block-sized sub-matrix at a time, so every thread "
        "computes (size / block)^2 elements, reading its row of A and column of B from global memory: two loads "
        "per multiply-add (CGMA = 1). Only one SM of the GPU works, which is why it is the slowest step; the next "
        "step (seed.naive) spreads the same work over a grid of blocks.";
    i.params = {{"block", "the one thread block is block x block", {8, 16, 22, 32}, 16}};
    i.constraints = "any M, N, K >= 1 (edges guarded) with M*N*K <= 2048^3: one SM does all the work";
    i.slow = true;
    return i;
  }
};

}  // namespace

void register_seed_single_block(Registry& r) { r.add(std::make_unique<SingleBlock>()); }
GEMMLAB_REGISTER_KERNELS(register_seed_single_block);

}  // namespace gemmlab
