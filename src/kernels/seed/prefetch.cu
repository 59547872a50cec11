// Seed ladder, step 4: shared-memory tiles with the next tile prefetched into registers.
//
// Seed 003 version 4 (listing 4). The tiled kernel of step 3 waits for its global loads right
// before the barrier, so the whole block stalls on memory once per strip. Here each thread issues
// the loads of strip t+1 into two registers right after the first barrier of strip t, then
// computes strip t from shared memory while those loads are in flight; at the top of the next
// iteration it only copies registers to shared memory. Same traffic as step 3 (CGMA = block), less
// exposed latency ("złagodzenie kosztów synchronizacji", seed 003 section 3.4).
//
// Seed 003 guards the prefetch with `a < aEnd`, which is still true for the last strip, so its
// last iteration reads one tile past the end of A and B (docs/seed-errata.md). The guard here is
// "is there a next strip", and edge tiles are zero-filled, so any M, N, K works.
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/seed/seed_common.cuh"

namespace gemmlab {

namespace {

template <int BS>
__global__ void __launch_bounds__(BS * BS)
    prefetch_gemm(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                  float beta, float* __restrict__ C) {
  __shared__ float As[BS][BS];
  __shared__ float Bs[BS][BS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BS + ty;
  const int col = blockIdx.x * BS + tx;
  // This thread's element of the A tile and of the B tile of the strip starting at k0.
  auto fetch_a = [&](int k0) { return (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f; };
  auto fetch_b = [&](int k0) { return (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f; };

  float next_a = fetch_a(0), next_b = fetch_b(0);
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += BS) {
    As[ty][tx] = next_a;
    Bs[ty][tx] = next_b;
    __syncthreads();  // the tiles of strip k0 are complete
    if (k0 + BS < K) {  // only if there is a next strip: nothing is read past the end
      next_a = fetch_a(k0 + BS);
      next_b = fetch_b(k0 + BS);
    }
#pragma unroll
    for (int k = 0; k < BS; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();  // everyone is done reading before the next copy overwrites the tiles
  }
  if (row < M && col < N) seed::store_output(C, row * N + col, acc, alpha, beta);
}

seed::GemmFunction function_for(int block) {
  switch (block) {
    case 8: return &prefetch_gemm<8>;
    case 16: return &prefetch_gemm<16>;
    case 22: return &prefetch_gemm<22>;
    case 32: return &prefetch_gemm<32>;
  }
  throw Error(fmt::format("seed.prefetch: no instance for block {}", block));
}

class Prefetch final : public KernelBase {
 public:
  Prefetch() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    const int b = p.at("block");
    if (auto why = check_block_fits(dev, std::int64_t(b) * b, 2 * sizeof(float) * b * b)) return why;
    return check_grid_fits(dev, ceil_div(s.n, b), ceil_div(s.m, b));
  }

  TrafficModel traffic(const Shape& s, const Params& p) const override {
    const int b = p.at("block");
    TrafficModel t;
    t.flops = s.flops();
    // The same loads as seed.shared, issued earlier: A once per block column, B once per block row.
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
    i.id = "seed.prefetch";
    i.family = "seed";
    i.step = 4;
    i.title = "Shared-memory tiles, next tile prefetched into registers";
    i.origin = "seed 003 section 3.4, version 4 (listing 4)";
    i.summary =
        "Step 3 with software pipelining: after the barrier that completes tile t, each thread issues the global "
        "loads of tile t+1 into registers and then computes tile t from shared memory, so the memory latency "
        "overlaps the multiply-adds instead of stalling the block before every barrier. Global traffic is the "
        "same as seed.shared (CGMA = block); what it saves is waiting.";
    i.params = {{"block", "tile and thread block are block x block", {8, 16, 22, 32}, 16}};
    i.constraints = "any M, N, K >= 1 (edge tiles zero-filled, no prefetch past the last strip)";
    return i;
  }
};

}  // namespace

void register_seed_prefetch(Registry& r) { r.add(std::make_unique<Prefetch>()); }
GEMMLAB_REGISTER_KERNELS(register_seed_prefetch);

}  // namespace gemmlab
