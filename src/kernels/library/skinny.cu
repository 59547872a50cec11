// The library's skinny kernels, host side (skinny.hpp): which side of D is short, the checks, the
// model's split of k, and the clustered launch, for the mma.sync form (skinny.cuh; instantiations
// in skinny_bf16.cu, skinny_f16.cu and skinny_f32.cu, built in parallel) and the CUDA-core form
// (skinny_simt.cuh, skinny_simt.cu).
#include "kernels/library/skinny.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/library/skinny.cuh"
#include "kernels/library/skinny_bulk.cuh"
#include "kernels/library/skinny_simt.cuh"
#include "kernels/library/transpose.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab::detail {

epi::Params epilogue_params(const Problem& p);

namespace skinny {
Kernel kernel_bf16(bool f32_out, int mt, bool w_kmajor, bool x_kmajor, bool w_unaligned);
Kernel kernel_f16(bool f32_out, int mt, bool w_kmajor, bool x_kmajor, bool w_unaligned);
Kernel kernel_tf32(int mt, bool w_kmajor, bool x_kmajor, bool w_unaligned);
BulkKernel bulk_kernel_bf16(bool f32_out, int mt, bool w_kmajor);
BulkKernel bulk_kernel_f16(bool f32_out, int mt, bool w_kmajor);
BulkKernel bulk_kernel_tf32(int mt, bool w_kmajor);
BulkKernel bulk_wgmma_kernel_bf16(bool f32_out, int mt, bool w_kmajor);
BulkKernel bulk_wgmma_kernel_f16(bool f32_out, int mt, bool w_kmajor);
}  // namespace skinny
namespace skinny_simt {
Kernel kernel_f32(int s, bool w_kmajor);
}  // namespace skinny_simt

