// The library's Hopper 16-bit kernel, host side: the checks, plans and model of sm90.hpp. The
// instantiations live in the sm90_*.sm90a.cu files, built only when sm_90 is a target
// architecture; without them every problem is refused here. An operand the TMA cannot address
// (a pointer, leading dimension or batch stride that is not a 16-byte multiple: odd K or N, a
// sub-matrix view) is first copied into the workspace with rows of a 16-byte multiple, block by
// block of D where the whole copies do not fit (operand_copy.hpp, CopyBlocks).
#include "kernels/library/sm90.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <string>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/library/operand_copy.hpp"
#include "kernels/library/sm90_table.hpp"
#include "kernels/library/split_k.hpp"
#include "kernels/library/tail.hpp"
#include "kernels/stream_k_flags.hpp"
#include "kernels/tensor/sm90_launch.hpp"
#include "kernels/tensor/stream_k.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab::detail {

namespace {

constexpr int kBK = 64;

// How long a dense launch of height x width tiles takes, in units of one tile row-column: as many
// rounds as its fullest SM has tiles, each as long as a tile's area.
double rounds_x_area(const Problem& p, int sms, std::int64_t height, std::int64_t width) {
  return double(cdiv(cdiv(p.m, height) * p.batch * cdiv(p.n, width), sms) * height * width);
}

// The tile configurations, as indexed in DeviceState::sm90_resident. A cluster of 2 pairs tiles
// along the side that shares the larger operand tile (hopper.cuh): 128 x 256 tiles along M (sharing
// B), 128 x 64 tiles along N (sharing A). A new tile goes last: the dispatch tests' device and the
// lab's approximate_state (hopper.sm90a.cu) fill sm90_resident by position.
constexpr Sm90Config kTiles[] = {{128, 256, 1}, {128, 256, 2}, {128, 192, 1}, {128, 128, 1}, {128, 64, 1},
                                 {128, 64, 2},  {64, 64, 1},   {64, 32, 1},   {192, 96, 1}};
constexpr int kTileCount = int(std::size(kTiles));
int tile_index(const Sm90Config& c) {
  for (int i = 0; i < kTileCount; ++i)
    if (kTiles[i].tile_m == c.tile_m && kTiles[i].tile_n == c.tile_n && kTiles[i].cluster == c.cluster) return i;
  return -1;
}

// Co-resident clusters of configuration c's tile as counted by prepare_sm90, or one per SM (pair)
// where it has not counted them.
std::int64_t counted_resident(const Sm90Config& c, const DeviceState& state) {
  const int idx = tile_index(c);
  if (idx >= 0 && std::size_t(idx) < state.sm90_resident.size() && state.sm90_resident[std::size_t(idx)] > 0)
    return state.sm90_resident[std::size_t(idx)];
  return std::max(1, state.props.sm_count / std::max(1, c.cluster));
}

#ifdef GEMMLAB_HAVE_SM90A
const std::vector<Sm90Entry>* table_for(DataType ab, DataType cd) {
  if (ab == DataType::bf16) return cd == DataType::f32 ? &sm90_entries_bf16_f32() : &sm90_entries_bf16_bf16();
  if (ab == DataType::f16) return cd == DataType::f32 ? &sm90_entries_f16_f32() : &sm90_entries_f16_f16();
  return nullptr;
}
const std::vector<const std::vector<Sm90Entry>*> all_tables() {
  return {&sm90_entries_bf16_f32(), &sm90_entries_bf16_bf16(), &sm90_entries_f16_f32(), &sm90_entries_f16_f16()};
}
#else
const std::vector<Sm90Entry>* table_for(DataType, DataType) { return nullptr; }
const std::vector<const std::vector<Sm90Entry>*> all_tables() { return {}; }
#endif

// The cluster's extent along M and along N (pairs share the larger operand tile).
int cluster_m(const Sm90Config& c) { return c.tile_n > c.tile_m ? c.cluster : 1; }
int cluster_n(const Sm90Config& c) { return c.tile_n > c.tile_m ? 1 : c.cluster; }

const Sm90Entry* find_entry(const Problem& p, const Sm90Config& c) {
  const std::vector<Sm90Entry>* table = table_for(p.ab, p.cd);
  if (!table) return nullptr;
  for (const Sm90Entry& e : *table)
    if (e.tile_m == c.tile_m && e.tile_n == c.tile_n && e.cluster == c.cluster && e.a_k_major == p.a.k_major &&
        e.b_k_major == p.b.k_major && e.fused == p.has_epilogue() && e.grouped == p.grouped())
      return &e;
  return nullptr;
}

// Units of the schedule (a unit is a cluster's tiles): exact for dense launches, an upper bound for
// grouped ones (each group may end in a partial tile row).
std::int64_t unit_count(const Problem& p, const Sm90Config& c) {
  const std::int64_t tiles_n = cdiv(p.n, c.tile_n);
  if (p.grouped()) return (cdiv(p.m, c.tile_m) + p.groups) * tiles_n;
  return cdiv(cdiv(p.m, c.tile_m), cluster_m(c)) * cdiv(tiles_n, cluster_n(c)) * p.batch;
}

// The copies of the operands the TMA cannot address (operand_copy.hpp).
struct Copies {
  OperandCopy a, b;
  std::size_t bytes() const { return a.bytes + b.bytes; }
  // "A is", "B is" or "A and B are", and why (the start of a refusal).
  std::string not_addressable() const {
    return fmt::format("{} not TMA-addressable (pointer, leading dimension and batch stride must be 16-byte multiples)",
                       a.needed && b.needed ? "A and B are" : a.needed ? "A is" : "B is");
  }
};
Copies copies_for(const Problem& p) {
  return {copy_of(p.a, p.m, p.k, p.grouped() ? 1 : p.batch, 2), copy_of(p.b, p.n, p.k, p.grouped() ? p.groups : p.batch, 2)};
}

// An operand read in place (a copy has rows of 128-byte multiples) whose rows do not all start on a
// multiple of `bytes` (the first item's: its pointer and leading dimension).
bool rows_off(const Problem& p, const Operand& o, bool copied, std::size_t bytes) {
  return !copied && !rows_aligned(o.ptr, o.ld, 0, 1, size_of(p.ab), bytes);
}
// Rows off the 32-byte sectors: the TMA reads such rows at about half speed (docs/shapes.md,
// "Copies in rows of 128 bytes").
bool rows_off_sectors(const Problem& p, const Operand& o, bool copied) { return rows_off(p, o, copied, 32); }

// Blocks of D for a single problem whose copies do not fit the workspace (CopyBlocks); none for a
// batch, a grouped problem or split-K.
CopyBlocks blocks_for(const Problem& p, const Sm90Config& c, const DeviceState& state, std::size_t workspace_bytes) {
  if (p.grouped() || p.batch != 1 || c.splits > 1) return {};
  const Copies copies = copies_for(p);
  return copy_blocks(p, copies.a.needed ? copy_line_bytes(p.a, p.k, 2) : 0,
                     copies.b.needed ? copy_line_bytes(p.b, p.k, 2) : 0, workspace_bytes, c.tile_m * cluster_m(c),
                     c.tile_n * cluster_n(c), counted_resident(c, state));
}

// Split-K (Sm90Config::splits, split_k.hpp).
SplitK split_of(const Problem& p, const Sm90Config& c) { return split_k_slices(p.k, c.splits, kBK); }
std::size_t split_bytes(const Problem& p, const Sm90Config& c) {
  const SplitK s = split_of(p, c);
  return s.splits > 1 ? split_k_parts_bytes(p, s.splits) : 0;
}

Sm90Plan make_plan(const Problem& p, const Sm90Config& c, const DeviceState& state, const Sm90Entry& e,
                   std::size_t workspace_bytes) {
  Sm90Plan plan;
  const std::int64_t units = unit_count(p, c);
  const int idx = tile_index(c);
  const std::int64_t resident = idx >= 0 && std::size_t(idx) < state.sm90_resident.size() ? state.sm90_resident[std::size_t(idx)]
                                                                                          : state.props.sm_count / c.cluster;
  plan.grid_ctas = std::max<std::int64_t>(1, std::min(units, resident)) * c.cluster;
  if (e.stream_k && c.stream_k != 0 && !p.grouped()) {
    const GridPlan g = plan_grid(units, resident, cdiv(p.k, kBK), TailMode(c.stream_k));
    const std::int64_t ctas = g.clusters * c.cluster;
    const std::size_t bytes = tc::stream_k_workspace(g.tail.units, ctas, c.tile_m, c.tile_n);
    if (g.tail.units > 0 && bytes <= workspace_bytes && 2 * ctas <= kFlagCount) plan.tail = g.tail, plan.grid_ctas = ctas;
  }
  const std::size_t es = size_of(p.cd);
  const std::int64_t d_depth = p.grouped() ? 1 : p.batch;
  plan.tma_store = tc::tma_layout_ok(p.d, es, p.m, p.ldd, d_depth, p.stride_d);
  plan.pair_stores = rows_aligned(p.d, p.ldd, p.stride_d, d_depth, es, 2 * es);
  return plan;
}

}  // namespace

