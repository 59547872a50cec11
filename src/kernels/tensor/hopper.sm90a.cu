// Tensor-core ladder, steps 3-7: the Hopper kernels (wgmma, TMA, mbarriers, warp specialisation,
// persistence, clusters, TMA epilogue). Built for sm_90a only; the device code is in hopper.cuh.
// Steps 3 to 6 are instantiated here; step 7 is the library's kernel (kernels/library/sm90.hpp),
// run through its launcher with the step's parameters, plus the 256 x 128 tile kept for comparison.
//
// Any M, N, K >= 1: TMA needs every row to start on 16 bytes (K and N multiples of 8 for 16-bit
// types) and the pointers 16-byte aligned. Other shapes run the mma.sync kernel (step 2) instead:
// the fast path when aligned, a correct path otherwise.
#include <mutex>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "core/error.hpp"
#include "gemmlab/context.hpp"
#include "kernels/common.hpp"
#include "kernels/library/sm90.hpp"
#include "kernels/registry.hpp"
#include "kernels/tensor/hopper.cuh"
#include "kernels/tensor/mma_sync.hpp"
#include "kernels/tensor/sm90_launch.hpp"
#include "kernels/tensor/stream_k.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab {

namespace {

using tc::sm90::HopperArgs;
using tc::sm90::HopperConfig;
using tc::sm90::Sm90Shape;

bool tma_path(const GemmArgs& g) {
  return g.shape.k % 8 == 0 && g.shape.n % 8 == 0 && aligned16(g.a) && aligned16(g.b) && aligned16(g.c);
}

// How many clusters of this configuration can be resident at once (see tc::resident_clusters).
template <class Cfg>
int resident_clusters(int sms) {
  static const int n = [sms] {
    const void* kernel = reinterpret_cast<const void*>(&tc::sm90::hopper_gemm<Cfg>);
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::kSmemBytes)) != cudaSuccess) {
      (void)cudaGetLastError();
      return sms / Cfg::kCluster;
    }
    return tc::resident_clusters(kernel, Cfg::kThreads, Cfg::kSmemBytes, Cfg::kCluster, sms);
  }();
  return n;
}

template <class Cfg>
std::int64_t unit_count(const Shape& s) {
  return ceil_div(ceil_div(s.m, Cfg::BM), Cfg::kClusterM) * ceil_div(ceil_div(s.n, Cfg::BN), Cfg::kClusterN);
}

// The grid a configuration launches for a shape on a GPU with `sms` SMs.
template <class Cfg>
unsigned grid_size(const Shape& s, int sms) {
  const std::int64_t units = unit_count<Cfg>(s);
  const std::int64_t clusters = Cfg::kPersistent ? std::min<std::int64_t>(units, resident_clusters<Cfg>(sms)) : units;
  return unsigned(clusters * Cfg::kCluster);
}

// The stream-K tail of a launch, and the workspace its partial sums take (a slot per CTA).
template <class Cfg>
tc::TailPlan tail_plan(const Shape& s, int sms, TailMode mode) {
  if (!Cfg::kStreamK) return {};
  return tc::plan_stream_k_tail(unit_count<Cfg>(s), grid_size<Cfg>(s, sms) / Cfg::kCluster, ceil_div(s.k, Cfg::BK), mode);
}
template <class Cfg>
std::size_t stream_k_bytes(const Shape& s, int sms, TailMode mode) {
  return tc::stream_k_workspace(tail_plan<Cfg>(s, sms, mode).units, grid_size<Cfg>(s, sms), Cfg::BM, Cfg::BN);
}

// What the TMA maps describe: A is M x K and B is K x b_cols, packed row-major; C is M x N.
// b_cols is N, or N rounded up to 8 when the operands were copied into padded buffers.
struct Operands {
  const void* a;
  const void* b;
  void* c;
  Shape shape;  // M, N of C; K the kernel loops over
  std::int64_t b_cols;
};