namespace {

constexpr std::int64_t kMaxSmall = 64;
constexpr std::int64_t kPersistentMinWaves = 2, kPersistentMinStages = 64;  // skinny_model_choice
constexpr std::int64_t kMaxSmallSimt = 16;  // the CUDA-core form's S: 1, 2, 4, 8 or 16
constexpr int kMaxSplits = kSkinnyMaxSplits;

// The kernel's view of p: the long operand W (big x k) and the short X (small x k). With a short
// m (a decode step), W is op(B)^T and D's rows are X's: swap-AB.
struct Sides {
  bool swapped = false;
  std::int64_t big = 0, small = 0;
  const Operand* w = nullptr;
  const Operand* x = nullptr;
};
Sides sides_of(const Problem& p) {
  Sides s;
  s.swapped = p.m <= kMaxSmall && (p.m <= p.n || p.n > kMaxSmall);
  s.big = s.swapped ? p.n : p.m;
  s.small = s.swapped ? p.m : p.n;
  s.w = s.swapped ? &p.b : &p.a;
  s.x = s.swapped ? &p.a : &p.b;
  return s;
}

int mt_for(std::int64_t small) { return small <= 8 ? 1 : small <= 16 ? 2 : small <= 32 ? 4 : 8; }
bool wide(const Problem& p) { return p.ab == DataType::f32; }
// The CUDA-core form's S for `small` columns.
int s_for(std::int64_t small) { return small <= 1 ? 1 : small <= 2 ? 2 : small <= 4 ? 4 : small <= 8 ? 8 : 16; }
// An operand element's bytes, the elements of a 16-byte vector, and the k of one warp's step
// (skinny.cuh's kStepK).
std::int64_t elem_bytes(const Problem& p) { return wide(p) ? 4 : 2; }
std::int64_t vec(const Problem& p) { return 16 / elem_bytes(p); }
std::int64_t step_k(const Problem& p) { return 4 * vec(p); }
std::int64_t tile_big(int mt) { return 16 * skinny::tiles_for(mt); }

// The TMA-fed form (skinny_bulk.cuh): 16-bit operands with as many short-side columns as the
// register path (mt of 1, 2, 4 or 8; 4 and 8 by wgmma, in an sm_90a build only), FP32 ones as TF32
// with at most 16 (mt of 1 or 2); tiles of 256 W rows, stages of 128 bytes of k (64 of k for
// 16-bit, 32 for FP32), one CTA an SM. Its shared memory and threads depend on mt only.
constexpr std::int64_t kMaxSmallBulkTf32 = 16;
std::int64_t bulk_k(const Problem& p) { return 128 / elem_bytes(p); }
template <int MT> using BulkLayoutOf = skinny::BulkLayout<skinny::u16, MT, true, (MT >= 4)>;
// W rows of a CTA: 256, or 128 for the wgmma form (twice the CTAs over the same W).
std::int64_t bulk_tile(int mt) { return mt >= 4 ? BulkLayoutOf<8>::kTile : BulkLayoutOf<1>::kTile; }
// The TMA-fed form's tiles of W rows (one batch item).
std::int64_t bulk_tiles(const Sides& s) { return cdiv(s.big, bulk_tile(mt_for(s.small))); }
int bulk_smem_bytes(int mt) {
  return mt == 1 ? BulkLayoutOf<1>::kSmemBytes : mt == 2 ? BulkLayoutOf<2>::kSmemBytes
       : mt == 4 ? BulkLayoutOf<4>::kSmemBytes : BulkLayoutOf<8>::kSmemBytes;
}
// The sums of a tile, FP32 (its W rows by 8 mt short-side columns): what a CTA of the persistent
// grid stores for a tile it shares (SkinnyConfig::persistent), in each of its two slots.
std::int64_t bulk_sums(int mt) { return bulk_tile(mt) * 8 * mt; }
int bulk_threads(int mt) {
  return mt == 1 ? BulkLayoutOf<1>::kThreads : mt == 2 ? BulkLayoutOf<2>::kThreads
       : mt == 4 ? BulkLayoutOf<4>::kThreads : BulkLayoutOf<8>::kThreads;
}
skinny::BulkKernel bulk_kernel_of(DataType ab, bool f32_out, int mt, bool w_kmajor) {
  if (ab == DataType::f32) return skinny::bulk_kernel_tf32(mt, w_kmajor);
  if (mt >= 4) {
#ifdef GEMMLAB_HAVE_SM90A
    return ab == DataType::bf16 ? skinny::bulk_wgmma_kernel_bf16(f32_out, mt, w_kmajor)
                                : skinny::bulk_wgmma_kernel_f16(f32_out, mt, w_kmajor);
#else
    return nullptr;
#endif
  }
  return ab == DataType::bf16 ? skinny::bulk_kernel_bf16(f32_out, mt, w_kmajor) : skinny::bulk_kernel_f16(f32_out, mt, w_kmajor);
}

skinny::Kernel kernel_of(const Problem& p, int mt, bool w_kmajor, bool x_kmajor, bool w_unaligned) {
  const bool f32_out = p.cd == DataType::f32;
  if (wide(p)) return skinny::kernel_tf32(mt, w_kmajor, x_kmajor, w_unaligned);
  return p.ab == DataType::bf16 ? skinny::kernel_bf16(f32_out, mt, w_kmajor, x_kmajor, w_unaligned)
                                : skinny::kernel_f16(f32_out, mt, w_kmajor, x_kmajor, w_unaligned);
}

// Whether operand o (batch items of it) is read in 16-byte vectors of `vec` elements as it is:
// K-major when `k_major` (else any), pointer, leading dimension and batch stride 16-byte multiples.
bool vector_ready(const Operand& o, std::int64_t batch, std::int64_t vec, bool need_k_major) {
  return (!need_k_major || o.k_major) &&
         rows_aligned(o.ptr, o.ld, o.stride, o.stride == 0 ? 1 : batch, std::size_t(16 / vec), 16);
}

// Whether the mma.sync register path reads W unaligned (skinny.cuh, kWU): W's rows not in
// 16-byte vectors, k not a multiple of one, or a big-major W's long side not a multiple of 8 (its
// lanes read 8 rows at a time). The TMA-fed and CUDA-core forms refuse such a W.
bool w_unaligned(const Problem& p, const Sides& s) {
  return !vector_ready(*s.w, p.batch, vec(p), false) || p.k % vec(p) != 0 || (!s.w->k_major && s.big % 8 != 0);
}
// The row length of X's K-major copy: k up to a whole vector (the kernels read whole vectors).
std::int64_t x_copy_ld(const Problem& p) { return cdiv(p.k, vec(p)) * vec(p); }

// The kernels read X K-major in 16-byte rows; an X stored otherwise (M-major A of a decode step,
// N-major B of a projection to a few outputs, a sub-matrix view) is first copied so into the
// workspace: small x k per item, k a multiple of a vector. X is the short operand, so the copy is
// small, but it is a launch of its own, which a decode step notices. So the mma.sync register
// path reads an MN-major X of at most 16 columns as it is, element by element (skinny.cuh,
// gather_x): a lane gathers 8 or 16 elements a k-step per group of 8 columns, which more groups
// would multiply. Except for FP32 operands over a K-major W, where the gathered reads measured
// slower than the copy (docs/shapes.md, "An M-major A read as stored"). The TMA-fed form's
// boxes and the CUDA-core form's float4 loads need the copy.
constexpr std::int64_t kMaxSmallAsStored = 16;
// Beside an unaligned W (or a k that is not a multiple of a vector) X is copied too.
bool x_as_stored(const Problem& p, const Sides& s, bool register_path) {
  return register_path && !s.x->k_major && s.small <= kMaxSmallAsStored && !(wide(p) && s.w->k_major) &&
         !w_unaligned(p, s);
}
std::size_t x_copy_bytes(const Problem& p, const Sides& s, bool register_path) {
  if ((vector_ready(*s.x, p.batch, vec(p), true) && p.k % vec(p) == 0) || x_as_stored(p, s, register_path)) return 0;
  const std::int64_t items = s.x->stride == 0 ? 1 : p.batch;
  return align256(std::size_t(items) * std::size_t(s.small) * std::size_t(x_copy_ld(p)) * std::size_t(elem_bytes(p)));
}

// The TMA-fed form's persistent grid (SkinnyConfig::persistent): its units (a tile's stages each),
// and its CTAs, at most one a unit: one an SM with splits 1, else `splits` a tile.
std::int64_t persistent_units(const Problem& p, const Sides& s) {
  return bulk_tiles(s) * cdiv(p.k, bulk_k(p));
}
std::int64_t persistent_ctas(const Problem& p, const Sides& s, const SkinnyConfig& c, const DeviceState& state) {
  const std::int64_t wanted = c.splits > 1 ? bulk_tiles(s) * c.splits : state.props.sm_count;
  return std::max<std::int64_t>(1, std::min<std::int64_t>(persistent_units(p, s), wanted));
}
// Its workspace after X's copy: two slots of a tile's sums per CTA.
std::size_t persistent_partials_bytes(const Problem& p, const Sides& s, const SkinnyConfig& c, const DeviceState& state) {
  return align256(std::size_t(persistent_ctas(p, s, c, state)) * 2 * std::size_t(bulk_sums(mt_for(s.small))) * sizeof(float));
}

// What the TMA-fed form adds to the checks: its types, and tensor maps over W and X
// (X as the kernel reads it: the caller's, or its K-major copy, which always has one).
std::optional<std::string> bulk_reject(const Problem& p, const Sides& s) {
  if (p.ab == DataType::f32 && !p.tf32) return std::string("the TMA-fed form multiplies FP32 operands as TF32 only");
  if (p.ab == DataType::f32 && s.small > kMaxSmallBulkTf32)
    return fmt::format("the TMA-fed form takes at most {} short-side columns of FP32 operands, not {}", kMaxSmallBulkTf32,
                       s.small);
  if (!bulk_kernel_of(p.ab, p.cd == DataType::f32, mt_for(s.small), s.w->k_major))
    return fmt::format("the TMA-fed form for {} short-side columns multiplies by wgmma, which this build (no sm_90a) lacks",
                       s.small);
  const std::int64_t w_items = s.w->stride == 0 ? 1 : p.batch, x_items = s.x->stride == 0 ? 1 : p.batch;
  const std::size_t es = std::size_t(elem_bytes(p));
  if (!tc::tma_layout_ok(s.w->ptr, es, s.w->k_major ? s.big : p.k, s.w->ld, w_items, s.w->stride))
    return fmt::format("the TMA cannot read {} (the long operand) as laid out: batch items overlap or lie too far apart",
                       s.swapped ? "B" : "A");
  if (x_copy_bytes(p, s, false) == 0 && !tc::tma_layout_ok(s.x->ptr, es, s.small, s.x->ld, x_items, s.x->stride))
    return fmt::format("the TMA cannot read {} (the short operand) as laid out: batch items overlap or lie too far apart",
                       s.swapped ? "A" : "B");
  if (std::max(s.big, p.k) > INT_MAX) return std::string("a side past the TMA's 32-bit coordinates");
  return std::nullopt;
}

// More than 256 MiB of W (16-bit, or FP32 as TF32) against a short side of at most 16 rows of D
// (a decode step) or at most 8 columns: where the register path's bytes in flight fall short
// (skinny_first), the TMA-fed form's stages keep enough (docs/shapes.md, "TMA stages for long
// decode operands"). With 9 to 16 columns the tile kernel's 128 x 64 tiles are only a quarter
// padding and stay faster. With 17 to 64 rows it is a candidate of tune and the tables only: its
// eight warps' mma.sync products, not the bytes, bound an SM there, and the tile kernel with
// split-K was faster on most shapes measured (docs/shapes.md, "The TMA-fed form for TF32, and for
// 17 to 64 columns").
constexpr double kRegisterPathMaxBytes = double(1 << 28);
double w_bytes_of(const Problem& p, const Sides& s) {
  return double(s.big) * double(p.k) * double(elem_bytes(p)) * double(s.w->stride == 0 ? 1 : p.batch);
}
bool decode_step(const Problem& p, const Sides& s) {
  return s.swapped && s.small <= 16 && s.big >= 1024 && p.k >= 1024;
}
// 17 to 32 short-side columns (a prefill chunk, a small batch) against at least 4 MiB of W, k of
// 2048 or more (at 24 x 3072 x 1024 the tile kernel was faster): the wgmma form (tiles of 128 W rows) streams W faster than the tile kernel's
// split-K, whose 128-row tiles are at least three quarters padding there (docs/shapes.md, "wgmma
// for 17 to 64 columns"). With 33 to 64 columns the two measured about even, and the tile kernel
// stays.
constexpr double kMidColumnsMinBytes = double(1 << 22);
constexpr double kUnalignedMinBytes = double(1 << 26);
// A TF32 decode step of 9 to 16 rows past 256 MiB of a W stored along its long side (B N-major):
// the TF32 tile kernel's 64-row tiles (with a split of K or a stream-K tail) stream W faster than
// either skinny form there, though three quarters of each tile is padding (docs/shapes.md, "TF32
// decode steps in 64-row tiles"), so the skinny kernel does not go first (skinny_first); where it
// is chosen all the same (tune, a table), the TMA-fed form is still its faster one. With at most 8
// rows, or a K-major W (on which the tile kernel was up to twice as slow), the TMA-fed form goes
// first.
bool tf32_tiles_first(const Problem& p, const Sides& s) {
  return p.ab == DataType::f32 && p.tf32 && decode_step(p, s) && s.small > 8 && !s.w->k_major &&
         w_bytes_of(p, s) > kRegisterPathMaxBytes;
}
// A decode step of at most 8 rows, 16-bit, over a W of 512 to 2048 rows stored along them, with a
// long k: both forms split k in at most 8 (a cluster), so the few tiles of such a W (at most 8 of
// 256 rows, batch items included) leave most SMs idle, and the TMA-fed form's stages keep more
// bytes in flight in each of its few CTAs than the register path's warps (docs/shapes.md, "The
// TMA-fed form for a W of few rows and a long k"). It goes first with k of at least 2048 where a
// 256-row tile holds at least 256 of k; at least 1536 where X must first be copied K-major (an
// M-major A), since the copy is a launch of its own.
bool few_rows_long_k(const Problem& p, const Sides& s) {
  if (!s.swapped || s.small > 8 || s.w->k_major || wide(p) || s.big < 512 || p.k < 2048) return false;
  const std::int64_t tile = bulk_tile(mt_for(s.small));
  return cdiv(s.big, tile) * p.batch <= 8 && p.k * tile / s.big >= (x_copy_bytes(p, s, false) == 0 ? 256 : 1536);
}
bool bulk_first(const Problem& p) {
  if (!skinny_shape(p) || p.determinism == Determinism::batch_invariant) return false;
  const Sides s = sides_of(p);
  const bool short_side = decode_step(p, s) || (!s.swapped && s.small <= 8 && s.big >= 1024 && p.k >= 1024);
  const bool mid_columns = s.small > 16 && s.small <= 32 && p.k >= 2048 && w_bytes_of(p, s) >= kMidColumnsMinBytes;
  // What both forms need (shared_reject) dispatch checks when it takes the choice; a problem that
  // fails it goes to the next family whichever form was chosen.
  return ((short_side && w_bytes_of(p, s) > kRegisterPathMaxBytes) || mid_columns || few_rows_long_k(p, s)) &&
         !bulk_reject(p, s);
}

// The checks both forms share, after their own of the types: the GPU, the kind of problem, the
// split, the long operand's vectors (stored along its long side, that side a multiple of
// `big_multiple`; the mma.sync register path, `register_path`, reads any W: w_unaligned) and the
// short one's copy (x_copy_bytes).
std::optional<std::string> shared_reject(const Problem& p, const SkinnyConfig& c, const DeviceState& state,
                                         std::size_t workspace_bytes, std::int64_t max_small, std::int64_t tile,
                                         std::int64_t big_multiple, bool register_path) {
  if (state.cc < 90) return fmt::format("needs an sm_90 GPU (thread-block clusters); this one is sm_{}", state.cc);
  if (p.grouped()) return std::string("grouped GEMM is not offered");
  if (p.determinism == Determinism::batch_invariant)
    return std::string("batch-invariant calls take the tile kernels, whose reduction order does not depend on m");
  if (std::min(p.m, p.n) > max_small)
    return fmt::format("D has more than {} rows and more than {} columns", max_small, max_small);
  if (c.splits < 1 || c.splits > kMaxSplits) return fmt::format("splits of k must be 1 to {}, not {}", kMaxSplits, c.splits);
  if (!register_path && p.k % vec(p) != 0)
    return fmt::format("k = {} is not a multiple of {} (a 16-byte vector)", p.k, vec(p));
  const Sides s = sides_of(p);
  const char* w_name = s.swapped ? "B" : "A";
  if (!register_path && !vector_ready(*s.w, p.batch, vec(p), false))
    return fmt::format("{} (the long operand) is not read in 16-byte vectors: its pointer, leading dimension and batch "
                       "stride must be 16-byte multiples",
                       w_name);
  if (!register_path && !s.w->k_major && s.big % big_multiple != 0)
    return fmt::format("{} (the long operand) is stored along its {} {} side, which is not a multiple of {}", w_name,
                       s.big, s.swapped ? "n" : "m", big_multiple);
  if (const std::size_t bytes = x_copy_bytes(p, s, register_path); bytes > workspace_bytes)
    return fmt::format("{} (the short operand) is copied K-major into the workspace first: {} bytes, the call has {}",
                       s.swapped ? "A" : "B", bytes, workspace_bytes);
  if (cdiv(s.big, tile) * c.splits > INT_MAX) return std::string("too many tiles for one grid");
  return std::nullopt;
}

// The kernels' arguments for p, the short operand first copied K-major into the workspace when it
// is stored otherwise (x_copy_bytes; `register_path`: for the mma.sync one); `step` is the k of
// one warp's step, `warps` the warps of a CTA.
skinny::Args make_args(const Problem& p, const SkinnyConfig& c, const LaunchEnv& env, std::int64_t step, int warps,
                       bool register_path) {
  const Sides s = sides_of(p);
  skinny::Args a;
  a.big = s.big, a.small = s.small, a.k = p.k, a.batch = p.batch;
  a.w = s.w->ptr, a.ldw = s.w->ld, a.stride_w = s.w->stride;
  const std::int64_t w_items = s.w->stride == 0 ? 1 : p.batch;
  a.w_extent = (w_items - 1) * s.w->stride + (s.w->k_major ? (s.big - 1) * s.w->ld + p.k : (p.k - 1) * s.w->ld + s.big);
  a.x = s.x->ptr, a.ldx = s.x->ld, a.stride_x = s.x->stride;
  if (const std::size_t bytes = x_copy_bytes(p, s, register_path); bytes > 0) {
    const std::int64_t items = s.x->stride == 0 ? 1 : p.batch, ld = x_copy_ld(p);
    // The transposes write k of each row; the rest up to a vector is zeroed first (the kernels
    // zero those elements as they read them, but a read of memory never written is still one).
    if (!s.x->k_major && ld != p.k) GEMMLAB_CUDA(cudaMemsetAsync(env.scratch.data, 0, bytes, env.stream));
    if (s.x->k_major && wide(p))  // small rows of k, at an unaligned place
      launch_copy_rows_32(s.x->ptr, s.x->ld, s.x->stride, s.small, p.k, items, env.scratch.data, ld, env.stream);
    else if (s.x->k_major)
      launch_copy_rows_16(s.x->ptr, s.x->ld, s.x->stride, s.small, p.k, items, env.scratch.data, ld, env.stream);
    else if (wide(p))  // k rows of small: transposed
      launch_transpose_f32(static_cast<const float*>(s.x->ptr), s.x->ld, s.x->stride, p.k, s.small, items,
                           reinterpret_cast<float*>(env.scratch.data), ld, env.stream);
    else
      launch_transpose_16(s.x->ptr, s.x->ld, s.x->stride, p.k, s.small, items, env.scratch.data, ld, env.stream);
    a.x = env.scratch.data, a.ldx = ld, a.stride_x = s.x->stride == 0 ? 0 : s.small * ld;
  }
  // D (and C) are row-major m x n: with W = op(B)^T, W's rows are D's columns.
  a.c = p.c, a.stride_c = p.stride_c;
  a.c_big = s.swapped ? 1 : p.ldc, a.c_small = s.swapped ? p.ldc : 1;
  a.d = p.d, a.stride_d = p.stride_d;
  a.d_big = s.swapped ? 1 : p.ldd, a.d_small = s.swapped ? p.ldd : 1;
  a.swapped = s.swapped ? 1 : 0;
  a.splits = c.splits;
  const std::int64_t steps = cdiv(p.k, step), workers = std::int64_t(c.splits) * warps;
  a.steps_each = steps / workers, a.steps_more = steps % workers;
  a.epi = epilogue_params(p);
  return a;
}

// A grid of `tiles` CTAs of `warps` warps (times the split) per batch item, in clusters of
// c.splits along k.
template <class K>
void launch_clustered(K kernel, const skinny::Args& a, std::int64_t tiles, int warps, const SkinnyConfig& c,
                      KernelStream stream) {
  const KernelLaunch run(dim3(unsigned(tiles * c.splits), unsigned(std::min<std::int64_t>(a.batch, 65535)), 1),
                         dim3(unsigned(32 * warps), 1, 1), 0, stream, unsigned(c.splits));
  GEMMLAB_CUDA(run(kernel, a));
}

// The split of k that fills the GPU with `tiles` CTAs (per split), each of their `workers` keeping
// at least `least_steps` of the `steps` k-steps; `resident(s)`: the CTAs resident at once in
// clusters of s. The kernels are bound by memory bandwidth: a last partial wave costs its share of
// a full one, but at least `least_wave` of one (below that it keeps too few bytes in flight to draw
// the bandwidth), and each wave after the first `later_wave` of one more (its CTAs start as the
// earlier ones end, their first loads' latency not hidden). Each split adds 2% for its reduction.
// `powers_of_two`: splits of 1, 2, 4 or 8 only.
template <class Resident>
int splits_for(std::int64_t tiles, std::int64_t steps, int workers, int least_steps, Resident resident, double least_wave,
               double later_wave, bool powers_of_two = false) {
  auto cost = [&](int s) {
    const double waves = double(tiles) * s / double(std::max(1, resident(s))), whole = std::floor(waves),
                 part = waves - whole, later = std::ceil(waves) - 1;
    return (whole + (part > 0 ? std::max(part, least_wave) : 0.0) + later_wave * later) / s * (1.0 + 0.02 * (s - 1));
  };
  int best = 1;
  for (int s = 2; s <= kMaxSplits && steps >= std::int64_t(s) * workers * least_steps; ++s)
    if ((!powers_of_two || (s & (s - 1)) == 0) && cost(s) < cost(best)) best = s;
  return best;
}

// The CTAs of skinny kernel `index` resident at once in clusters of s as prepare_skinny measured
// them; `otherwise` where the context could not.
int resident_ctas(const DeviceState& state, std::size_t index, int s, int otherwise) {
  const std::size_t i = index * kMaxSplits + std::size_t(s - 1);
  const int measured = i < state.skinny_resident.size() ? state.skinny_resident[i] : 0;
  return measured > 0 ? measured : otherwise;
}

// The splits of kernel `index` (launched in clusters of its split, its CTAs of `warps` warps, each
// warp a worker): a warp keeps at least 2 k-steps, a wave draws the bandwidth from 4/5 full, and a
// later wave costs a tenth of one more (fitted on `tune` grids of every split, docs/shapes.md, "The
// split of k by the CTAs resident in clusters" and "The charges of a wave").
// A cluster's CTAs share one GPC, so the CTAs resident at once fall unevenly with the cluster size
// (prepare_skinny measures them); where the context could not, 4 an SM. A W read unaligned
// (`unaligned_w`, skinny.cuh kWU) takes splits of 1, 2, 4 or 8: with 3, 6 or 7 it measured up to
// 1.3 times as slow as with the neighbouring powers of two, which the model of the aligned
// kernel's resident clusters does not see (docs/shapes.md, "W read in place when unaligned").
int clustered_splits(std::int64_t tiles, std::int64_t steps, int warps, const DeviceState& state, std::size_t index,
                     bool unaligned_w = false) {
  const auto resident = [&](int s) { return resident_ctas(state, index, s, 4 * std::max(1, state.props.sm_count)); };
  return splits_for(tiles, steps, warps, 2, resident, 0.8, 0.1, unaligned_w);
}

}  // namespace