void prepare_sm90(DeviceState& state) {
  state.sm90_resident.assign(std::size_t(kTileCount), 0);
  if (state.cc != 90) return;
  for (const std::vector<Sm90Entry>* table : all_tables())
    for (const Sm90Entry& e : *table)
      GEMMLAB_CUDA(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(e.smem_bytes)));
  // Every instantiation of a tile configuration has the same block, shared memory and register
  // budget (launch bounds), so one of them stands for all.
  const std::vector<const std::vector<Sm90Entry>*> tables = all_tables();
  if (tables.empty()) return;
  for (int i = 0; i < kTileCount; ++i)
    for (const Sm90Entry& e : *tables.front())
      if (e.tile_m == kTiles[i].tile_m && e.tile_n == kTiles[i].tile_n && e.cluster == kTiles[i].cluster) {
        state.sm90_resident[std::size_t(i)] =
            tc::resident_clusters(e.kernel, unsigned(e.threads), e.smem_bytes, e.cluster, state.props.sm_count);
        break;
      }
}

std::optional<std::string> sm90_reject(const Problem& p, const Sm90Config& c, const DeviceState& state,
                                       std::size_t workspace_bytes) {
  if (p.ab != DataType::bf16 && p.ab != DataType::f16) return std::string("takes bf16 and f16 operands");
  if (all_tables().empty()) return std::string("gemmlab was built without sm_90a kernels");
  if (state.cc != 90) return fmt::format("needs an sm_90 GPU (wgmma, TMA); this one is sm_{}", state.cc);
  if (tile_index(c) < 0) return fmt::format("no {}x{} tile in clusters of {} is compiled", c.tile_m, c.tile_n, c.cluster);
  if (!find_entry(p, c))
    return fmt::format("not compiled for this problem ({}x{} tiles in clusters of {}, layout {}, {} epilogue, {})",
                       c.tile_m, c.tile_n, c.cluster, p.layout_name(), p.has_epilogue() ? "fused" : "plain",
                       p.grouped() ? "grouped" : "dense");
  const Copies copies = copies_for(p);
  // Grouped launches read operands in place: with a copied M-major A (K = 33, 127 rows) the grouped
  // kernel's TMA loads stopped with an illegal instruction on the H100, a cause not found yet.
  if (p.grouped() && (copies.a.needed || copies.b.needed))
    return copies.not_addressable() + "; grouped problems are not copied";
  // Copies that do not fit are made block by block of D (the largest block stands for all).
  const CopyBlocks blocks = copies.bytes() > workspace_bytes ? blocks_for(p, c, state, workspace_bytes) : CopyBlocks{};
  if (copies.bytes() > workspace_bytes && blocks.rows == 0)
    return fmt::format("{} and the copy in 128-byte rows needs {} bytes of workspace ({}), the call has {}",
                       copies.not_addressable(), copies.bytes(),
                       p.batch > 1 || c.splits > 1 ? "whole: a batch or split-K is not copied in blocks"
                                                   : "or in blocks of D, at least one tile's rows and columns",
                       workspace_bytes);
  const Copies checked =
      blocks.rows > 0 ? copies_for(block_of(p, 0, blocks.rows, 0, std::min(blocks.cols, p.n))) : copies;
  // The copies' own layout (an aligned base stands for the workspace's).
  alignas(256) static const unsigned char kAligned[1] = {};
  for (const OperandCopy* copy : {&checked.a, &checked.b})
    if (copy->needed && !tc::tma_layout_ok(kAligned, 2, copy->rows, copy->ld, copy->items, copy->rows * copy->ld))
      return fmt::format("an operand of {} x {} elements is too large for the TMA", copy->rows, copy->cols);
  if (unit_count(p, c) > INT_MAX) return std::string("too many tiles for 32-bit tile indices");
  if (c.splits > 1) {
    if (auto why = split_k_refusal(p, c.splits, kBK)) return why;
    const std::size_t need = copies.bytes() + split_bytes(p, c);
    if (need > workspace_bytes)
      return fmt::format("split-K in {} slices needs {} bytes of workspace for its partial sums, the call has {}",
                         split_of(p, c).splits, need, workspace_bytes);
  }
  return std::nullopt;
}

