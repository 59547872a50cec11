// Seed ladder, step 2: one output per thread, operands straight from global memory.
//
// Seed 003 version 2, seed 002 "first attempt", seed 001 "dgemm_gpu_simple", seed 000 method 2.
// A grid of 2-D blocks covers C; thread (row, col) walks row `row` of A and column `col` of B.
// Each multiply-add needs two global loads (CGMA = 1); consecutive threads of a warp read
// consecutive columns of B (coalesced) and the same element of A (a broadcast).
// Unlike the seeds, edges are guarded, so any M, N, K works, and beta == 0 never reads C.
#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

__global__ void naive_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                           const float* __restrict__ B, float beta, float* __restrict__ C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[std::size_t(row) * K + k] * B[std::size_t(k) * N + col];
  const std::size_t c = std::size_t(row) * N + col;
  C[c] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[c];
}

class Naive final : public KernelBase {
 public:
  Naive() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    const int b = p.at("block");
    if (auto why = check_block_fits(dev, std::int64_t(b) * b, 0)) return why;
    return check_grid_fits(dev, ceil_div(s.n, b), ceil_div(s.m, b));
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = 2.0 * double(s.m) * s.n * s.k;  // one A and one B element per multiply-add
    t.global_stores = double(s.m) * s.n;
    return t;
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    const int b = p.at("block");
    return {reinterpret_cast<const void*>(&naive_gemm), dim3(unsigned(ceil_div(s.n, b)), unsigned(ceil_div(s.m, b))),
            dim3(b, b), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    const LaunchPlan lp = plan(g.shape, p);
    naive_gemm<<<lp.grid, lp.block, 0, ctx.stream>>>(int(g.shape.m), int(g.shape.n), int(g.shape.k), g.alpha,
                                                     static_cast<const float*>(g.a), static_cast<const float*>(g.b),
                                                     g.beta, static_cast<float*>(g.c));
    GEMMLAB_CHECK_LAUNCH();
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "seed.naive";
    i.family = "seed";
    i.step = 2;
    i.title = "Multi-block grid, one output per thread, global memory only";
    i.origin = "seed 003 version 2; seed 002 'first attempt'; seed 001 simple kernel; seed 000 method 2";
    i.summary =
        "Each thread computes one element of C from a row of A and a column of B read from global "
        "memory: two loads per multiply-add (CGMA = 1), so the kernel is bound by memory traffic.";
    i.params = {{"block", "thread block is block x block", {8, 16, 22, 32}, 16}};
    i.constraints = "any M, N, K >= 1 (edges guarded)";
    return i;
  }
};

}  // namespace

void register_seed_naive(Registry& r) { r.add(std::make_unique<Naive>()); }
GEMMLAB_REGISTER_KERNELS(register_seed_naive);

}  // namespace gemmlab