// The tensor maps of a configuration for one set of operands (3-D maps of one matrix each).
template <class Cfg>
tc::TmaMaps build_maps(const tc::TmaKey& k) {
  using T = typename Cfg::T;
  constexpr DType ab = std::is_same_v<T, __half> ? DType::f16 : DType::bf16;
  constexpr DType out = std::is_same_v<typename Cfg::Out, float> ? DType::f32 : ab;
  tc::TmaMaps m;
  if constexpr (Cfg::k2dMaps) {
    m.a = tc::make_tensor_map_2d(k.a, ab, k.shape.m, k.shape.k, Cfg::A_BOX_ROWS, Cfg::BK, tc::Swizzle::b128);
    m.b = tc::make_tensor_map_2d(k.b, ab, k.shape.k, k.b_cols, Cfg::BK, 64, tc::Swizzle::b128);
    m.c = m.a;  // no TMA epilogue in step 3
    return m;
  }
  m.a = tc::make_tensor_map_3d(k.a, ab, k.shape.m, k.shape.k, k.shape.k, 1, 0, Cfg::A_BOX_ROWS, Cfg::BK, tc::Swizzle::b128);
  m.b = tc::make_tensor_map_3d(k.b, ab, k.shape.k, k.b_cols, k.b_cols, 1, 0, Cfg::BK, 64, tc::Swizzle::b128);
  m.c = Cfg::kTmaEpilogue && k.tma_store
            ? tc::make_tensor_map_3d(k.c, out, k.shape.m, k.shape.n, k.shape.n, 1, 0, 64, Cfg::BOX_COLS, tc::Swizzle::b128)
            : m.a;  // not used by the kernel
  return m;
}

// stream_k: the workspace for the partial sums of a stream-K tail (null: whole units only).
template <class Cfg>
void launch_hopper(const Operands& o, float alpha, float beta, const ExecContext& ctx, int group_m, void* stream_k,
                   TailMode mode) {
  static tc::TmaMapCache cache;
  static std::once_flag once;
  auto* kernel = &tc::sm90::hopper_gemm<Cfg>;
  std::call_once(once, [&] {
    GEMMLAB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::kSmemBytes)));
  });
  constexpr int out_bytes = int(sizeof(typename Cfg::Out));
  const bool tma_store = aligned16(o.c) && (o.shape.n * out_bytes) % 16 == 0;
  const bool pairs = o.shape.n % 2 == 0 && reinterpret_cast<std::uintptr_t>(o.c) % (2 * out_bytes) == 0;
  const tc::TmaMaps maps = cache.get({o.a, o.b, o.c, o.shape, o.b_cols, tma_store}, build_maps<Cfg>);
  const int sms = ctx.device ? ctx.device->sm_count : current_sm_count();
  tc::sm90::StreamK sk;
  if (const tc::TailPlan tail = tail_plan<Cfg>(o.shape, sms, mode); stream_k && tail.units > 0) {
    static_assert(2 * 1024 <= kStreamKFlags, "a flag per CTA and consumer warpgroup");
    sk.partials = static_cast<float*>(stream_k);
    sk.flags = stream_k_flags(ctx.stream);
    sk.tail = tail;
  }
  HopperArgs args{};
  args.M = int(o.shape.m), args.N = int(o.shape.n), args.K = int(o.shape.k);
  args.batch = 1;
  args.D = o.c, args.C = o.c;
  args.ldd = args.ldc = o.shape.n;
  args.epi.alpha = alpha, args.epi.beta = beta;
  args.group_m = group_m;
  args.tma_store = tma_store ? 1 : 0;
  args.pair_stores = pairs ? 1 : 0;
  args.sk = sk;
  const LaunchConfig launch(dim3(grid_size<Cfg>(o.shape, sms)), dim3(Cfg::kThreads), Cfg::kSmemBytes, ctx.stream,
                            unsigned(Cfg::kCluster));
  GEMMLAB_CUDA(launch(kernel, maps.a, maps.b, maps.c, args));
}

// One ladder step in one precision. CfgF32 writes FP32 C; CfgSame (or void) the operand type.
// What the last step needs of a configured kernel, whatever its tile shape.
class HopperKernelBase : public KernelBase {
 public:
  using KernelBase::KernelBase;
  // stream_k: workspace of stream_k_workspace() bytes for a stream-K tail, or null (whole units).
  virtual void launch_operands(const Operands& o, const GemmArgs& g, const ExecContext& ctx, int group_m,
                               void* stream_k, TailMode mode) const = 0;
  virtual std::size_t stream_k_workspace(const Shape& s, TailMode mode) const = 0;
};