int sm90_slices(const Problem& p, const Sm90Config& c) { return c.splits > 1 ? split_of(p, c).splits : c.splits; }

std::size_t sm90_workspace_bytes(const Problem& p, const Sm90Config& c, const DeviceState& state,
                                 std::size_t workspace_bytes) {
  const Sm90Entry* e = find_entry(p, c);
  if (!e) return 0;
  const std::size_t copies = copies_for(p).bytes();
  if (copies > workspace_bytes) {  // in blocks, without a stream-K tail (or refused by sm90_reject)
    const CopyBlocks blocks = blocks_for(p, c, state, workspace_bytes);
    return blocks.rows > 0 ? blocks.a_bytes + blocks.b_bytes : copies;
  }
  if (c.splits > 1) return copies + split_bytes(p, c);
  const Sm90Plan plan = make_plan(p, c, state, *e, workspace_bytes - copies);
  return copies + tc::stream_k_workspace(plan.tail.units, plan.grid_ctas, c.tile_m, c.tile_n);
}

namespace {

// D block by block when the operands' copies do not fit the workspace whole (CopyBlocks): B's
// columns of a block copied to the front of the workspace, then A's rows of each block after them.
void launch_blocks(const Problem& p, const Sm90Config& c, const LaunchEnv& env, const Sm90Entry& e) {
  const CopyBlocks blocks = blocks_for(p, c, *env.device, env.scratch.bytes);
  if (blocks.rows == 0)
    throw Error(fmt::format("sm90 kernel: {}", sm90_reject(p, c, *env.device, env.scratch.bytes).value_or("?")));
  LaunchEnv rest = env;  // after the copies (no stream-K tail: it would need more of the workspace)
  rest.scratch.data += blocks.b_bytes + blocks.a_bytes;
  rest.scratch.bytes -= blocks.b_bytes + blocks.a_bytes;
  for (std::int64_t n0 = 0; n0 < p.n; n0 += blocks.cols) {
    const std::int64_t cols = std::min(blocks.cols, p.n - n0);
    const Operand b = block_of(p, 0, p.m, n0, cols).b;
    const OperandCopy b_copy = copy_of(b, cols, p.k, 1, 2);
    if (b_copy.bytes > blocks.b_bytes) throw Error("sm90 kernel: a block's copy of B overruns its workspace");
    const Operand b_read = launch_operand_copy(b, b_copy, env.scratch.data, 2, env.stream);
    for (std::int64_t r0 = 0; r0 < p.m; r0 += blocks.rows) {
      Problem q = block_of(p, r0, std::min(blocks.rows, p.m - r0), n0, cols);
      const OperandCopy a_copy = copy_of(q.a, q.m, p.k, 1, 2);
      if (a_copy.bytes > blocks.a_bytes) throw Error("sm90 kernel: a block's copy of A overruns its workspace");
      q.a = launch_operand_copy(q.a, a_copy, env.scratch.data + blocks.b_bytes, 2, env.stream);
      q.b = b_read;
      e.launch(q, c, rest, make_plan(q, c, *env.device, e, 0));
    }
  }
}

}  // namespace

