// The library's TF32 kernel instantiations (tiles of 256 or 128 rows in clusters of 1 and 2, of 64
// rows alone; B N- or K-major, plain or fused epilogue) and the host side of one launch.
#include <cstdint>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "kernels/library/epilogue.cuh"
#include "kernels/library/tf32_table.hpp"
#include "kernels/tensor/hopper_tf32.cuh"
#include "kernels/tensor/sm90_launch.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab::detail {

epi::Params epilogue_params(const Problem& p);

namespace {

template <int BM, int CLUSTER, bool B_KMAJOR, bool FUSED>
void launch(const Problem& p, const Tf32Config& c, const LaunchEnv& env, const Tf32Plan& plan) {
  using K = tc::sm90::Tf32TileOf<BM>;  // the kernel's tile constants
  // A is K-major here (an M-major A was copied): M x K; B N-major (K x N) or K-major (N x K).
  const CUtensorMap ma = tc::make_tensor_map_3d(p.a.ptr, DType::f32, p.m, p.k, p.a.ld, p.a.stride == 0 ? 1 : p.batch,
                                                p.a.stride, K::BM / CLUSTER, K::BK, tc::Swizzle::b128);
  const std::int64_t b_depth = p.b.stride == 0 ? 1 : p.batch;
  const CUtensorMap mb = B_KMAJOR ? tc::make_tensor_map_3d(p.b.ptr, DType::f32, p.n, p.k, p.b.ld, b_depth, p.b.stride,
                                                           K::B_BOX_COLS, K::BK, tc::Swizzle::b128)
                                  : tc::make_tensor_map_3d(p.b.ptr, DType::f32, p.k, p.n, p.b.ld, b_depth, p.b.stride,
                                                           K::BK, K::B_BOX_COLS, tc::Swizzle::b128);
  // D's boxes: 64 rows by 32 columns of D as stored, its columns the map's rows where it is column-major.
  const std::int64_t d_rows = plan.d_col_major ? p.n : p.m, d_cols = plan.d_col_major ? p.m : p.n;
  const CUtensorMap md = plan.tma_store ? tc::make_tensor_map_3d(p.d, DType::f32, d_rows, d_cols, p.ldd, p.batch,
                                                                 p.stride_d, 64, 32, tc::Swizzle::b128)
                                        : ma;  // not used by the kernel
  tc::sm90::Tf32Args args{};
  args.M = int(p.m), args.N = int(p.n), args.K = int(p.k);
  args.batch = int(p.batch);
  args.a_bcast = p.a.stride == 0 ? 1 : 0;
  args.b_bcast = p.b.stride == 0 ? 1 : 0;
  args.D = static_cast<float*>(p.d);
  args.C = static_cast<const float*>(p.c);
  args.ldd = p.ldd, args.ldc = p.ldc, args.stride_d = p.stride_d, args.stride_c = p.stride_c;
  // Column-major D in pairs of rows where every column of D and C starts 8-byte aligned.
  const auto pairs_ok = [&](const void* ptr, std::int64_t ld, std::int64_t stride) {
    return reinterpret_cast<std::uintptr_t>(ptr) % 8 == 0 && ld % 2 == 0 && (p.batch == 1 || stride % 2 == 0);
  };
  const bool pairs = pairs_ok(p.d, p.ldd, p.stride_d) && (!p.c || pairs_ok(p.c, p.ldc, p.stride_c));
  args.d_col_major = plan.d_col_major ? (pairs ? 2 : 1) : 0;
  args.epi = epilogue_params(p);
  args.group_m = c.group_m;
  args.tma_store = plan.tma_store ? 1 : 0;
  args.k_split = plan.k_split;
  if (plan.tail.units > 0) {
    args.sk.partials = plan.stream_k;
    args.sk.flags = env.scratch.flags;
    args.sk.tail = plan.tail;
  }
  const KernelLaunch run(dim3(unsigned(plan.grid_ctas)), dim3(K::kThreads), K::kSmemBytes, env.queue(), CLUSTER);
  GEMMLAB_CUDA(run(&tc::sm90::hopper_tf32_gemm<CLUSTER, B_KMAJOR, FUSED, BM>, ma, mb, md, args));
}

template <int BM, int CLUSTER, bool B_KMAJOR, bool FUSED>
Tf32Entry entry() {
  Tf32Entry e;
  e.tile_m = BM, e.cluster = CLUSTER, e.b_k_major = B_KMAJOR, e.fused = FUSED;
  e.kernel = reinterpret_cast<const void*>(&tc::sm90::hopper_tf32_gemm<CLUSTER, B_KMAJOR, FUSED, BM>);
  e.smem_bytes = tc::sm90::Tf32TileOf<BM>::kSmemBytes;
  e.threads = tc::sm90::Tf32TileOf<BM>::kThreads;
  e.launch = &launch<BM, CLUSTER, B_KMAJOR, FUSED>;
  return e;
}

}  // namespace

const std::vector<Tf32Entry>& tf32_entries() {
  static const std::vector<Tf32Entry> entries = {
      entry<256, 1, false, false>(), entry<256, 1, false, true>(), entry<256, 1, true, false>(),
      entry<256, 1, true, true>(),   entry<256, 2, false, false>(), entry<256, 2, false, true>(),
      entry<256, 2, true, false>(),  entry<256, 2, true, true>(),   entry<128, 1, false, false>(),
      entry<128, 1, false, true>(),  entry<128, 1, true, false>(),  entry<128, 1, true, true>(),
      entry<128, 2, false, false>(), entry<128, 2, false, true>(),  entry<128, 2, true, false>(),
      entry<128, 2, true, true>(),   entry<64, 1, false, false>(),  entry<64, 1, false, true>(),
      entry<64, 1, true, false>(),   entry<64, 1, true, true>()};
  return entries;
}

}  // namespace gemmlab::detail