void prepare_skinny(DeviceState& state) {
  state.skinny_resident.assign(kSkinnyKernels * kMaxSplits, 0);
  if (state.cc < 90) return;
  // The CTAs of `kernel` resident at once on the GPU in clusters of 1 .. kMaxSplits.
  auto count = [&](auto kernel, int warps, std::size_t index, int smem_bytes = 0) {
    if (!kernel) return;  // a combination the library does not instantiate
    for (int s = 1; s <= kMaxSplits; ++s) {
      cudaLaunchAttribute cluster{};
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = unsigned(s), cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(unsigned(s * std::max(1, state.props.sm_count)), 1, 1);
      config.blockDim = dim3(unsigned(32 * warps), 1, 1);
      config.dynamicSmemBytes = std::size_t(smem_bytes);
      config.attrs = &cluster, config.numAttrs = 1;
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
        (void)cudaGetLastError();
        clusters = 0;
      }
      state.skinny_resident[index * kMaxSplits + std::size_t(s - 1)] = clusters * s;
    }
  };
  // The bf16 -> f32 kernels stand for every 16-bit type pair (their registers differ by a few).
  for (bool is_wide : {false, true})
    for (int mt : {1, 2, 4, 8})
      for (bool w_kmajor : {false, true})
        for (bool x_kmajor : {false, true})
          count(is_wide ? skinny::kernel_tf32(mt, w_kmajor, x_kmajor, false)
                        : skinny::kernel_bf16(true, mt, w_kmajor, x_kmajor, false),
                skinny::kWarps, skinny_mma_kernel_index(mt, is_wide, w_kmajor, x_kmajor));
  for (bool w_kmajor : {false, true})
    for (int s : {1, 2, 4, 8, 16})
      count(skinny_simt::kernel_f32(s, w_kmajor), skinny_simt::warps(w_kmajor, s), skinny_simt_kernel_index(s, w_kmajor));
  // The TMA-fed form's stages take most of an SM's shared memory.
  for (DataType ab : {DataType::bf16, DataType::f16, DataType::f32})
    for (bool f32_out : {false, true})
      for (int mt : {1, 2, 4, 8})
        for (bool w_kmajor : {false, true})
          if (const skinny::BulkKernel k = bulk_kernel_of(ab, f32_out, mt, w_kmajor))
            GEMMLAB_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bulk_smem_bytes(mt)));
  // One CTA an SM by its shared memory, but clusters of s fill the GPCs unevenly (an H200 holds 30
  // clusters of 4, 120 CTAs, where 128 would be one CTA an SM). Its shared memory and threads
  // depend on mt only: the bf16 -> f32 kernel stands for the others.
  for (int mt : {1, 2, 4, 8})
    count(bulk_kernel_of(DataType::bf16, true, mt, false), bulk_threads(mt) / 32, skinny_bulk_kernel_index(mt),
          bulk_smem_bytes(mt));
}