void launch_sm90(const Problem& p, const Sm90Config& c, const LaunchEnv& env) {
  if (p.grouped() && p.m == 0) return;
  const Sm90Entry* e = find_entry(p, c);
  if (!e) throw Error(fmt::format("sm90 kernel: {}", sm90_reject(p, c, *env.device, env.scratch.bytes).value_or("no instantiation")));
  // Operands the TMA cannot address are copied first, on the same stream; the stream-K tail gets
  // the workspace after the copies.
  const Copies copies = copies_for(p);
  if (copies.bytes() > env.scratch.bytes) return launch_blocks(p, c, env, *e);
  Problem q = p;
  LaunchEnv rest = env;
  // The copies at the front of the workspace (A's, then B's), in one launch.
  launch_operand_copies(q.a, copies.a, rest.scratch.data, q.b, copies.b, rest.scratch.data + copies.a.bytes, 2, env.stream);
  rest.scratch.data += copies.bytes();
  rest.scratch.bytes -= copies.bytes();
  if (const SplitK s = split_of(q, c); s.splits > 1) {
    // The partial sums at the front of the rest of the workspace, then the second pass.
    const std::size_t bytes = split_bytes(q, c);
    if (bytes > rest.scratch.bytes)
      throw Error(fmt::format("sm90 kernel: split-K needs {} bytes of workspace, the call has {}", bytes, rest.scratch.bytes));
    float* parts = reinterpret_cast<float*>(rest.scratch.data);
    const Problem part = split_k_first_pass(q, s.splits, parts);
    Sm90Config pc = c;
    pc.splits = 1, pc.stream_k = 0;
    const Sm90Entry* pe = find_entry(part, pc);
    if (!pe) throw Error("sm90 kernel: split-K's first pass is not compiled for this layout");
    Sm90Plan plan = make_plan(part, pc, *env.device, *pe, 0);
    plan.k_split = s.k_tiles;
    LaunchEnv after = rest;
    after.scratch.data += bytes, after.scratch.bytes -= bytes;
    pe->launch(part, pc, after, plan);
    launch_split_k_reduce(q, parts, s.splits, env.device->props.sm_count, env.stream);
    return;
  }
  e->launch(q, c, rest, make_plan(q, c, *env.device, *e, rest.scratch.bytes));
}

