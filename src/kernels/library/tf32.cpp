// The library's TF32 kernel, host side (tf32.hpp): checks, plans, the copy of an M-major A, model.
#include "kernels/library/tf32.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/library/operand_copy.hpp"
#include "kernels/library/split_k.hpp"
#include "kernels/library/tf32_table.hpp"
#include "kernels/library/tail.hpp"
#include "kernels/library/transpose.hpp"
#include "kernels/tensor/sm90_launch.hpp"
#include "kernels/tensor/stream_k.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab::detail {

namespace {

// The kernel's tile (tc::sm90::Tf32TileOf, hopper_tf32.cuh): Tf32Config::tile_m (256, 128 or 64) x 128 x 32.
constexpr int kBN = 128, kBK = 32;

#ifdef GEMMLAB_HAVE_SM90A
const std::vector<Tf32Entry>& entries() { return tf32_entries(); }
#else
const std::vector<Tf32Entry>& entries() {
  static const std::vector<Tf32Entry> none;
  return none;
}
#endif

// Co-resident clusters of c's instantiations as prepare_tf32 counted them (DeviceState::tf32_resident:
// tiles of 256 rows alone, in pairs, then of 128 rows alone, in pairs, then of 64 rows alone), or one
// per SM (pair).
std::size_t resident_index(int tile_m, int cluster) {
  return tile_m == 64 ? 4 : std::size_t((tile_m == 128 ? 2 : 0) + (cluster == 2 ? 1 : 0));
}
std::int64_t resident_units(const Tf32Config& c, const DeviceState& state) {
  const std::size_t idx = resident_index(c.tile_m, c.cluster);
  return idx < state.tf32_resident.size() && state.tf32_resident[idx] > 0 ? state.tf32_resident[idx]
                                                                         : state.props.sm_count / c.cluster;
}

// More than two rows of 128-row tiles (m > 256): where 64-row tiles take a longer K, unsplit
// (tf32_small_tiles_where_they_gain, tf32_model_choice).
bool over_two_tile_rows(const Problem& p) { return p.m > 2 * 128; }

const Tf32Entry* find_entry(const Problem& p, const Tf32Config& c) {
  for (const Tf32Entry& e : entries())
    if (e.tile_m == c.tile_m && e.cluster == c.cluster && e.b_k_major == p.b.k_major && e.fused == p.has_epilogue())
      return &e;
  return nullptr;
}

// Operand copies in the workspace, rows padded to kCopyRowBytes (operand_copy.hpp): an
// M-major A is copied K-major (the kernel reads K-major A tiles only), and a K-major A or a B that
// the TMA cannot address is copied row by row (operand_copy.hpp).
bool a_needs_copy(const Problem& p) { return !p.a.k_major || copy_of(p.a, p.m, p.k, p.batch, 4).needed; }
std::int64_t copy_ld(const Problem& p) {
  constexpr std::int64_t per_row = kCopyRowBytes / 4;
  return (p.k + per_row - 1) / per_row * per_row;
}
std::size_t copy_bytes(const Problem& p) {
  const std::int64_t items = p.a.stride == 0 ? 1 : p.batch;
  return a_needs_copy(p) ? align256(std::size_t(items) * std::size_t(p.m) * std::size_t(copy_ld(p)) * 4) : 0;
}
OperandCopy b_copy(const Problem& p) { return copy_of(p.b, p.n, p.k, p.batch, 4); }
std::size_t b_copy_bytes(const Problem& p) { return b_copy(p).bytes; }
std::size_t copies_bytes(const Problem& p) { return copy_bytes(p) + b_copy_bytes(p); }

// Where the copies do not fit `workspace_bytes` whole, a single item is multiplied in blocks of D
// whose copies do (CopyBlocks), one after the other on the stream; each block is a complete GEMM
// of its rows and columns. None (rows 0) where the copies fit, for a batch, or where not even one
// tile's copies fit.
// Blocks that would take more than kMaxBlockWaves times the waves of one launch over all of D are
// refused: the FP32 kernel, which copies nothing of A, is then the faster (it multiplies at about
// an eighth of the TF32 rate).
constexpr std::int64_t kMaxBlockWaves = 3;
CopyBlocks any_blocks(const Problem& p, const Tf32Config& c, const DeviceState& state, std::size_t workspace_bytes) {
  if (copies_bytes(p) <= workspace_bytes || p.batch != 1) return {};
  return copy_blocks(p, a_needs_copy(p) ? std::size_t(copy_ld(p)) * 4 : 0,
                     b_copy(p).needed ? copy_line_bytes(p.b, p.k, 4) : 0, workspace_bytes, c.tile_m, kBN * c.cluster,
                     resident_units(c, state));
}
bool too_many_waves(const Problem& p, const Tf32Config& c, const DeviceState& state, const CopyBlocks& blocks) {
  return blocks.waves > kMaxBlockWaves * whole_waves(p, c.tile_m, kBN * c.cluster, resident_units(c, state));
}
CopyBlocks blocks_for(const Problem& p, const Tf32Config& c, const DeviceState& state, std::size_t workspace_bytes) {
  const CopyBlocks blocks = any_blocks(p, c, state, workspace_bytes);
  return too_many_waves(p, c, state, blocks) ? CopyBlocks{} : blocks;
}

// The copy of op(A)'s rows [r0, r0 + rows) of every item (r0 = 0: all of them) into dst, K-major
// with copy_ld(p) between rows.
void copy_a(const Problem& p, std::int64_t r0, std::int64_t rows, std::int64_t items, float* dst, cudaStream_t s) {
  const float* a = static_cast<const float*>(p.a.ptr);
  if (!p.a.k_major)  // op(A) M x K stored M-major, as K rows of M: its transpose is K-major
    launch_transpose_f32(a + r0, p.a.ld, p.a.stride, p.k, rows, items, dst, copy_ld(p), s);
  else
    launch_copy_rows_32(a + r0 * p.a.ld, p.a.ld, p.a.stride, rows, p.k, items, dst, copy_ld(p), s);
}
// B's copy at `at` (when it needs one) and the operand the kernel reads instead.
Operand copy_b(const Problem& p, unsigned char* at, cudaStream_t s) { return launch_operand_copy(p.b, b_copy(p), at, 4, s); }

// An M-major A with a K-major B (layout TT, and NN or NT with a column-major D): the kernel runs the
// transposed problem D^T = op(B)^T op(A)^T instead, whose A (B^T) is K-major and whose B (A^T) is
// N-major, and writes its result column-major, that is D row-major: no copy of A. Its epilogue
// stores D's columns through the TMA where D allows it (tma_layout_ok), else from registers, which
// a few waves of tiles do not hide: with fewer than kMinSwapTiles tiles the copy measured faster
// (docs/api.md, "Performance").
// Not with split-K (its second pass writes row-major), nor where either operand of the transposed
// problem would need a copy (an A whose rows are off 16 bytes is copied either way, and the direct
// problem copies it in blocks of D where the workspace holds only part of it, where the transposed
// problem, launched whole, was refused and the FP32 kernel took the call; docs/api.md), nor for
// batch-invariant calls: the choice depends on m, and a row of D computed as a column of D^T
// (an operand's place in wgmma swapped) is not promised to round as it would the other way.
constexpr std::int64_t kMinSwapTiles = 256;
Problem swapped(const Problem& p) {
  Problem q = p;
  q.m = p.n, q.n = p.m;
  q.a = {p.b.ptr, p.b.ld, p.b.stride, true};
  q.b = {p.a.ptr, p.a.ld, p.a.stride, false};
  if (p.bias_kind == BiasKind::per_row) q.bias_kind = BiasKind::per_column;
  else if (p.bias_kind == BiasKind::per_column) q.bias_kind = BiasKind::per_row;
  return q;
}
bool swaps(const Problem& p, const Tf32Config& c) {
  return !p.a.k_major && p.b.k_major && c.splits <= 1 && !p.grouped() &&
         p.determinism != Determinism::batch_invariant && cdiv(p.n, c.tile_m) * cdiv(p.m, kBN) * p.batch >= kMinSwapTiles &&
         copies_bytes(swapped(p)) == 0;
}

// Split-K (Tf32Config::splits, split_k.hpp): not with the sliced copy of an M-major A.
SplitK split_of(const Problem& p, const Tf32Config& c) { return split_k_slices(p.k, c.splits, kBK); }
std::size_t split_bytes(const Problem& p, const Tf32Config& c) {
  const SplitK s = split_of(p, c);
  return s.splits > 1 ? split_k_parts_bytes(p, s.splits) : 0;
}

std::int64_t unit_count(const Problem& p, const Tf32Config& c) {
  return cdiv(p.m, c.tile_m) * cdiv(cdiv(p.n, kBN), c.cluster) * p.batch;
}

// Whether the TMA can store D: written row-major, or column-major (the transposed problem) as n
// rows of m, ldd apart.
bool tma_stores_d(const Problem& p, bool d_col_major) {
  return tc::tma_layout_ok(p.d, 4, d_col_major ? p.n : p.m, p.ldd, p.batch, p.stride_d);
}

Tf32Plan make_plan(const Problem& p, const Tf32Config& c, const DeviceState& state, std::size_t workspace_bytes,
                   bool d_col_major = false) {
  Tf32Plan plan;
  plan.d_col_major = d_col_major;
  const std::int64_t units = unit_count(p, c);
  const std::int64_t resident = resident_units(c, state);
  plan.grid_ctas = std::max<std::int64_t>(1, std::min(units, resident)) * c.cluster;
  const std::size_t copy = copies_bytes(p);
  if (c.stream_k != 0 && copy <= workspace_bytes) {
    const GridPlan g = plan_grid(units, resident, cdiv(p.k, kBK), TailMode(c.stream_k));
    const std::int64_t ctas = g.clusters * c.cluster;
    const std::size_t bytes = align256(tc::stream_k_workspace(g.tail.units, ctas, c.tile_m, kBN));
    if (g.tail.units > 0 && copy + bytes <= workspace_bytes && 2 * ctas <= kFlagCount) plan.tail = g.tail, plan.grid_ctas = ctas;
  }
  plan.tma_store = tma_stores_d(p, d_col_major);
  return plan;
}

}  // namespace