template <class CfgF32, class CfgSame>
class HopperKernel : public HopperKernelBase {
 public:
  HopperKernel(KernelInfo info, int group_m) : HopperKernelBase(std::move(info)), group_m_(group_m) {}

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    if (dev.cc() != 90)
      return fmt::format("needs an sm_90 GPU (Hopper: wgmma and TMA are sm_90a instructions); {} is sm_{}", dev.name,
                         dev.cc());
    if (CfgF32::kSmemBytes > dev.smem_per_block_optin)
      return fmt::format("needs {} bytes of shared memory per block", CfgF32::kSmemBytes);
    if (grid_size<CfgF32>(s, dev.sm_count) > unsigned(dev.max_grid_dim[0])) return std::string("too many tiles for one grid");
    return std::nullopt;
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    // Each tile reads a BM x K panel of A and a K x BN panel of B; a cluster of 2 fetches the panel
    // its tiles share once (multicast).
    const double tiles_m = double(ceil_div(s.m, CfgF32::BM)), tiles_n = double(ceil_div(s.n, CfgF32::BN));
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = tiles_m * tiles_n * double(s.k) *
                     (double(CfgF32::BM) / CfgF32::kClusterN + double(CfgF32::BN) / CfgF32::kClusterM);
    t.global_stores = double(s.m) * s.n;
    t.element_bytes = 2;
    return t;
  }

  LaunchPlan plan(const Shape& s, const Params&) const override {
    return {reinterpret_cast<const void*>(&tc::sm90::hopper_gemm<CfgF32>), dim3(grid_size<CfgF32>(s, current_sm_count())),
            dim3(CfgF32::kThreads), CfgF32::kSmemBytes};
  }

  void launch(const GemmArgs& g, const Params&, const ExecContext& ctx) const override {
    launch_with(g, ctx, group_m_);
  }

  void launch_with(const GemmArgs& g, const ExecContext& ctx, int group_m) const {
    if (!tma_path(g)) {  // the correct path for shapes TMA cannot describe
      tc::launch_mma_sync(info_.precision, g, ctx.stream);
      return;
    }
    launch_operands({g.a, g.b, g.c, g.shape, g.shape.n}, g, ctx, group_m, nullptr, TailMode::off);
  }

  std::size_t stream_k_workspace(const Shape& s, TailMode mode) const override {
    return stream_k_bytes<CfgF32>(s, current_sm_count(), mode);  // CfgSame has the same tiles and grid
  }

  void launch_operands(const Operands& o, const GemmArgs& g, const ExecContext& ctx, int group_m,
                       void* stream_k, TailMode mode) const override {
    if (g.c_type == DType::f32) {
      launch_hopper<CfgF32>(o, g.alpha, g.beta, ctx, group_m, stream_k, mode);
    } else if constexpr (!std::is_void_v<CfgSame>) {
      launch_hopper<CfgSame>(o, g.alpha, g.beta, ctx, group_m, stream_k, mode);
    } else {
      throw Error(fmt::format("kernel {} writes FP32 C only", info_.id));
    }
  }

 private:
  int group_m_;
};

TailMode tail_mode(const Params& p) { return TailMode(p.at("stream_k")); }

// Rows of the operand copies for shapes whose K or N is not a multiple of 8 (TMA needs rows that
// start on 16 bytes): the copies get leading dimensions rounded up to 8 and the tensor maps keep
// the true K and N, so the engine zero-fills past them.
std::int64_t round8(std::int64_t x) { return (x + 7) / 8 * 8; }
std::size_t padded_a_bytes(const Shape& s) { return std::size_t(s.m * round8(s.k)) * 2; }
std::size_t padded_b_bytes(const Shape& s) { return std::size_t(s.k * round8(s.n)) * 2; }
bool shape_aligned(const Shape& s) { return s.k % 8 == 0 && s.n % 8 == 0; }