std::size_t skinny_mma_kernel_index(int mt, bool wide, bool w_kmajor, bool x_kmajor) {
  return std::size_t((mt == 1 ? 0 : mt == 2 ? 1 : mt == 4 ? 2 : 3) + (wide ? 4 : 0) + (w_kmajor ? 8 : 0) + (x_kmajor ? 0 : 16));
}
std::size_t skinny_simt_kernel_index(int s, bool w_kmajor) {
  return kSkinnyMmaKernels + std::size_t(2 * (s == 1 ? 0 : s == 2 ? 1 : s == 4 ? 2 : s == 8 ? 3 : 4) + (w_kmajor ? 1 : 0));
}
std::size_t skinny_bulk_kernel_index(int mt) {
  return kSkinnyMmaKernels + kSkinnySimtKernels + std::size_t(mt == 1 ? 0 : mt == 2 ? 1 : mt == 4 ? 2 : 3);
}

bool skinny_shape(const Problem& p) { return std::min(p.m, p.n) <= kMaxSmall; }
bool skinny_first(const Problem& p) {
  if (!skinny_shape(p) || (p.ab == DataType::f32 && !p.tf32)) return false;
  const Sides s = sides_of(p);
  // A decode step or GEMV: m <= 16 against a long operand of thousands of rows and k. Up to a few
  // hundred MB the register path's start (no pipeline to fill, no tile of padding) wins; beyond,
  // for 16-bit operands, it keeps too few bytes in flight (slower than the tile kernel on an H100:
  // docs/shapes.md, "The skinny kernel") and the TMA-fed form takes over (bulk_first).
  // Past that size TF32 takes the TMA-fed form as well (bulk_first) with at most 8 rows, and the
  // register path where that form cannot read its operands: the TF32 tile kernel's 128-row tile is
  // 7/8 padding at 16 rows, and the register path measured faster on an H100 and an H200
  // (docs/shapes.md, "TF32 tiles of 128 rows"). With 9 to 16 rows its 64-row tiles are faster than
  // both forms (tf32_tiles_first).
  if (tf32_tiles_first(p, s)) return false;
  // A W the register path reads unaligned (in place), which the tile kernels copy first: in place
  // from 64 MiB, where the copy's extra pass over W goes to DRAM. Below, with W in the L2, the copy
  // and the tile kernel measured faster (H100: 16 x 4099 x 4097, 34 MB of W, 0.0475 ms against
  // more than 0.048; 5 x 7087 x 12991, 184 MB, 0.1378 against 0.27; docs/shapes.md, "W read in
  // place when unaligned").
  if (w_unaligned(p, s) && w_bytes_of(p, s) < kUnalignedMinBytes) return false;
  const bool decode = decode_step(p, s) && (w_bytes_of(p, s) <= kRegisterPathMaxBytes || p.ab == DataType::f32);
  // A few tiles with a long k (64 x 64 x 65536) are the tile kernels' split-K's (sm90.hpp, tf32.hpp);
  // a batch of small problems (1024 x 64^3) the tile kernel's too, measured far faster there on an
  // H100 (docs/shapes.md, "The skinny kernel").
  return decode || bulk_first(p);
}