void prepare_tf32(DeviceState& state) {
  state.tf32_resident.assign(5, 0);
  if (state.cc != 90) return;
  for (const Tf32Entry& e : entries())
    GEMMLAB_CUDA(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(e.smem_bytes)));
  for (const Tf32Entry& e : entries())
    if (!e.fused && !e.b_k_major)
      state.tf32_resident[resident_index(e.tile_m, e.cluster)] =
          tc::resident_clusters(e.kernel, unsigned(e.threads), e.smem_bytes, e.cluster, state.props.sm_count);
}

std::optional<std::string> tf32_reject(const Problem& p, const Tf32Config& c, const DeviceState& state,
                                       std::size_t workspace_bytes) {
  if (p.ab != DataType::f32 || !p.tf32) return std::string("takes f32 operands when TF32 is allowed (Compute::tf32)");
  if (swaps(p, c)) return tf32_reject(swapped(p), c, state, workspace_bytes);  // which copies nothing
  if (entries().empty()) return std::string("gemmlab was built without sm_90a kernels");
  if (state.cc != 90) return fmt::format("needs an sm_90 GPU (wgmma, TMA); this one is sm_{}", state.cc);
  if (p.grouped()) return std::string("grouped GEMM is not compiled for TF32");
  if (!find_entry(p, c)) return fmt::format("no instantiation with {}-row tiles in clusters of {}", c.tile_m, c.cluster);
  if (copies_bytes(p) > workspace_bytes && (blocks_for(p, c, state, workspace_bytes).rows == 0 || c.splits > 1)) {
    std::string what;
    if (a_needs_copy(p))
      what = p.a.k_major ? "A is not TMA-addressable (pointer, leading dimension and batch stride must be 16-byte "
                           "multiples)"
                         : "A is M-major (the kernel reads K-major A tiles)";
    if (b_copy(p).needed)
      what += std::string(what.empty() ? "" : "; ") +
              "B is not TMA-addressable (pointer, leading dimension and batch stride must be 16-byte multiples)";
    const CopyBlocks blocks = any_blocks(p, c, state, workspace_bytes);
    return fmt::format("{}: the copies in 128-byte rows need {} bytes of workspace ({}); {} are available", what,
                       copies_bytes(p),
                       p.batch > 1 || c.splits > 1 ? "whole: a batch or split-K is not copied in blocks"
                       : blocks.rows > 0
                           ? fmt::format("in blocks of D they would take {} waves of tiles, more than {} times a "
                                         "launch over all of D",
                                         blocks.waves, kMaxBlockWaves)
                           : std::string("or in blocks of D, at least one tile's rows and columns"),
                       workspace_bytes);
  }
  if (unit_count(p, c) > INT_MAX) return std::string("too many tiles for 32-bit tile indices");
  if (c.splits > 1) {
    if (auto why = split_k_refusal(p, c.splits, kBK)) return why;
    if (unit_count(p, c) * split_of(p, c).splits > INT_MAX) return std::string("too many tiles for 32-bit tile indices");
    const std::size_t need = copies_bytes(p) + split_bytes(p, c);
    if (need > workspace_bytes)
      return fmt::format("split-K in {} slices needs {} bytes of workspace for its partial sums{}, the call has {}",
                         split_of(p, c).splits, need, a_needs_copy(p) ? " and A's copy" : "", workspace_bytes);
  }
  return std::nullopt;
}

