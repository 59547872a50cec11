// Seed ladder, step 3: shared-memory tiles, one output per thread.
//
// Seed 002 "version 2", seed 003 version 3 (listing 3), seed 004's NVIDIA sample (the CUDA
// programming guide's matrixMul) and seed 001's dgemm_gpu_shared. A block of block x block threads
// owns a block x block tile of C. For every block-wide strip of K, each thread loads one element of
// A's tile and one of B's into shared memory; after a barrier, every thread reads a row of the A
// tile and a column of the B tile from shared memory. Each element loaded from global memory is
// used `block` times, so CGMA = block (seed 002: 2 N^2 (N / TILE) reads instead of 2 N^3).
//
// Both barriers are needed: the first so that a tile is complete before anyone reads it, the
// second so that nobody overwrites it with the next strip while others still read it. Seed 001
// omits the second one (a race; docs/seed-errata.md). Edges are zero-filled, so any M, N, K works
// (seed 002 computes width / TILE_WIDTH strips and drops the tail of K when it does not divide).
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/seed/seed_common.cuh"

namespace gemmlab {

namespace {

template <int BS>
__global__ void __launch_bounds__(BS * BS)
    shared_gemm(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                float beta, float* __restrict__ C) {
  __shared__ float As[BS][BS];
  __shared__ float Bs[BS][BS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BS + ty;
  const int col = blockIdx.x * BS + tx;
  float acc = 0.0f;
  // Threads outside C still load and reach every barrier: the tile needs them.
  for (int k0 = 0; k0 < K; k0 += BS) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int k = 0; k < BS; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();  // everyone is done reading before the next strip overwrites the tiles
  }
  if (row < M && col < N) seed::store_output(C, row * N + col, acc, alpha, beta);
}

seed::GemmFunction function_for(int block) {
  switch (block) {
    case 8: return &shared_gemm<8>;
    case 16: return &shared_gemm<16>;
    case 22: return &shared_gemm<22>;
    case 32: return &shared_gemm<32>;
  }
  throw Error(fmt::format("seed.shared: no instance for block {}", block));
}

class Shared final : public KernelBase {
 public:
  Shared() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    const int b = p.at("block");
    if (auto why = check_block_fits(dev, std::int64_t(b) * b, 2 * sizeof(float) * b * b)) return why;
    return check_grid_fits(dev, ceil_div(s.n, b), ceil_div(s.m, b));
  }

  TrafficModel traffic(const Shape& s, const Params& p) const override {
    const int b = p.at("block");
    TrafficModel t;
    t.flops = s.flops();
    // Every element of A is loaded once by each block of its block row (ceil(N / b) of them), every
    // element of B once by each block of its block column; out-of-range tile elements are not loaded.
    t.global_loads = double(s.m) * s.k * ceil_div(s.n, b) + double(s.k) * s.n * ceil_div(s.m, b);
    t.global_stores = double(s.m) * s.n;
    return t;
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    const int b = p.at("block");
    return {reinterpret_cast<const void*>(function_for(b)), dim3(unsigned(ceil_div(s.n, b)), unsigned(ceil_div(s.m, b))),
            dim3(b, b), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    seed::launch_gemm(function_for(p.at("block")), plan(g.shape, p), g, ctx);
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "seed.shared";
    i.family = "seed";
    i.step = 3;
    i.title = "Shared-memory tiles, one output per thread (the NVIDIA sample)";
    i.origin =
        "seed 002 'version 2' (tiled); seed 003 section 3.3, version 3 (listing 3); seed 004 'NVIDIA sample'; "
        "seed 001 dgemm_gpu_shared";
    i.summary =
        "A block loads a block x block tile of A and of B into shared memory, waits at a barrier, and every thread "
        "multiplies a row of the A tile by a column of the B tile; a second barrier keeps the next tile from "
        "overwriting one still in use. Each element fetched from global memory serves `block` multiply-adds "
        "(CGMA = block instead of 1), so the kernel is no longer bound by global-memory traffic the way "
        "seed.naive is.";
    i.params = {{"block", "tile and thread block are block x block", {8, 16, 22, 32}, 16}};
    i.constraints = "any M, N, K >= 1 (edge tiles zero-filled, stores guarded)";
    return i;
  }
};

}  // namespace

void register_seed_shared(Registry& r) { r.add(std::make_unique<Shared>()); }
GEMMLAB_REGISTER_KERNELS(register_seed_shared);

}  // namespace gemmlab