std::size_t skinny_workspace_bytes(const Problem& p, const SkinnyConfig& c, const DeviceState& state) {
  if (!skinny_shape(p)) return 0;
  const Sides s = sides_of(p);
  return x_copy_bytes(p, s, !c.bulk) + (c.bulk && c.persistent ? persistent_partials_bytes(p, s, c, state) : 0);
}

std::optional<std::string> skinny_reject(const Problem& p, const SkinnyConfig& c, const DeviceState& state,
                                         std::size_t workspace_bytes) {
  if (p.ab != DataType::bf16 && p.ab != DataType::f16 && p.ab != DataType::f32)
    return std::string("takes bf16, f16 and f32 operands");
  if (p.ab == DataType::f32 && !p.tf32)
    return std::string("multiplies f32 operands as TF32, and the call asks for FP32 products (Compute::f32)");
  if (p.cd != p.ab && p.cd != DataType::f32) return std::string("writes D in the operands' type or f32");
  if (c.bulk != 0 && c.bulk != 1) return fmt::format("bulk must be 0 or 1, not {}", c.bulk);
  if (c.persistent != 0 && c.persistent != 1) return fmt::format("persistent must be 0 or 1, not {}", c.persistent);
  if (c.persistent && !c.bulk) return std::string("persistent: only the TMA-fed form (bulk=1) has a persistent grid");
  if (c.persistent && (p.batch != 1 || p.grouped())) return std::string("persistent: one problem only, not a batch");
  const std::int64_t tile = !skinny_shape(p) ? 1 : c.bulk ? bulk_tile(mt_for(sides_of(p).small)) : tile_big(mt_for(sides_of(p).small));
  if (auto why = shared_reject(p, c, state, workspace_bytes, kMaxSmall, tile, 8, !c.bulk)) return why;
  if (!c.bulk) return std::nullopt;
  const Sides s = sides_of(p);
  if (auto why = bulk_reject(p, s)) return why;
  if (c.persistent) {
    if (persistent_units(p, s) > INT_MAX) return std::string("persistent: too many tiles and stages for the grid's 32-bit units");
    if (const std::int64_t ctas = persistent_ctas(p, s, c, state); ctas > kFlagCount)
      return fmt::format("persistent: {} CTAs ({} tiles times splits {}), past the {} counters of the context", ctas,
                         bulk_tiles(s), c.splits, kFlagCount);
    if (const std::size_t bytes = skinny_workspace_bytes(p, c, state); bytes > workspace_bytes)
      return fmt::format("persistent: the partial sums of shared tiles take {} bytes of workspace, the call has {}", bytes,
                         workspace_bytes);
  }
  return std::nullopt;
}