int tf32_slices(const Problem& p, const Tf32Config& c) { return c.splits > 1 ? split_of(p, c).splits : c.splits; }

std::size_t tf32_workspace_bytes(const Problem& p, const Tf32Config& c, const DeviceState& state,
                                 std::size_t workspace_bytes) {
  if (swaps(p, c)) return tf32_workspace_bytes(swapped(p), c, state, workspace_bytes);
  if (c.splits > 1) return copies_bytes(p) + split_bytes(p, c);
  if (c.splits <= 1)
    if (const CopyBlocks blocks = blocks_for(p, c, state, workspace_bytes); blocks.rows > 0)  // no stream-K tail
      return blocks.a_bytes + blocks.b_bytes;
  const Tf32Plan plan = make_plan(p, c, state, workspace_bytes);
  return copies_bytes(p) + align256(tc::stream_k_workspace(plan.tail.units, plan.grid_ctas, c.tile_m, kBN));
}

namespace {

// Split-K: A's K-major copy if it needs one, the slices' partial sums after it, then the second pass.
void launch_split(const Problem& p, const Tf32Config& c, const LaunchEnv& env) {
  if (copies_bytes(p) + split_bytes(p, c) > env.scratch.bytes)
    throw Error(fmt::format("tf32 kernel: split-K needs {} bytes of workspace, the call has {}",
                            copies_bytes(p) + split_bytes(p, c), env.scratch.bytes));
  Problem q = p;
  q.b = copy_b(p, env.scratch.data, env.stream);
  unsigned char* after_b = env.scratch.data + b_copy_bytes(p);
  if (a_needs_copy(p)) {
    copy_a(p, 0, p.m, 1, reinterpret_cast<float*>(after_b), env.stream);
    q.a = {after_b, copy_ld(p), 0, true};
  }
  const SplitK s = split_of(q, c);
  float* parts = reinterpret_cast<float*>(after_b + copy_bytes(p));
  const Problem part = split_k_first_pass(q, s.splits, parts);
  Tf32Config pc = c;
  pc.splits = 1, pc.stream_k = 0;
  const Tf32Entry* e = find_entry(part, pc);
  if (!e) throw Error("tf32 kernel: split-K's first pass is not compiled for this layout");
  Tf32Plan plan = make_plan(part, pc, *env.device, 0);
  plan.k_split = s.k_tiles;
  e->launch(part, pc, env, plan);
  launch_split_k_reduce(q, parts, s.splits, env.device->props.sm_count, env.stream);
}

// The copies of A and B the problem needs, then one launch (with its stream-K tail) over them.
void launch_whole(const Problem& p, const Tf32Config& c, const LaunchEnv& env, const Tf32Entry& e, bool d_col_major) {
  Tf32Plan plan = make_plan(p, c, *env.device, env.scratch.bytes, d_col_major);
  // The workspace: B's copy, A's copy, then the stream-K tail's partial sums.
  Problem q = p;
  q.b = copy_b(p, env.scratch.data, env.stream);
  unsigned char* after_b = env.scratch.data + b_copy_bytes(p);
  if (a_needs_copy(p)) {
    const std::int64_t items = p.a.stride == 0 ? 1 : p.batch;
    copy_a(p, 0, p.m, items, reinterpret_cast<float*>(after_b), env.stream);
    q.a = {after_b, copy_ld(p), p.a.stride == 0 ? 0 : p.m * copy_ld(p), true};
  }
  plan.stream_k = reinterpret_cast<float*>(after_b + copy_bytes(p));
  e.launch(q, c, env, plan);
}

}  // namespace