CopyBlocks sm90_copy_blocks(const Problem& p, const Sm90Config& c, const DeviceState& state, std::size_t workspace_bytes) {
  return copies_for(p).bytes() > workspace_bytes ? blocks_for(p, c, state, workspace_bytes) : CopyBlocks{};
}

std::optional<Sm90LaunchShape> sm90_launch_shape(const Problem& p, const Sm90Config& c, const DeviceState& state) {
  if (const SplitK s = split_of(p, c); s.splits > 1) {  // the first pass (the second is a small kernel)
    Sm90Config pc = c;
    pc.splits = 1, pc.stream_k = 0;
    return sm90_launch_shape(split_k_first_pass(p, s.splits, nullptr), pc, state);
  }
  const Sm90Entry* e = find_entry(p, c);
  if (!e) return std::nullopt;
  const Sm90Plan plan = make_plan(p, c, state, *e, 0);
  return Sm90LaunchShape{e->kernel, e->threads, e->smem_bytes, plan.grid_ctas};
}

double sm90_wave_fill(const Problem& p, const Sm90Config& c, const DeviceState& state) {
  if (p.grouped() || c.splits > 1) return 1.0;  // the GPU's offsets decide; slices fill by design
  const std::int64_t resident = counted_resident(c, state), units = unit_count(p, c);
  return double(units) / double(cdiv(units, resident) * resident);
}

namespace {

// The fewest waves of 128 x 256 tiles for which the model takes them rather than 128 x 128 ones.
double wide_tiles_min_waves(const Problem& p, std::size_t workspace_bytes) {
  // From 0.6 of a wave, one round of 128 x 256 tiles beat two rounds of 128 x 128 ones (twice as
  // many tiles, 1.2 to 2 waves), whose stream-K tail was modelled to share out the second round:
  // the narrower tiles read a third more operand bytes a FLOP, and the tail's fix-ups cost more than
  // the model counts. Below 0.6 of a wave the 128-wide tiles won. Where the copies of unaligned
  // operands do not fit the workspace, the tiles decide how D is cut into blocks, each a launch,
  // and wide tiles lost: a whole wave there. Grouped problems keep the whole wave too (their GPU-side
  // offsets decide the tiles; not measured). docs/shapes.md, "128 x 256 tiles from 0.6 of a wave".
  constexpr double kWideTilesMinWaves = 0.6;
  const bool in_blocks = copies_for(p).bytes() > workspace_bytes;
  return p.grouped() || in_blocks ? 1.0 : kWideTilesMinWaves;
}

}  // namespace

