// Tensor-core ladder, step 8: TF32 on wgmma (sm_90a only; the device code is in hopper_tf32.cuh).
//
// TMA needs every row to start on 16 bytes: K and N multiples of 4 floats and 16-byte aligned
// pointers. Other shapes run the mma.sync TF32 kernel (step 2), the correct path.
#include <limits>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/tensor/hopper_tf32.cuh"
#include "kernels/tensor/mma_sync.hpp"
#include "kernels/tensor/sm90_launch.hpp"
#include "kernels/tensor/stream_k.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab {

namespace {

using Cfg = tc::sm90::Tf32Config;

bool tma_path(const GemmArgs& g) {
  return g.shape.k % 4 == 0 && g.shape.n % 4 == 0 && aligned16(g.a) && aligned16(g.b) && aligned16(g.c);
}

std::int64_t tile_count(const Shape& s) { return ceil_div(s.m, Cfg::BM) * ceil_div(s.n, Cfg::BN); }

// The schedule's units: `cluster` tiles side by side in n.
std::int64_t unit_count(const Shape& s, int cluster) {
  return ceil_div(s.m, Cfg::BM) * ceil_div(ceil_div(s.n, Cfg::BN), cluster);
}

template <int CLUSTER>
const void* kernel_ptr() {
  return reinterpret_cast<const void*>(&tc::sm90::hopper_tf32_gemm<CLUSTER>);
}

// How many clusters fit at once (tc::resident_clusters). The first call also opts the kernel into
// its shared memory, which every launch needs: launches size their grid with this.
template <int CLUSTER>
int resident_clusters(int sms) {
  static const int n = [sms] {
    GEMMLAB_CUDA(cudaFuncSetAttribute(kernel_ptr<CLUSTER>(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(Cfg::kSmemBytes)));
    return tc::resident_clusters(kernel_ptr<CLUSTER>(), Cfg::kThreads, Cfg::kSmemBytes, CLUSTER, sms);
  }();
  return n;
}

// Persistent: one CTA per SM (the shared memory allows one), never more clusters than units.
unsigned grid_size(const Shape& s, int cluster, int sms) {
  const int resident = cluster == 2 ? resident_clusters<2>(sms) : resident_clusters<1>(sms);
  return unsigned(std::min<std::int64_t>(unit_count(s, cluster), resident) * cluster);
}

// The cluster size: the parameter, or by default 2 where there is more than one wave of tiles (the
// shared A tile halves A's L2 traffic: +0.5 points at 4096^3 on the H100) and 1 below (2048^3: 128
// tiles, one wave, 2.5 points slower with clusters).
int cluster_size(const Shape& s, const Params& p, int sms) {
  if (const int c = p.at("cluster"); c != 0) return c;
  return tile_count(s) > sms ? 2 : 1;
}

// The stream-K tail (see stream_k.hpp) and its workspace: a slot of partial sums per CTA.
tc::TailPlan tail_plan(const Shape& s, const Params& p, int sms) {
  const int c = cluster_size(s, p, sms);
  return tc::plan_stream_k_tail(unit_count(s, c), grid_size(s, c, sms) / c, ceil_div(s.k, Cfg::BK),
                                TailMode(p.at("stream_k")));
}
std::size_t stream_k_bytes(const Shape& s, const Params& p, int sms) {
  return tc::stream_k_workspace(tail_plan(s, p, sms).units, grid_size(s, cluster_size(s, p, sms), sms), Cfg::BM,
                                Cfg::BN);
}

class SwappedTf32 final : public KernelBase {
 public:
  using KernelBase::KernelBase;

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    if (dev.cc() != 90)
      return fmt::format("needs an sm_90 GPU (Hopper: wgmma and TMA are sm_90a instructions); {} is sm_{}", dev.name,
                         dev.cc());
    if (auto why = check_block_fits(dev, Cfg::kThreads, Cfg::kSmemBytes)) return why;
    if (s.m > std::numeric_limits<int>::max() || s.n > std::numeric_limits<int>::max() ||
        tile_count(s) > std::numeric_limits<int>::max())
      return std::string("M, N and the tile count must fit in 32-bit integers");
    return std::nullopt;
  }

  TrafficModel traffic(const Shape& s, const Params&) const override { return tiled_traffic(s, Cfg::BM, Cfg::BN); }

  std::size_t workspace_bytes(const Shape& s, const Params& p) const override {
    return stream_k_bytes(s, p, current_sm_count());
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    const int c = cluster_size(s, p, current_sm_count());
    return {c == 2 ? kernel_ptr<2>() : kernel_ptr<1>(), dim3(grid_size(s, c, current_sm_count())), dim3(Cfg::kThreads),
            Cfg::kSmemBytes};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    if (!tma_path(g)) {
      tc::launch_mma_sync(Precision::tf32, g, ctx.stream);
      return;
    }
    const Shape& s = g.shape;
    const int sms = ctx.device ? ctx.device->sm_count : current_sm_count();
    const int cluster = cluster_size(s, p, sms);
    const bool tma_store = g.beta == 0.0f;  // rows are 16-byte aligned on the TMA path already
    const tc::TmaMaps maps = maps_[cluster - 1].get({g.a, g.b, g.c, s, s.n, tma_store},
                                                    [cluster](const tc::TmaKey& k) { return build_maps(k, cluster); });
    tc::sm90::Tf32Args args{int(s.m), int(s.n), int(s.k), g.alpha, g.beta, static_cast<float*>(g.c),
                                  p.at("group"), tma_store ? 1 : 0};
    if (const std::size_t bytes = stream_k_bytes(s, p, sms); bytes > 0) {
      if (!ctx.workspace || ctx.workspace_bytes < bytes)
        throw Error(fmt::format("kernel {} needs {} bytes of workspace for its stream-K tail", info_.id, bytes));
      const tc::TailPlan tail = tail_plan(s, p, sms);
      args.sk = {static_cast<float*>(ctx.workspace), stream_k_flags(ctx.stream), tail.units, tail.owner_k};
    }
    const tc::ClusterLaunch launch(dim3(grid_size(s, cluster, sms)), dim3(Cfg::kThreads), Cfg::kSmemBytes, ctx.stream,
                                   cluster);
    if (cluster == 2)
      GEMMLAB_CUDA(cudaLaunchKernelEx(&launch.cfg, &tc::sm90::hopper_tf32_gemm<2>, maps.a, maps.b, maps.c, args));
    else
      GEMMLAB_CUDA(cudaLaunchKernelEx(&launch.cfg, &tc::sm90::hopper_tf32_gemm<1>, maps.a, maps.b, maps.c, args));
  }

 private:
  // With clusters of 2 each CTA loads half of the A tile's rows.
  static tc::TmaMaps build_maps(const tc::TmaKey& k, int cluster) {
    const Shape& s = k.shape;
    tc::TmaMaps m;
    m.a = tc::make_tensor_map_2d(k.a, DType::f32, s.m, s.k, Cfg::BM / cluster, Cfg::BK, tc::Swizzle::b128);
    m.b = tc::make_tensor_map_2d(k.b, DType::f32, s.k, s.n, Cfg::BK, Cfg::B_BOX_COLS, tc::Swizzle::b128);
    m.c = k.tma_store ? tc::make_tensor_map_2d(k.c, DType::f32, s.m, s.n, 64, 32, tc::Swizzle::b128) : m.a;
    return m;
  }
  mutable tc::TmaMapCache maps_[2];  // per cluster size (A's box differs)
};

}  // namespace