void launch_tf32(const Problem& p, const Tf32Config& c, const LaunchEnv& env) {
  const bool swap = swaps(p, c);
  const Tf32Entry* e = find_entry(swap ? swapped(p) : p, c);
  if (!e) throw Error(fmt::format("tf32 kernel: {}", tf32_reject(p, c, *env.device, env.scratch.bytes).value_or("?")));
  if (swap) return launch_whole(swapped(p), c, env, *e, true);
  if (c.splits > 1) return launch_split(p, c, env);
  if (const CopyBlocks blocks = blocks_for(p, c, *env.device, env.scratch.bytes); blocks.rows > 0) {
    // B's columns of a block copied (if they need it) to the front of the workspace, then op(A)'s
    // rows of each block after them. D (and C, and the bias) are row-major in the normalised problem.
    unsigned char* a_at = env.scratch.data + blocks.b_bytes;
    for (std::int64_t n0 = 0; n0 < p.n; n0 += blocks.cols) {
      const std::int64_t cols = std::min(blocks.cols, p.n - n0);
      const Problem columns = block_of(p, 0, p.m, n0, cols);
      if (b_copy_bytes(columns) > blocks.b_bytes) throw Error("tf32 kernel: a block's copy of B overruns its workspace");
      const Operand b = copy_b(columns, env.scratch.data, env.stream);
      for (std::int64_t r0 = 0; r0 < p.m; r0 += blocks.rows) {
        Problem q = block_of(p, r0, std::min(blocks.rows, p.m - r0), n0, cols);
        if (copy_bytes(q) > blocks.a_bytes) throw Error("tf32 kernel: a block's copy of A overruns its workspace");
        if (a_needs_copy(q)) {
          copy_a(q, 0, q.m, 1, reinterpret_cast<float*>(a_at), env.stream);
          q.a = {a_at, copy_ld(q), 0, true};
        }
        q.b = b;
        Tf32Plan plan = make_plan(q, c, *env.device, 0);  // no stream-K tail: the workspace holds the copies
        e->launch(q, c, env, plan);
      }
    }
    return;
  }
  launch_whole(p, c, env, *e, false);
}