Sm90Config sm90_model_choice(const Problem& p, const DeviceState& state, std::size_t workspace_bytes,
                             bool batch_invariant) {
  Sm90Config c;  // 128 x 256, alone, whole tiles
  if (batch_invariant) return c;  // one configuration whatever the shape: rows of D independent of m
  const int sms = std::max(1, state.props.sm_count);
  const double rows = double(p.grouped() ? cdiv(p.m, 128) + p.groups / 2 : cdiv(p.m, 128) * p.batch);
  const double waves256 = rows * double(cdiv(p.n, 256)) / sms, waves128 = rows * double(cdiv(p.n, 128)) / sms;
  // 128 x 256 tiles unless they leave many SMs idle (in pairs where sm90_wide_pairs_gain, below).
  // And 128 x 128 wherever n <= 128: a 256-wide tile would multiply zeros over half its width or
  // more (a batch of small problems, say).
  // Under a wave, 128 x 128 also where they finish in fewer rounds (n = 384: one round of
  // 128 x 128 tiles against one of 128 x 256 ones half padding in their last column).
  const bool narrower = waves256 < 1 && (waves256 < wide_tiles_min_waves(p, workspace_bytes) ||
                                         rounds_x_area(p, sms, 128, 128) < rounds_x_area(p, sms, 128, 256));
  if (narrower || p.n <= 128) c.tile_n = 128;
  // 128 x 192 where its tiles finish at least a tenth sooner by whole waves: a launch takes as many
  // rounds as its fullest SM has tiles, each as long as the tile is wide. 1536^3: one round of 192
  // against one of 256 or two of 128; 3072^3: three rounds of 192 (384 tiles) against three of 256
  // or five of 128. Near ties stay with the rule above: a 192-wide tile moves more operand bytes per
  // FLOP than a 256-wide one and has no pairs. Not grouped (the GPU's offsets decide the tiles) and
  // without a fused epilogue (neither is compiled: sm90_impl.cuh).
  if (!p.grouped() && !p.has_epilogue() && p.n > 128 &&
      rounds_x_area(p, sms, 128, 192) <= 0.9 * rounds_x_area(p, sms, 128, c.tile_n))
    c.tile_n = 192;
  c = sm90_wide_tiles_where_rows_read_slowly(p, sm90_tall_tiles_where_they_gain(p, c, state), state);
  // 128 x 64 where n <= 64, for the same reason, and where 128 x 128 tiles would leave half the SMs
  // or more idle (1024^3: 64 tiles of 128 x 128 for 132 SMs, 128 of 128 x 64). Dense launches only:
  // the grouped kernel has no 128 x 64 instantiation.
  const bool narrow = !p.grouped() && (p.n <= 64 || 2 * waves128 <= 1);
  if (narrow) c.tile_m = 128, c.tile_n = 64;
  c = sm90_pairs_where_they_gain(p, sm90_small_tiles_where_they_gain(p, c, state));
  if (c.tile_n == 256 && sm90_wide_pairs_gain(p, state)) c.cluster = 2;
  c.stream_k = p.grouped() ? 0 : int(TailMode::when_faster);  // make_plan drops a tail that does not fit
  // Split-K where 128 x 128 tiles (128 x 64 for n <= 64) fill at most half the GPU and K is long
  // against m x n (128 x 128 x 65536, 64 x 4096 x 4096; split_k_model says how many slices). The
  // stream-K tail shares out such a launch too, but its owner adds every helper's partial tile
  // alone; split-K's second pass spreads the adding over the GPU.
  // 64-row tiles are split as they are (m <= 64, or a K short against m and n); 64 x 32 tiles taken
  // so far are not (they were taken to fill SMs without a split). The slices count the tiles'
  // re-reads of the operands only where the tiles chosen so far leave most SMs idle (at most 40%
  // busy): where they fill more, split 128 x 128 tiles ran slower than the whole tiles with a
  // stream-K tail (343 x 2048 x 2048, 1024 x 1024 x 4096; docs/shapes.md, "Split-K counts the
  // tiles' re-reads").
  if (c.tile_n != 32) {
    constexpr std::int64_t kMinSliceTiles = 8;
    const bool idle = 5 * cdiv(p.m, c.tile_m) * cdiv(p.n, c.tile_n) <= 2 * std::int64_t(sms);
    const int rows = c.tile_m == 64 ? 64 : 128;
    int width = rows == 64 ? c.tile_n : !p.grouped() && p.n <= 64 ? 64 : 128;
    const std::int64_t resident = counted_resident(Sm90Config{rows, width, 1}, state);
    const std::size_t copies = copies_for(p).bytes(), room = workspace_bytes > copies ? workspace_bytes - copies : 0;
    std::int64_t splits = split_k_model(p, rows, width, idle, resident, kBK, kMinSliceTiles, room);
    // Tiles half as wide where those fill more of one wave: the slices are as long or longer, and
    // each CTA writes half the partial sums. One wave at most (a CTA an SM): 64 x 32 tiles in two
    // waves of slices ran slower than 64 x 64 ones in one (docs/shapes.md, "Split-K in narrower
    // tiles").
    if (const int narrower = rows == 128 ? 64 : 32; splits >= 2 && width > narrower) {
      const auto ctas = [&](int w, std::int64_t s) {
        return cdiv(p.m, rows) * cdiv(p.n, w) * split_k_slices(p.k, int(s), kBK).splits;
      };
      const std::int64_t narrow = split_k_model(p, rows, narrower, idle, sms, kBK, kMinSliceTiles, room);
      if (narrow >= 2 && ctas(narrower, narrow) > ctas(width, splits)) width = narrower, splits = narrow;
    }
    if (splits >= 2) {
      c.tile_m = rows, c.tile_n = width, c.cluster = 1, c.stream_k = 0;
      c.splits = int(splits);
    }
  }
  // A decode step whose weights are past the skinny kernel's reach (m <= 16, B over 256 MiB:
  // skinny_first) and that split-K leaves whole: B is streamed once whatever the tile, and 128 x 256
  // tiles with a stream-K tail stream it faster than 128 x 128 ones on both GPUs (docs/shapes.md,
  // "16-bit decode steps past the skinny kernel"). 16 x 8192 x 28672 ran split-K over 128 x 128
  // tiles before 64 x 64 tiles existed; its 128 tiles of 64 x 64 are not split, and wide tiles run
  // it (docs/shapes.md, "64 x 64 tiles").
  const double b_bytes = double(p.n) * double(p.k) * double(size_of(p.ab));
  if (!p.grouped() && p.batch == 1 && p.m <= 16 && b_bytes > double(1 << 28) && c.splits == 1) {
    c = Sm90Config{};
    c.stream_k = int(TailMode::when_faster);
  }
  return c;
}