void register_tc_hopper_tf32(Registry& r) {
  KernelInfo i;
  i.id = "tc.swapped.tf32";
  i.family = "tensor";
  i.step = 8;
  i.precision = Precision::tf32;
  i.title = "TF32 wgmma on the transposed product C^T = B^T A^T (B^T from registers), tf32";
  i.origin = "technique: wgmma with the A operand in registers; TF32 takes K-major shared-memory operands only";
  i.summary =
      "wgmma reads TF32 from shared memory K-major only, and B is N-major, so the kernel computes C^T = B^T A^T: "
      "B^T is loaded from the swizzled TMA tile into registers (conflict-free), A's tile is the K-major shared "
      "operand of wgmma.m64n256k8. Otherwise step 7: producer warpgroup, 4-stage TMA/mbarrier pipeline, "
      "persistent grouped schedule, TMA-store epilogue (writing the transpose back).";
  i.constraints =
      "any M, N, K >= 1; TMA fast path when K and N are multiples of 4, mma.sync TF32 path otherwise. Operands are "
      "used as TF32 by dropping the low 13 mantissa bits (the tensor core reads FP32 words)";
  i.min_cc = 90;
  i.params = {{"cluster",
               "CTAs per cluster: 2 = neighbouring tile columns share the A tile (TMA multicast), 1 = none, 0 = 2 "
               "where there is more than one wave of tiles",
               {0, 1, 2}, 0},
              {"group", "tile rows per raster group of the persistent schedule", {4, 8, 16}, 8},
              {"stream_k", tc::kStreamKParamHelp, {0, 1, 2}, 1}};
  r.add(std::make_unique<SwappedTf32>(i));
}

}  // namespace gemmlab