// A packed row-major call of the lab as the library's problem.
detail::Problem library_problem(Precision prec, const GemmArgs& g, const void* a, std::int64_t lda, const void* b,
                                std::int64_t ldb) {
  detail::Problem p;
  p.ab = prec == Precision::bf16 ? DataType::bf16 : DataType::f16;
  p.cd = g.c_type == DType::f32 ? DataType::f32 : p.ab;
  p.m = g.shape.m, p.n = g.shape.n, p.k = g.shape.k;
  p.a = {a, lda, 0, true};
  p.b = {b, ldb, 0, false};
  p.c = g.c, p.ldc = g.shape.n;
  p.d = g.c, p.ldd = g.shape.n;
  p.alpha = g.alpha, p.beta = g.beta;
  return p;
}

// The device facts the library plans launches with, when a lab caller has no context at hand
// (traffic and occupancy questions): this GPU's SMs, every one holding a cluster.
detail::DeviceState approximate_state() {
  detail::DeviceState s;
  s.props.sm_count = current_sm_count();
  s.cc = 90;
  s.sm90_resident = {s.props.sm_count, s.props.sm_count / 2, s.props.sm_count, s.props.sm_count};
  return s;
}

// The last step: tile shape (128 x 256, 128 x 128 or 256 x 128; by default 128 x 256 unless that
// leaves SMs idle), cluster size and raster group are parameters. 128-row tiles are the library's
// kernel (the same code `auto` runs); the 256 x 128 tile is instantiated here. Shapes whose rows
// TMA cannot address (K or N not a multiple of 8) are copied into padded buffers first; the copies
// are part of the timed launch.
template <Precision P>
class TmaEpilogueKernel final : public KernelBase {
  using T = tc::operand_t<P>;
  // cuBLAS's tile shape for these sizes (256 x 128, clusters of 2 sharing A); measured slightly slower than
  // 128 x 256 (docs/kernels/tensor-ladder.md), kept for comparison. Without the cluster it is slower still,
  // and its FP32-C build spills 4 bytes: not instantiated.
  static constexpr Sm90Shape kTall{.bm = 256, .bn = 128, .stages = 4, .cluster_n = 2};
  using Tall = HopperKernel<HopperConfig<P, float, kTall>, HopperConfig<P, T, kTall>>;

 public:
  explicit TmaEpilogueKernel(const KernelInfo& info) : KernelBase(info), tall_(info, 8) {}

