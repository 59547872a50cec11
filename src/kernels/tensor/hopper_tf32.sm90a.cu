// Tensor-core ladder, step 8: TF32 on wgmma (sm_90a only; the device code is in hopper_tf32.cuh).
// The step is the library's TF32 kernel, run through its launcher with the step's parameters.
//
// TMA needs every row to start on 16 bytes: K and N multiples of 4 floats and 16-byte aligned
// pointers. Other shapes run the mma.sync TF32 kernel (step 2), the correct path.
#include <limits>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "core/error.hpp"
#include "gemmlab/context.hpp"
#include "kernels/library/tf32.hpp"
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/tensor/mma_sync.hpp"
#include "kernels/tensor/stream_k.hpp"

namespace gemmlab {

namespace {

std::int64_t tile_count(const Shape& s) { return ceil_div(s.m, 256) * ceil_div(s.n, 128); }

// A packed row-major FP32 call of the lab as the library's problem, TF32 allowed.
detail::Problem library_problem(const GemmArgs& g) {
  detail::Problem p;
  p.ab = p.cd = DataType::f32;
  p.tf32 = true;
  p.m = g.shape.m, p.n = g.shape.n, p.k = g.shape.k;
  p.a = {g.a, g.shape.k, 0, true};
  p.b = {g.b, g.shape.n, 0, false};
  p.c = g.c, p.ldc = g.shape.n;
  p.d = g.c, p.ldd = g.shape.n;
  p.alpha = g.alpha, p.beta = g.beta;
  return p;
}

// The library's configuration for the step's parameters (cluster 0: the library model's choice).
detail::Tf32Config config(const Shape& s, const Params& p) {
  detail::Tf32Config c;
  c.cluster = p.at("cluster") != 0 ? p.at("cluster") : tile_count(s) > current_sm_count() ? 2 : 1;
  c.group_m = p.at("group");
  c.stream_k = p.at("stream_k");
  return c;
}

// The step is the library's TF32 kernel (kernels/library/tf32.hpp), run with the step's parameters.
class SwappedTf32 final : public KernelBase {
 public:
  using KernelBase::KernelBase;

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    if (dev.cc() != 90)
      return fmt::format("needs an sm_90 GPU (Hopper: wgmma and TMA are sm_90a instructions); {} is sm_{}", dev.name,
                         dev.cc());
    if (s.m > std::numeric_limits<int>::max() || s.n > std::numeric_limits<int>::max() ||
        tile_count(s) > std::numeric_limits<int>::max())
      return std::string("M, N and the tile count must fit in 32-bit integers");
    return std::nullopt;
  }

  TrafficModel traffic(const Shape& s, const Params&) const override { return tiled_traffic(s, 256, 128); }

  // At most one tile's partial sums per SM.
  std::size_t workspace_bytes(const Shape&, const Params& p) const override {
    return p.at("stream_k") == 0 ? 0 : std::size_t(current_sm_count()) * 256 * 128 * sizeof(float);
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    detail::DeviceState state;
    state.props.sm_count = current_sm_count();
    state.cc = 90;
    state.tf32_resident = {state.props.sm_count, state.props.sm_count / 2};
    GemmArgs g{s, nullptr, nullptr, nullptr, DType::f32};
    const auto shape = detail::tf32_launch_shape(library_problem(g), config(s, p), state);
    if (!shape) return {};
    return {shape->kernel, dim3(unsigned(shape->grid)), dim3(unsigned(shape->threads)), shape->smem_bytes};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    const detail::Problem prob = library_problem(g);
    const detail::Tf32Config c = config(g.shape, p);
    if (!ctx.library) throw Error(fmt::format("kernel {} runs through the library: the lab gives it a context", info_.id));
    const detail::DeviceState& dev = ctx.library->impl().device;
    if (detail::tf32_reject(prob, c, dev, ctx.workspace_bytes)) {
      tc::launch_mma_sync(Precision::tf32, g, ctx.stream);  // rows TMA cannot address: the correct path
      return;
    }
    detail::LaunchEnv env;
    env.stream = ctx.stream;
    env.scratch.data = static_cast<unsigned char*>(ctx.workspace);
    env.scratch.bytes = ctx.workspace_bytes;
    env.scratch.flags = stream_k_flags(ctx.stream);
    env.device = &dev;
    detail::launch_tf32(prob, c, env);
  }
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
GEMMLAB_REGISTER_KERNELS(register_tc_hopper_tf32);

}  // namespace gemmlab
