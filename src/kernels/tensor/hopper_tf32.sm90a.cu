// Tensor-core ladder, step 8: TF32 on wgmma (sm_90a only; the device code is in hopper_tf32.cuh).
//
// TMA needs every row to start on 16 bytes: K and N multiples of 4 floats and 16-byte aligned
// pointers. Other shapes run the mma.sync TF32 kernel (step 2), the correct path.
#include <limits>
#include <mutex>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/tensor/hopper_tf32.cuh"
#include "kernels/tensor/mma_sync.hpp"
#include "kernels/tensor/stream_k.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab {

namespace {

using Cfg = tc::sm90::Tf32Config;

bool tma_path(const GemmArgs& g) {
  return g.shape.k % 4 == 0 && g.shape.n % 4 == 0 && aligned16(g.a) && aligned16(g.b) && aligned16(g.c);
}

std::int64_t tile_count(const Shape& s) { return ceil_div(s.m, Cfg::BM) * ceil_div(s.n, Cfg::BN); }

// Persistent: one CTA per SM (the shared memory allows one), never more CTAs than tiles.
unsigned grid_size(const Shape& s, int sms) { return unsigned(std::min<std::int64_t>(tile_count(s), sms)); }

// The stream-K tail (see stream_k.hpp) and its workspace: a slot of partial sums per CTA.
tc::TailPlan tail_plan(const Shape& s, const Params& p, int sms) {
  return tc::plan_stream_k_tail(tile_count(s), grid_size(s, sms), ceil_div(s.k, Cfg::BK), tc::TailMode(p.at("stream_k")));
}
std::size_t stream_k_bytes(const Shape& s, const Params& p, int sms) {
  return tc::stream_k_workspace(tail_plan(s, p, sms).units, grid_size(s, sms), Cfg::BM, Cfg::BN);
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

  LaunchPlan plan(const Shape& s, const Params&) const override {
    return {reinterpret_cast<const void*>(&tc::sm90::hopper_tf32_gemm), dim3(grid_size(s, current_sm_count())),
            dim3(Cfg::kThreads), Cfg::kSmemBytes};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    if (!tma_path(g)) {
      tc::launch_mma_sync(Precision::tf32, g, ctx.stream);
      return;
    }
    static std::once_flag once;
    std::call_once(once, [] {
      GEMMLAB_CUDA(cudaFuncSetAttribute(&tc::sm90::hopper_tf32_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        int(Cfg::kSmemBytes)));
    });
    const Shape& s = g.shape;
    const bool tma_store = g.beta == 0.0f;  // rows are 16-byte aligned on the TMA path already
    const tc::TmaMaps maps = maps_.get({g.a, g.b, g.c, s, s.n, tma_store}, build_maps);
    tc::sm90::Tf32Args args{int(s.m), int(s.n), int(s.k), g.alpha, g.beta, static_cast<float*>(g.c),
                                  p.at("group"), tma_store ? 1 : 0};
    const int sms = ctx.device ? ctx.device->sm_count : current_sm_count();
    if (const std::size_t bytes = stream_k_bytes(s, p, sms); bytes > 0) {
      if (!ctx.workspace || ctx.workspace_bytes < bytes)
        throw Error(fmt::format("kernel {} needs {} bytes of workspace for its stream-K tail", info_.id, bytes));
      const tc::TailPlan tail = tail_plan(s, p, sms);
      args.sk = {static_cast<float*>(ctx.workspace), tc::stream_k_flags(ctx.stream), tail.units, tail.owner_k};
    }
    tc::sm90::hopper_tf32_gemm<<<grid_size(s, sms), Cfg::kThreads, Cfg::kSmemBytes, ctx.stream>>>(maps.a, maps.b,
                                                                                                  maps.c, args);
    GEMMLAB_CUDA(cudaGetLastError());
  }

 private:
  static tc::TmaMaps build_maps(const tc::TmaKey& k) {
    const Shape& s = k.shape;
    tc::TmaMaps m;
    m.a = tc::make_tensor_map_2d(k.a, DType::f32, s.m, s.k, Cfg::BM, Cfg::BK, tc::Swizzle::b128);
    m.b = tc::make_tensor_map_2d(k.b, DType::f32, s.k, s.n, Cfg::BK, Cfg::B_BOX_COLS, tc::Swizzle::b128);
    m.c = k.tma_store ? tc::make_tensor_map_2d(k.c, DType::f32, s.m, s.n, 64, 32, tc::Swizzle::b128) : m.a;
    return m;
  }
  mutable tc::TmaMapCache maps_;
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
  i.params = {{"group", "tile rows per raster group of the persistent schedule", {4, 8, 16}, 8},
              {"stream_k", tc::kStreamKParamHelp, {0, 1, 2}, 1}};
  r.add(std::make_unique<SwappedTf32>(i));
}

}  // namespace gemmlab