void launch_skinny(const Problem& p, const SkinnyConfig& c, const LaunchEnv& env) {
  if (auto why = skinny_reject(p, c, *env.device, env.scratch.bytes)) throw Error(fmt::format("skinny kernel: {}", *why));
  const Sides s = sides_of(p);
  const int mt = mt_for(s.small);
  if (c.bulk) {
    // Steps of a stage (bk of k) per CTA: make_args counts them for one worker a CTA.
    const std::int64_t bk = bulk_k(p);
    const skinny::Args a = make_args(p, c, env, bk, 1, false);
    const DType t = p.ab == DataType::bf16 ? DType::bf16 : p.ab == DataType::f16 ? DType::f16 : DType::f32;
    const std::int64_t w_items = a.stride_w == 0 ? 1 : p.batch, x_items = a.stride_x == 0 ? 1 : p.batch;
    // Boxes of 128-byte rows, swizzled: 64 W rows by bk of k (K-major), or bk of k by 128 bytes of
    // W rows (big-major); X's rows (8 mt) by bk of k. W is fetched a box row at a time (tma.hpp,
    // L2Promotion) in either layout: for a K-major W, 256 bytes would also bring the next stage's
    // half of each row, and measured no faster (docs/shapes.md, "L2 promotion for a streamed W").
    const bool wk = s.w->k_major;
    const CUtensorMap w_map = tc::make_tensor_map_3d(a.w, t, wk ? s.big : p.k, wk ? p.k : s.big, a.ldw, w_items, a.stride_w,
                                                     wk ? 64 : int(bk), int(bk), tc::Swizzle::b128, tc::L2Promotion::b128);
    const CUtensorMap x_map =
        tc::make_tensor_map_3d(a.x, t, s.small, p.k, a.ldx, x_items, a.stride_x, 8 * mt, int(bk), tc::Swizzle::b128);
    const skinny::BulkKernel kernel = bulk_kernel_of(p.ab, p.cd == DataType::f32, mt, s.w->k_major);
    if (c.persistent) {
      if (!env.scratch.flags) throw Error("skinny kernel: the persistent grid needs the context's zeroed counters");
      skinny::Args sa = a;
      sa.units = int(persistent_units(p, s)), sa.stages = int(cdiv(p.k, bk));
      sa.partials = reinterpret_cast<float*>(env.scratch.data + x_copy_bytes(p, s, false));
      sa.flags = env.scratch.flags;
      const std::int64_t ctas = persistent_ctas(p, s, c, *env.device);
      const KernelLaunch run(dim3(unsigned(ctas), 1, 1), dim3(unsigned(bulk_threads(mt)), 1, 1),
                             std::size_t(bulk_smem_bytes(mt)), env.queue());
      GEMMLAB_CUDA(run(kernel, w_map, x_map, sa));
      return;
    }
    const KernelLaunch run(dim3(unsigned(bulk_tiles(s) * c.splits), unsigned(std::min<std::int64_t>(p.batch, 65535)), 1),
                           dim3(unsigned(bulk_threads(mt)), 1, 1), std::size_t(bulk_smem_bytes(mt)),
                           env.queue(), unsigned(c.splits));
    GEMMLAB_CUDA(run(kernel, w_map, x_map, a));
    return;
  }
  launch_clustered(kernel_of(p, mt, s.w->k_major, !x_as_stored(p, s, true), w_unaligned(p, s)),
                   make_args(p, c, env, step_k(p), skinny::kWarps, true), cdiv(s.big, tile_big(mt)), skinny::kWarps, c,
                   env.queue());
}