SlowRows sm90_slow_rows(const Problem& p) {
  constexpr std::size_t kLine = 128;
  const Copies copies = copies_for(p);
  SlowRows r;
  r.a_off_lines = rows_off(p, p.a, copies.a.needed, kLine);
  r.b_off_lines = rows_off(p, p.b, copies.b.needed, kLine);
  r.b_off_sectors = rows_off_sectors(p, p.b, copies.b.needed);
  return r;
}

Sm90Config sm90_wide_tiles_where_rows_read_slowly(const Problem& p, Sm90Config c, const DeviceState& state) {
  constexpr std::int64_t kMinKTiles = 8;
  const bool wide_pairs = c.tile_n == 256 && c.cluster == 2;
  if (wide_pairs || c.splits > 1 || c.tile_n < 96 || p.grouped() || p.n <= 128 || cdiv(p.k, kBK) < kMinKTiles) return c;
  const SlowRows rows = sm90_slow_rows(p);
  if (!rows.any()) return c;
  const std::int64_t sms = std::max(1, state.props.sm_count), tiles = cdiv(p.m, 128) * p.batch * cdiv(p.n, 256);
  // Pairs sharing B halve B's slow reads. Where B's rows lie off the sectors they gained from
  // more than half a wave of tiles on (and lost below); off the lines only, with B N-major, from
  // about a wave and a half. With a K-major B off the lines, or only A's rows slow (pairs share B,
  // not A), single tiles did as well or better. Pairs have no fused epilogue. (docs/shapes.md,
  // "Wide tiles where rows read slowly", has the measurements.)
  const bool pairs = !p.has_epilogue() && ((rows.b_off_sectors && 2 * tiles > sms) ||
                                           (rows.b_off_lines && !p.b.k_major && 2 * tiles >= 3 * sms));
  // Single 128 x 256 tiles from nine tenths of a wave (2000^3: 128 tiles on 132 SMs) in place of
  // 192 x 96 ones, and of 128-row ones whose rounds take no less: the reads are the limit, and
  // wide tiles read the fewest operand bytes a FLOP. The rounds of tiles count no bytes: 192 x 96
  // tiles they chose ran far slower on slow rows, while 128 x 192 ones that finish in fewer rounds
  // held their own.
  const bool single = 10 * tiles >= 9 * sms && (c.tile_m == 192 || rounds_x_area(p, int(sms), 128, 256) <=
                                                                       rounds_x_area(p, int(sms), c.tile_m, c.tile_n));
  if (!pairs && !single) return c;
  c.tile_m = 128, c.tile_n = 256, c.cluster = pairs ? 2 : 1;
  return c;
}

Sm90Config sm90_tall_tiles_where_they_gain(const Problem& p, Sm90Config c, const DeviceState& state) {
  // Over a long K the rounds of tiles matter less than the rate of a tile's main loop, where a
  // 192 x 96 tile moves more operand bytes a FLOP (from L2 and from shared memory into wgmma) than
  // a 128 x 192 or 128 x 256 one (docs/shapes.md, "192 x 96 tiles over a long K", has where they
  // gained and lost).
  constexpr std::int64_t kMaxKTiles = 32;
  if (c.tile_m != 128 || c.tile_n < 128 || c.cluster != 1 || c.splits > 1 || p.grouped() || p.has_epilogue() ||
      p.n <= 128 || cdiv(p.k, kBK) > kMaxKTiles)
    return c;
  const int sms = std::max(1, state.props.sm_count);
  if (rounds_x_area(p, sms, 192, 96) <= 0.9 * rounds_x_area(p, sms, c.tile_m, c.tile_n)) c.tile_m = 192, c.tile_n = 96;
  return c;
}

