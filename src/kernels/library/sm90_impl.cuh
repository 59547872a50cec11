// The host side of the library's Hopper 16-bit kernel for one instantiation, and the table of
// instantiations; included by the sm90_*.sm90a.cu files, one per operand and output type, so that
// the ~40 instantiations of each build in parallel.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "kernels/library/epilogue.cuh"
#include "kernels/library/sm90_table.hpp"
#include "kernels/tensor/hopper.cuh"
#include "kernels/tensor/sm90_launch.hpp"
#include "kernels/tensor/stream_k.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab::detail {

epi::Params epilogue_params(const Problem& p);

namespace sm90lib {

using tc::sm90::HopperArgs;
using tc::sm90::HopperConfig;
using tc::sm90::Sm90Shape;

// The instantiations of one operand and output type: nine tiles (128 x 256 alone and in pairs,
// 128 x 192, 192 x 96, 128 x 128, 128 x 64 alone and in pairs, 64 x 64, 64 x 32) x four layouts x
// plain or fused epilogue, and the grouped ones (no pairs, no 128 x 192 or 192 x 96, no 64-wide
// tiles). Pairs have no fused epilogue: with FP32 D its bias and activation code made ptxas spill
// (32 bytes); a fused call runs 128 x 256 tiles alone instead (pairs gain little, and only from 8
// waves on: docs/kernels/tensor-ladder.md, 7.5). 128 x 192 tiles serve problems whose 128 x 256 and
// 128 x 128 tiles fill their last wave poorly (1536^3: 72, 96 and 144 tiles for 132 SMs); they have
// no fused epilogue either, for build time: with it, the eight 128 x 192 instantiations made each of
// these files compile far longer (docs/shapes.md, "128 x 192 tiles"). 128 x 64 tiles serve problems
// too small to fill the GPU with 128 x 128 ones, and n <= 64; they need so little shared memory a
// stage that they keep eight in flight.
// Pairs of 128 x 64 tiles sharing A (cluster_n = 2) serve the same small problems as single ones
// with half of A's reads from L2 (docs/shapes.md, "Pairs of 128 x 64 tiles"); plain epilogue only.
// 64 x 64 tiles (one consumer warpgroup) serve m <= 64 and other shapes too small for 128-row
// tiles to fill the GPU (docs/shapes.md, "64 x 64 tiles"); twelve stages in flight, plain epilogue,
// dense only. 64 x 32 tiles likewise, with sixteen stages: twice the CTAs of 64 x 64 ones over a
// small problem (docs/shapes.md, "64 x 32 tiles"). 192 x 96 tiles (three consumer warpgroups) serve
// problems that 128 x 192 ones leave a third of the SMs idle on (1536^3: 128 tiles for 132 SMs
// against 96; docs/shapes.md, "192 x 96 tiles"); plain epilogue, dense only.
constexpr int kShapeCount = 64;
constexpr std::array<Sm90Shape, kShapeCount> library_shapes() {
  std::array<Sm90Shape, kShapeCount> out{};
  const Sm90Shape tiles[9] = {Sm90Shape{.bm = 128, .bn = 256, .stages = 4},
                              Sm90Shape{.bm = 128, .bn = 256, .stages = 4, .cluster_m = 2},
                              Sm90Shape{.bm = 128, .bn = 192, .stages = 4},
                              Sm90Shape{.bm = 192, .bn = 96, .stages = 4},
                              Sm90Shape{.bm = 128, .bn = 128, .stages = 6},
                              Sm90Shape{.bm = 128, .bn = 64, .stages = 8},
                              Sm90Shape{.bm = 128, .bn = 64, .stages = 8, .cluster_n = 2},
                              Sm90Shape{.bm = 64, .bn = 64, .stages = 12},
                              Sm90Shape{.bm = 64, .bn = 32, .stages = 16}};
  int n = 0;
  for (int grouped = 0; grouped < 2; ++grouped)
    for (const Sm90Shape& t : tiles) {
      const bool pairs = t.cluster_m * t.cluster_n > 1;
      if (grouped && (pairs || t.bn <= 96 || t.bn == 192)) continue;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
          for (int fused = 0; fused < 2; ++fused) {
            if (fused && (pairs || t.bn == 192 || t.bm != 128)) continue;
            Sm90Shape s = t;
            s.a_k_major = a == 0;
            s.b_k_major = b == 1;
            s.fused = fused == 1;
            s.grouped = grouped == 1;
            out[std::size_t(n++)] = s;
          }
    }
  return out;
}
inline constexpr std::array<Sm90Shape, kShapeCount> kShapes = library_shapes();

template <class Cfg>
constexpr DType operand_dtype() {
  return Cfg::kPrecision == Precision::bf16 ? DType::bf16 : DType::f16;
}
template <class Cfg>
constexpr DType output_dtype() {
  return std::is_same_v<typename Cfg::Out, float> ? DType::f32 : operand_dtype<Cfg>();
}

template <class Cfg>
const void* kernel_of() {
  return reinterpret_cast<const void*>(&tc::sm90::hopper_gemm<Cfg>);
}

template <class Cfg>
void launch(const Problem& p, const Sm90Config& c, const LaunchEnv& env, const Sm90Plan& plan) {
  using Out = typename Cfg::Out;
  constexpr DType ab = operand_dtype<Cfg>(), out = output_dtype<Cfg>();
  const bool grouped = Cfg::kGrouped;
  // A: M x K (K-major, boxes of A_BOX_ROWS rows) or K x M (M-major, boxes of 64 rows of K). The
  // third dimension is the batch item (one for a broadcast operand, or a grouped launch's stacked A).
  const std::int64_t a_depth = grouped || p.a.stride == 0 ? 1 : p.batch;
  const CUtensorMap ma =
      Cfg::kAKMajor
          ? tc::make_tensor_map_3d(p.a.ptr, ab, p.m, p.k, p.a.ld, a_depth, p.a.stride, Cfg::A_BOX_ROWS, 64, tc::Swizzle::b128)
          : tc::make_tensor_map_3d(p.a.ptr, ab, p.k, p.m, p.a.ld, a_depth, p.a.stride, 64, 64, tc::Swizzle::b128);
  const std::int64_t b_items = grouped ? p.groups : p.batch;
  const std::int64_t b_depth = p.b.stride == 0 ? 1 : b_items;
  const CUtensorMap mb =
      Cfg::kBKMajor
          ? tc::make_tensor_map_3d(p.b.ptr, ab, p.n, p.k, p.b.ld, b_depth, p.b.stride, Cfg::B_BOX, 64, tc::Swizzle::b128)
          : tc::make_tensor_map_3d(p.b.ptr, ab, p.k, p.n, p.b.ld, b_depth, p.b.stride, 64, Cfg::B_BOX,
                                   Cfg::kBSwizzle64 ? tc::Swizzle::b64 : tc::Swizzle::b128);
  const std::int64_t d_depth = grouped ? 1 : p.batch;
  const CUtensorMap md =
      plan.tma_store ? tc::make_tensor_map_3d(p.d, out, p.m, p.n, p.ldd, d_depth, p.stride_d, 64, Cfg::BOX_COLS,
                                              Cfg::BOX_ROW_BYTES == 128 ? tc::Swizzle::b128 : tc::Swizzle::b64)
                     : ma;  // not used by the kernel
  HopperArgs args{};
  args.M = int(p.m), args.N = int(p.n), args.K = int(p.k);
  args.batch = grouped ? 1 : int(p.batch);
  args.a_bcast = p.a.stride == 0 ? 1 : 0;
  args.b_bcast = p.b.stride == 0 ? 1 : 0;
  args.D = p.d, args.C = p.c;
  args.ldd = p.ldd, args.ldc = p.ldc, args.stride_d = p.stride_d, args.stride_c = p.stride_c;
  args.epi = epilogue_params(p);
  if (p.alpha_ptr) args.epi.alpha = 1.0f;  // the TMA epilogue scales by *alpha_ptr in place (hopper.cuh)
  args.group_m = c.group_m;
  args.tma_store = plan.tma_store ? 1 : 0;
  args.pair_stores = plan.pair_stores ? 1 : 0;
  args.groups = p.groups;
  args.offsets = p.offsets;
  args.k_split = plan.k_split;
  if (plan.tail.units > 0) {
    args.sk.partials = reinterpret_cast<float*>(env.scratch.data);
    args.sk.flags = env.scratch.flags;
    args.sk.tail = plan.tail;
  }
  const KernelLaunch run(dim3(unsigned(plan.grid_ctas)), dim3(Cfg::kThreads), Cfg::kSmemBytes, env.queue(),
                            Cfg::kCluster);
  GEMMLAB_CUDA(run(&tc::sm90::hopper_gemm<Cfg>, ma, mb, md, args));
}

template <Precision P, class Out, Sm90Shape S>
Sm90Entry entry() {
  using Cfg = HopperConfig<P, Out, S>;
  Sm90Entry e;
  e.tile_m = S.bm, e.tile_n = S.bn, e.cluster = S.cluster_m * S.cluster_n;
  e.a_k_major = S.a_k_major, e.b_k_major = S.b_k_major, e.fused = S.fused, e.grouped = S.grouped;
  e.stream_k = Cfg::kStreamK;
  e.kernel = kernel_of<Cfg>();
  e.smem_bytes = Cfg::kSmemBytes;
  e.threads = Cfg::kThreads;
  e.launch = &launch<Cfg>;
  return e;
}

template <Precision P, class Out, std::size_t... I>
std::vector<Sm90Entry> entries(std::index_sequence<I...>) {
  return {entry<P, Out, kShapes[I]>()...};
}

template <Precision P, class Out>
std::vector<Sm90Entry> all_entries() {
  return entries<P, Out>(std::make_index_sequence<kShapeCount>{});
}

}  // namespace sm90lib

}  // namespace gemmlab::detail