SkinnyConfig skinny_model_choice(const Problem& p, const DeviceState& state, std::size_t workspace_bytes) {
  SkinnyConfig c;
  if (!skinny_shape(p)) return c;
  const Sides s = sides_of(p);
  const int mt = mt_for(s.small);
  if (bulk_first(p)) {
    // One CTA an SM, each a tile of 256 W rows (128 by wgmma); a stage is 128 bytes of k, at
    // least 4 a CTA to fill its pipeline. Its stages keep enough bytes in flight that a half-full
    // wave draws the bandwidth. A wave is the CTAs resident at once in clusters of the split, as
    // prepare_skinny measured them: 32 tiles in clusters of 4 on an H200 (30 resident) run a
    // second wave, where counting one CTA an SM took them for one (docs/shapes.md, "The TMA-fed
    // form's split by its resident clusters").
    c.bulk = 1;
    const int sms = std::max(1, state.props.sm_count);
    const std::int64_t tiles = bulk_tiles(s) * p.batch;
    const auto resident = [&](int splits) { return resident_ctas(state, skinny_bulk_kernel_index(mt), splits, sms); };
    c.splits = splits_for(tiles, cdiv(p.k, bulk_k(p)), 1, 4, resident, 0.5, 0.0);
    // The persistent grid where the tiles make two waves or more (an LM head: 501 tiles of 256
    // rows at 128256) and a tile has at least 64 stages (k of 4096 for 16-bit operands): the plain
    // grid's last wave is partial, and its later waves' CTAs start as earlier ones end, each
    // filling its pipeline again. Under two waves, and with a shorter k (1 x 200000 x 2048), it
    // measured slower: the plain grid's CTAs stand at the same k at the same time, where the
    // persistent grid's shares begin at scattered k, and each cut tile costs its CTAs a store and
    // an addition (docs/shapes.md, "A persistent grid for long decode operands"). One problem
    // only, and its partial sums in the workspace.
    const SkinnyConfig persistent{1, 1, 1};
    if (p.batch == 1 && tiles >= kPersistentMinWaves * sms && cdiv(p.k, bulk_k(p)) >= kPersistentMinStages &&
        skinny_workspace_bytes(p, persistent, state) <= workspace_bytes)
      c = persistent;
    return c;
  }
  c.splits = clustered_splits(cdiv(s.big, tile_big(mt)) * p.batch, cdiv(p.k, step_k(p)), skinny::kWarps, state,
                              skinny_mma_kernel_index(mt, wide(p), s.w->k_major, !x_as_stored(p, s, true)),
                              w_unaligned(p, s));
  return c;
}