CopyBlocks tf32_copy_blocks(const Problem& p, const Tf32Config& c, const DeviceState& state, std::size_t workspace_bytes) {
  return swaps(p, c) || c.splits > 1 ? CopyBlocks{} : blocks_for(p, c, state, workspace_bytes);
}

std::optional<Tf32LaunchShape> tf32_launch_shape(const Problem& problem, const Tf32Config& c, const DeviceState& state) {
  const Problem p = swaps(problem, c) ? swapped(problem) : problem;
  const Tf32Entry* e = find_entry(p, c);
  if (!e) return std::nullopt;
  return Tf32LaunchShape{e->kernel, e->threads, e->smem_bytes, make_plan(p, c, state, 0).grid_ctas};
}

Tf32Config tf32_model_choice(const Problem& p, const DeviceState& state, std::size_t workspace_bytes,
                             bool batch_invariant) {
  Tf32Config c;
  if (batch_invariant) return c;
  // Tiles of 128 rows where 256 would be half padding or more (m <= 128), or would fill at most
  // half the SMs (1000^3: 32 tiles of 256 x 128 for 132 SMs, 64 of 128 x 128); one wave of 256-row
  // tiles (2048^3: 128) stays, rather than two of 128-row ones. Of 64 rows by the same measure
  // (tf32_small_tiles_where_they_gain).
  const std::int64_t sms = std::max(1, state.props.sm_count);
  if (p.m <= 128 || 2 * cdiv(p.m, 256) * cdiv(p.n, kBN) * p.batch <= sms) c.tile_m = 128;
  // A D the TMA cannot store (rows off 16 bytes: an odd n) leaves the 256-row tiles of an N-major
  // B through their fragments' stores, 16 or 32 bytes of 4 rows at a time (the copy out of shared
  // memory made those kernels spill: hopper_tf32.cuh), and 128-row tiles through the staged copy,
  // whole rows at a time. Where K is short the stores weigh: `gemmlab tune` on the H100 had 128-row
  // tiles faster up to K of about 2000 and 256-row ones ahead beyond (docs/shapes.md, "The staged
  // epilogue").
  if (c.tile_m == 256 && p.k <= 2048 && !p.b.k_major && !p.reads_c() && !p.grouped() && !swaps(p, c) &&
      !tma_stores_d(p, false))
    c.tile_m = 128;
  c = tf32_small_tiles_where_they_gain(p, c, state);
  // Clusters of 2 where there is more than one wave of tiles (the shared A tile halves A's L2
  // traffic: faster at 4096^3 on the H100) and 1 below (2048^3: 128 tiles, one wave, slower with
  // clusters; docs/kernels/tensor-ladder.md, 8.4); not over a single row of tiles, whose A is one
  // tile that every CTA finds in L2 (slower in pairs on both GPUs; docs/shapes.md, "TF32 tiles of
  // 128 rows").
  const std::int64_t tiles = cdiv(p.m, c.tile_m) * cdiv(p.n, kBN);
  c.cluster = c.tile_m != 64 && tiles * p.batch > sms && p.m > c.tile_m ? 2 : 1;  // 64 rows: alone
  c = tf32_pairs_where_rows_read_slowly(p, c, state);
  c.stream_k = int(TailMode::when_faster);
  // Split-K where the tiles fill at most half the GPU and K is long, as sm90_model_choice: slices
  // of at least 16 k-tiles (512 deep, the 16-bit kernel's minimum), their partial sums weighed
  // against the operand bytes the tiles read, re-reads included (docs/shapes.md, "Split-K counts
  // the tiles' re-reads"). Not of 64-row tiles over more than two rows of 128: their K is at most
  // twice m or n, and whole tiles measured faster than slices of them.
  if (c.tile_m != 64 || !over_two_tile_rows(p)) {
    constexpr std::int64_t kMinSliceTiles = 16;
    Tf32Config alone = c;
    alone.cluster = 1;
    const std::int64_t resident = resident_units(alone, state);
    const std::size_t copy = copies_bytes(p), room = workspace_bytes > copy ? workspace_bytes - copy : 0;
    if (const std::int64_t splits = split_k_model(p, c.tile_m, kBN, true, resident, kBK, kMinSliceTiles, room); splits >= 2)
      c.cluster = 1, c.stream_k = 0, c.splits = int(splits);
  }
  return c;
}