Sm90Config sm90_small_tiles_where_they_gain(const Problem& p, Sm90Config c, const DeviceState& state) {
  if (c.tile_m != 128 || c.splits > 1 || p.grouped() || p.has_epilogue()) return c;
  // Few tiles: 128 x 64 ones would leave half the SMs or more idle, and K is not so long that
  // split-K of bigger tiles serves better (a 64 x 64 tile multiplies at a lower rate than a
  // 128 x 128 one: docs/shapes.md, "64 x 64 tiles").
  const std::int64_t tiles = cdiv(p.m, 128) * cdiv(p.n, 64) * p.batch;  // of 128 x 64
  const bool few_tiles = c.tile_n <= 128 && c.cluster == 1 && 2 * tiles <= counted_resident(Sm90Config{128, 64, 1}, state) &&
                         p.k <= 4 * std::max(p.m, p.n);
  if (p.m > 64 && !few_tiles) return c;
  c.tile_m = 64, c.tile_n = 64, c.cluster = 1;
  // 64 x 32 tiles where they fill more than half a wave and at most one, which 64 x 64 ones would
  // fill at most half of: a tile reads A once per 32 columns instead of 64, so they pay only where
  // they turn idle SMs into busy ones without split-K. Also at half a wave or less where K <= max(m,
  // n): slices of so short a K gain less than twice the CTAs (docs/shapes.md, "Split-K counts the
  // tiles' re-reads"). Not where a tile row is over an eighth padding (the added CTAs multiply
  // zeros), where K is long against m and n (split-K of 64 x 64 tiles serves better), with fewer
  // than 16 k-tiles (a tile's fixed costs dominate: 512^3 measured no faster), or where an
  // operand's rows lie off the 32-byte sectors, whose slow reads twice the CTAs would make
  // (docs/shapes.md, "64 x 32 tiles").
  constexpr std::int64_t kMinKTiles32 = 16;
  const std::int64_t tiles32 = cdiv(p.m, 64) * cdiv(p.n, 32) * p.batch, padding = cdiv(p.m, 64) * 64 - p.m;
  const std::int64_t resident32 = counted_resident(Sm90Config{64, 32, 1}, state);
  const bool short_k = p.k <= std::max(p.m, p.n);
  if (8 * padding > p.m || p.k > 2 * std::max(p.m, p.n) || cdiv(p.k, kBK) < kMinKTiles32 ||
      (2 * tiles32 <= resident32 && !short_k) || tiles32 > resident32)
    return c;
  const Copies copies = copies_for(p);  // only here: the rows' alignment is the last thing asked
  if (!rows_off_sectors(p, p.a, copies.a.needed) && !rows_off_sectors(p, p.b, copies.b.needed)) c.tile_n = 32;
  return c;
}

bool sm90_wide_pairs_gain(const Problem& p, const DeviceState& state) {
  // Pairs have no fused epilogue (sm90_impl.cuh); a grouped launch's tiles are the GPU's offsets'.
  if (p.grouped() || p.has_epilogue()) return false;
  constexpr double kMinWaves = 8;
  constexpr std::int64_t kMinKTiles = 8;
  const double waves = double(cdiv(p.m, 128) * p.batch) * double(cdiv(p.n, 256)) / std::max(1, state.props.sm_count);
  return waves >= kMinWaves && cdiv(p.k, kBK) >= kMinKTiles;
}

Sm90Config sm90_pairs_where_they_gain(const Problem& p, Sm90Config c) {
  // Shorter K: the cluster's costs outweigh the saved reads (docs/shapes.md).
  constexpr std::int64_t kMinKTilesA = 16, kMinKTilesB = 32;
  if (c.tile_m != 128 || c.tile_n != 64 || c.cluster != 1 || c.splits > 1 || p.grouped() || p.has_epilogue() ||
      cdiv(p.n, 64) < 2)
    return c;
  const Copies copies = copies_for(p);
  const std::int64_t k_tiles = cdiv(p.k, kBK);
  if ((rows_off_sectors(p, p.a, copies.a.needed) && k_tiles >= kMinKTilesA) ||
      (rows_off_sectors(p, p.b, copies.b.needed) && k_tiles >= kMinKTilesB))
    c.cluster = 2;
  return c;
}

std::vector<Sm90Config> sm90_configs() {
  std::vector<Sm90Config> out;
  for (const Sm90Config& t : kTiles)
    for (int sk : {0, 1}) {
      Sm90Config c = t;
      c.stream_k = sk;
      out.push_back(c);
    }
  Sm90Config split{128, 128, 1};  // 128 x 128 tiles, K in 4 slices
  split.splits = 4;
  out.push_back(split);
  for (int width : {64, 32})
    for (int splits : {2, 4}) {  // 64 x 64 and 64 x 32 tiles, K in 2 or 4 slices
      Sm90Config small{64, width, 1};
      small.splits = splits;
      out.push_back(small);
    }
  return out;
}

}  // namespace gemmlab::detail