  // Waves of 128 x 256 tiles on this GPU's SMs, which the automatic tile width and cluster size
  // go by (the library's model: detail::sm90_model_choice).
  static double waves256(const Shape& s) {
    return double(ceil_div(s.m, 128) * ceil_div(s.n, 256)) / current_sm_count();
  }
  // The library's configuration for these parameters (0 = the model's choice).
  static detail::Sm90Config config(const Shape& s, const Params& p) {
    detail::Sm90Config c;
    // Clusters of 2 are compiled for 128x256 tiles only: an explicit cluster=2 takes those.
    c.tile_n = p.at("tile_n") != 0 ? p.at("tile_n") : waves256(s) < 1 && p.at("cluster") != 2 ? 128 : 256;
    c.cluster = p.at("cluster") != 0 ? p.at("cluster") : c.tile_n == 256 && waves256(s) >= 8 ? 2 : 1;
    c.group_m = p.at("group");
    c.stream_k = p.at("stream_k");
    c.splits = p.at("splits");
    if (c.splits > 1) c.stream_k = 0;  // the slices are whole: no tail
    return c;
  }
  static bool tall(const Params& p) { return p.at("tile_m") == 256; }

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& d) const override {
    if (p.at("tile_m") == 256 && p.at("tile_n") == 256)
      return std::string("256 x 256 tiles would take 256 accumulators per thread (tile_m=256 runs with tile_n=128)");
    if (p.at("tile_m") == 256 && p.at("cluster") == 1)
      return std::string("256 x 128 tiles run in clusters of 2 only (cuBLAS's configuration; tile_m=256 needs cluster=2 or 0)");
    if (p.at("tile_m") == 128 && p.at("tile_n") == 128 && p.at("cluster") == 2)
      return std::string("128 x 128 tiles run without clusters (tile_n=128 runs with cluster=1 or 0)");
    if (tall(p)) return p.at("splits") > 1 ? std::optional<std::string>("split-K runs with 128-row tiles (tile_m=128)")
                                           : tall_.reject(s, p, d);
    if (d.cc() != 90)
      return fmt::format("needs an sm_90 GPU (Hopper: wgmma and TMA are sm_90a instructions); {} is sm_{}", d.name, d.cc());
    if (ceil_div(s.m, 128) * ceil_div(s.n, 128) > std::numeric_limits<int>::max()) return std::string("too many tiles");
    if (p.at("splits") > ceil_div(s.k, 64))
      return fmt::format("splits={} is more than K's {} k-tiles of 64", p.at("splits"), ceil_div(s.k, 64));
    return std::nullopt;
  }
  TrafficModel traffic(const Shape& s, const Params& p) const override {
    if (tall(p)) return tall_.traffic(s, p);
    const detail::Sm90Config c = config(s, p);
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = double(ceil_div(s.m, 128)) * double(ceil_div(s.n, c.tile_n)) * double(s.k) *
                     (128.0 + double(c.tile_n) / c.cluster);
    t.global_stores = double(s.m) * s.n;
    t.element_bytes = 2;
    return t;
  }
  LaunchPlan plan(const Shape& s, const Params& p) const override {
    if (tall(p)) return tall_.plan(s, p);
    const detail::Problem prob = library_problem(P, GemmArgs{s, nullptr, nullptr, nullptr, DType::f32}, nullptr,
                                                 round8(s.k), nullptr, round8(s.n));
    const auto shape = detail::sm90_launch_shape(prob, config(s, p), approximate_state());
    if (!shape) return {};
    return {shape->kernel, dim3(unsigned(shape->grid)), dim3(unsigned(shape->threads)), shape->smem_bytes};
  }
  // Workspace: the stream-K partial sums (at most a tile's sums per SM) or split-K's, then the padded
  // copies.
  // Split-K's partial sums: a slice's m x n FP32 sums each (rounding up as the library does).
  static std::size_t split_bytes_for(const Shape& s, const Params& p) {
    return p.at("splits") > 1 ? (std::size_t(p.at("splits")) * std::size_t(s.m * s.n) * 4 + 255) / 256 * 256 : 0;
  }
  static std::size_t stream_k_bytes_for(const Params& p) {
    return p.at("stream_k") == 0 ? 0 : std::size_t(current_sm_count()) * 256 * 128 * sizeof(float);
  }
  std::size_t workspace_bytes(const Shape& s, const Params& p) const override {
    const std::size_t sk = tall(p) ? (tall_.stream_k_workspace(s, tail_mode(p)) + 255) / 256 * 256
                                   : std::max(stream_k_bytes_for(p), split_bytes_for(s, p));
    return sk + (shape_aligned(s) ? 0 : padded_a_bytes(s) + 256 + padded_b_bytes(s));
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    const Shape& s = g.shape;
    if (tall(p)) {
      launch_tall(g, p, ctx);
      return;
    }
    if (!ctx.library) throw Error(fmt::format("kernel {} runs through the library: the lab gives it a context", info_.id));
    const detail::DeviceState& dev = ctx.library->impl().device;
    const std::size_t sk_bytes = (std::max(stream_k_bytes_for(p), split_bytes_for(s, p)) + 255) / 256 * 256;
    const void* a = g.a;
    const void* b = g.b;
    std::int64_t lda = s.k, ldb = s.n;
    if (!shape_aligned(s) || !aligned16(g.a) || !aligned16(g.b)) {
      if (!ctx.workspace || ctx.workspace_bytes < workspace_bytes(s, p) || !aligned16(g.a) || !aligned16(g.b)) {
        tc::launch_mma_sync(info_.precision, g, ctx.stream);  // no room to pad: the correct path
        return;
      }
      lda = round8(s.k), ldb = round8(s.n);
      auto* a_pad = static_cast<unsigned char*>(ctx.workspace) + sk_bytes;
      auto* b_pad = a_pad + (padded_a_bytes(s) + 255) / 256 * 256;
      GEMMLAB_CUDA(cudaMemcpy2DAsync(a_pad, lda * 2, g.a, s.k * 2, s.k * 2, s.m, cudaMemcpyDeviceToDevice, ctx.stream));
      GEMMLAB_CUDA(cudaMemcpy2DAsync(b_pad, ldb * 2, g.b, s.n * 2, s.n * 2, s.k, cudaMemcpyDeviceToDevice, ctx.stream));
      a = a_pad, b = b_pad;
    }
    const detail::Problem prob = library_problem(P, g, a, lda, b, ldb);
    const detail::Sm90Config c = config(s, p);
    if (auto why = detail::sm90_reject(prob, c, dev, sk_bytes)) throw Error(fmt::format("kernel {}: {}", info_.id, *why));
    detail::LaunchEnv env;
    env.stream = ctx.stream;
    env.scratch.data = static_cast<unsigned char*>(ctx.workspace);
    env.scratch.bytes = sk_bytes;
    env.scratch.flags = stream_k_flags(ctx.stream);
    env.device = &dev;
    detail::launch_sm90(prob, c, env);
  }

 private:
  void launch_tall(const GemmArgs& g, const Params& p, const ExecContext& ctx) const {
    const Shape& s = g.shape;
    const std::size_t sk_bytes = (tall_.stream_k_workspace(s, tail_mode(p)) + 255) / 256 * 256;
    if (sk_bytes > 0 && (!ctx.workspace || ctx.workspace_bytes < sk_bytes))
      throw Error(fmt::format("kernel {} needs {} bytes of workspace for its stream-K tail", info_.id, sk_bytes));
    void* stream_k = sk_bytes > 0 ? ctx.workspace : nullptr;
    if (shape_aligned(s) && tma_path(g)) {
      tall_.launch_operands({g.a, g.b, g.c, s, s.n}, g, ctx, p.at("group"), stream_k, tail_mode(p));
      return;
    }
    tc::launch_mma_sync(info_.precision, g, ctx.stream);
  }

  Tall tall_;
};