std::vector<SkinnyConfig> skinny_configs() {
  return {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {1, 1}, {2, 1}, {4, 1}, {8, 1}, {1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {8, 1, 1}};
}

// ---- The CUDA-core form ----------------------------------------------------------------------

bool skinny_simt_shape(const Problem& p) { return std::min(p.m, p.n) <= kMaxSmallSimt; }

bool skinny_simt_first(const Problem& p) {
  if (!skinny_simt_shape(p) || p.ab != DataType::f32) return false;
  // FP32 operands with at most 16 rows or columns of D: the tile kernels multiply mostly padding
  // there, and where TF32 is allowed, the mma.sync form's conversions cost more than the products
  // it saves. A problem of under a million W elements an item is over before either streams.
  const Sides s = sides_of(p);
  const double w_elems = double(s.big) * double(p.k);
  // With TF32 allowed, the tensor-core kernels are the faster from 8 columns, the mma.sync form
  // over long operands too (H100 and H200, L2 flushed; docs/shapes.md, "TF32 tiles of 128 rows").
  if (p.tf32 && s.small > 4) return false;
  return w_elems >= double(1 << 20);
}

std::size_t skinny_simt_workspace_bytes(const Problem& p) {
  return skinny_simt_shape(p) ? x_copy_bytes(p, sides_of(p), false) : 0;
}

std::optional<std::string> skinny_simt_reject(const Problem& p, const SkinnyConfig& c, const DeviceState& state,
                                              std::size_t workspace_bytes) {
  if (p.ab != DataType::f32 || p.cd != DataType::f32) return std::string("takes f32 operands and writes f32");
  if (c.bulk) return std::string("has no TMA-fed form (bulk)");
  const bool shape = skinny_simt_shape(p), w_kmajor = shape && sides_of(p).w->k_major;
  return shared_reject(p, c, state, workspace_bytes, kMaxSmallSimt,
                       skinny_simt::tile_big(w_kmajor, shape ? s_for(sides_of(p).small) : 1), 4, false);
}

void launch_skinny_simt(const Problem& p, const SkinnyConfig& c, const LaunchEnv& env) {
  if (auto why = skinny_simt_reject(p, c, *env.device, env.scratch.bytes))
    throw Error(fmt::format("skinny CUDA-core kernel: {}", *why));
  const Sides s = sides_of(p);
  const bool w_kmajor = s.w->k_major;
  const int n = s_for(s.small), warps = skinny_simt::warps(w_kmajor, n);
  launch_clustered(skinny_simt::kernel_f32(n, w_kmajor),
                   make_args(p, c, env, skinny_simt::step_k(w_kmajor, n), warps, false),
                   cdiv(s.big, skinny_simt::tile_big(w_kmajor, n)), warps, c, env.queue());
}

SkinnyConfig skinny_simt_model_choice(const Problem& p, const DeviceState& state) {
  SkinnyConfig c;
  if (!skinny_simt_shape(p)) return c;
  const Sides s = sides_of(p);
  const bool w_kmajor = s.w->k_major;
  const int n = s_for(s.small);
  c.splits = clustered_splits(cdiv(s.big, skinny_simt::tile_big(w_kmajor, n)) * p.batch,
                              cdiv(p.k, skinny_simt::step_k(w_kmajor, n)), skinny_simt::warps(w_kmajor, n), state,
                              skinny_simt_kernel_index(n, w_kmajor));
  return c;
}

}  // namespace gemmlab::detail