std::size_t tf32_copies_bytes(const Problem& p) { return copies_bytes(p); }

bool tf32_swaps(const Problem& p, const Tf32Config& c) { return swaps(p, c); }

Tf32Config tf32_pairs_where_rows_read_slowly(const Problem& p, Tf32Config c, const DeviceState& state) {
  constexpr std::int64_t kMinKTiles = 8;
  constexpr std::size_t kSector = 32;
  if (c.tile_m == 64 || c.cluster != 1 || c.splits > 1 || p.grouped() || p.m <= c.tile_m || p.n <= kBN ||
      cdiv(p.k, kBK) < kMinKTiles || swaps(p, c) || a_needs_copy(p))
    return c;
  // A read in place (a copy has rows of 128-byte multiples) with rows off the sectors: pairs share
  // A, not B, and where only B's rows (or A's off the lines but on the sectors) were slow, pairs
  // and single tiles measured close to each other either way.
  const bool a_slow = !rows_aligned(p.a.ptr, p.a.ld, 0, 1, 4, kSector);
  const std::int64_t tiles = cdiv(p.m, c.tile_m) * cdiv(p.n, kBN) * p.batch;
  if (a_slow && 2 * tiles > std::max(1, state.props.sm_count)) c.cluster = 2;
  return c;
}

Tf32Config tf32_small_tiles_where_they_gain(const Problem& p, Tf32Config c, const DeviceState& state) {
  if (c.tile_m != 128 || c.cluster != 1 || c.splits > 1 || p.grouped()) return c;
  // As sm90_small_tiles_where_they_gain: 128-row tiles leaving half the SMs idle, over more than 64
  // columns (the tile is 128 wide, half padding either way), and a K no longer than m or n (a
  // longer one is split-K's or the stream-K tail's, on bigger tiles). Over more than two rows of
  // 128-row tiles (over_two_tile_rows), K up to twice the longer side: there whole 64-row tiles measured
  // faster than 128-row ones split or with a tail; over one or two rows, as often slower. Where
  // looser rules lost: docs/shapes.md, "64-row TF32 tiles" and "64-row TF32 tiles at a longer K".
  const std::int64_t tiles = cdiv(p.m, 128) * cdiv(p.n, kBN) * p.batch;
  const std::int64_t longest_k = (over_two_tile_rows(p) ? 2 : 1) * std::max(p.m, p.n);
  const bool few_tiles = 2 * tiles <= resident_units(c, state) && p.k <= longest_k && p.n > 64;
  if (p.m <= 64 || few_tiles) c.tile_m = 64;
  return c;
}

std::vector<Tf32Config> tf32_configs() {
  std::vector<Tf32Config> out;
  for (int tile_m : {256, 128, 64}) {
    for (int cluster : {1, 2})
      for (int sk : {0, 1})
        if (tile_m != 64 || cluster == 1) out.push_back({cluster, 8, sk, 1, tile_m});  // 64 rows: alone
    out.push_back({1, 8, 0, 4, tile_m});  // K in 4 slices
  }
  return out;
}

}  // namespace gemmlab::detail