struct Step {
  const char* name;
  int step;
  const char* title;
  const char* origin;
  const char* summary;
};

constexpr Step kSteps[] = {
    {"wgmma", 3, "wgmma from TMA-filled shared memory, mbarrier pipeline (4 stages, 128x256x64)",
     "technique: Hopper wgmma.mma_async + TMA (cp.async.bulk.tensor) + mbarrier, sm_90a",
     "Two warpgroups each issue wgmma.m64n256k16 on 128-byte-swizzled tiles that TMA copies in; "
     "full/empty mbarriers pace a 4-stage pipeline; thread 0 also issues the copies."},
    {"warpspec", 4, "Warp specialisation: a producer warpgroup, two consumers, setmaxnreg",
     "technique: producer/consumer warpgroups with register reallocation (setmaxnreg)",
     "A third warpgroup only issues TMA (one thread) and drops to 40 registers; the two consumer "
     "warpgroups only wait and multiply, with 232 registers each."},
    {"persistent", 5, "Persistent grid: one CTA per SM over all tiles, grouped order for L2",
     "technique: persistent kernels, tile rasterisation",
     "132 CTAs loop over the tiles in groups of tile rows; the producer fetches the next tile while the "
     "consumers store the last one."},
    {"cluster", 6, "Thread-block clusters of 2 with TMA multicast of the shared B tile",
     "technique: thread-block clusters (sm_90), TMA .multicast::cluster",
     "Two CTAs on neighbouring tile rows share their B tile: each loads half and multicasts it to "
     "both, halving B's L2 traffic; empty barriers count the consumers of both CTAs."},
    {"tma_epilogue", 7, "Epilogue through shared memory and TMA stores",
     "technique: TMA bulk tensor stores (cp.async.bulk.tensor shared -> global)",
     "Accumulators are converted into shared memory and leave by TMA stores in 64-row boxes, clipped "
     "at the matrix edges by the copy engine (beta == 0; with beta, direct stores). A tile's last four "
     "boxes wait in registers and leave during the next tile's main loop, under its wgmmas."},
};

// Steps 3 to 6 as configurations, each stating what it adds over the step before. Sm90Shape's
// fields default to the finished kernel (step 7: the library's, kernels/library/sm90.hpp), so step 3
// switches off what the later steps add.
constexpr Sm90Shape adds(Sm90Shape before, void (*change)(Sm90Shape&)) {
  change(before);
  return before;
}
constexpr Sm90Shape kStep3{.warp_specialized = false, .persistent = false, .tma_epilogue = false};
constexpr Sm90Shape kStep4 = adds(kStep3, [](Sm90Shape& s) { s.warp_specialized = true; });  // a producer warpgroup
constexpr Sm90Shape kStep5 = adds(kStep4, [](Sm90Shape& s) { s.persistent = true; });  // one CTA per SM, all tiles
constexpr Sm90Shape kStep6 = adds(kStep5, [](Sm90Shape& s) { s.cluster_m = 2; });  // pairs sharing B by multicast

template <Precision P, int STEP>
void add_step(Registry& r) {
  using T = tc::operand_t<P>;
  const Step& st = kSteps[STEP - 3];
  KernelInfo i;
  i.id = fmt::format("tc.{}.{}", st.name, precision_name(P));
  i.family = "tensor";
  i.step = st.step;
  i.precision = P;
  i.title = fmt::format("{}, {}", st.title, precision_name(P));
  i.origin = st.origin;
  i.summary = st.summary;
  i.constraints = "any M, N, K >= 1; TMA fast path when K and N are multiples of 8, mma.sync path otherwise";
  i.min_cc = 90;
  constexpr int kGroup = 8;
  if constexpr (STEP < 7) {
    constexpr Sm90Shape shape = STEP == 3 ? kStep3 : STEP == 4 ? kStep4 : STEP == 5 ? kStep5 : kStep6;
    r.add(std::make_unique<HopperKernel<HopperConfig<P, float, shape>, void>>(i, kGroup));
  } else {
    i.outputs = {DType::f32, operand_type(P)};
    i.params = {{"tile_m", "tile rows: 128, or 256 (tiles of 256 x 128, in clusters of 2)", {128, 256}, 128},
                {"tile_n", "tile columns with 128 rows: 128, 256, or 0 = 256 unless that leaves SMs idle", {0, 128, 256}, 0},
                {"cluster", "CTAs per cluster: 2 = pairs sharing their larger operand tile by TMA multicast (B of 128 x 256 tiles, A of 256 x 128); 0 = 2 from 8 waves of 128 x 256 tiles on, and with 256 x 128 tiles, 1 otherwise", {0, 1, 2}, 0},
                {"group", "tile rows per raster group of the persistent schedule", {4, 8, 16}, 8},
                {"stream_k", tc::kStreamKParamHelp, {0, 1, 2}, 1},
                {"splits", "split-K: K cut into this many slices, each multiplied into FP32 partial sums that a second kernel adds in a fixed order (1 = none; the library's model picks it for a few tiles with a long K)", {1, 4, 16, 64}, 1}};
    i.constraints =
        "any M, N, K >= 1; when K or N is not a multiple of 8 the operands are first copied into zero-padded "
        "buffers (timed with the kernel)";
    r.add(std::make_unique<TmaEpilogueKernel<P>>(i));
  }
}

}  // namespace

void register_tc_hopper(Registry& r) {
  add_step<Precision::bf16, 3>(r);
  add_step<Precision::fp16, 3>(r);
  add_step<Precision::bf16, 4>(r);
  add_step<Precision::fp16, 4>(r);
  add_step<Precision::bf16, 5>(r);
  add_step<Precision::fp16, 5>(r);
  add_step<Precision::bf16, 6>(r);
  add_step<Precision::fp16, 6>(r);
  add_step<Precision::bf16, 7>(r);
  add_step<Precision::fp16, 7>(r);
}
GEMMLAB_REGISTER_KERNELS(register_tc_hopper);

}  // namespace gemmlab
