// The library's CUDA-core FP32 kernel, host side (simt.hpp): which instantiation serves a problem,
// the checks, the workspace, the launch, the model. The instantiations are in simt_ladder.cu,
// simt_plain.cu and simt_fused.cu (simt_table.hpp); the split-K reduction kernels are here.
#include "kernels/library/simt.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/library/epilogue.cuh"
#include "kernels/library/operand_copy.hpp"
#include "kernels/library/simt_table.hpp"
#include "kernels/library/split_k.hpp"
#include "kernels/library/transpose.hpp"

namespace gemmlab::detail {

epi::Params epilogue_params(const Problem& p);

namespace {

using fp32::kDirect16;
using fp32::kDirect4;
using fp32::kEpiFused;
using fp32::kEpiPacked;
using fp32::kEpiPlain;
using fp32::kTransposed;

constexpr int kBK = 16;
// The grid limits every GPU with cp.async (sm_80+) has.
constexpr std::int64_t kMaxGridX = INT_MAX, kMaxGridYZ = 65535;
static_assert(kStreamKFlags <= kFlagCount, "the tail's arrival counters fit the scratch flags");

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The model's configurations, in the index order of DeviceState::simt_resident, with their
// throughput relative to the best when the GPU is full, measured by `gemmlab tune` on an H100 at
// 4096^3 (docs/kernels/fp32-ladder.md, step 9, "Calibration"; 64x64's has no recorded measurement).
// 32x128 (8x8), its rate measured at 4096^3 on an H200, serves D with at most 32 rows, or a last
// tile row of at most 32, where 64-row tiles compute up to half padding (docs/shapes.md, "32-row
// FP32 tiles").
struct ModelTile {
  int tile_m, tile_n, thread_m, stages;
  double efficiency;
};
constexpr ModelTile kModel[] = {
    {128, 256, 16, 3, 1.00},
    {128, 128, 16, 3, 0.94},
    {64, 128, 8, 2, 0.95},
    {64, 64, 8, 2, 0.80},
    {32, 128, 8, 2, 0.90},
};
constexpr int kModelCount = 5;
// Split-K counts the model weighs. Up to 128: a tile or two with a long K (64 x 64 x 65536) fill
// the GPU only with that many slices.
constexpr int kSplits[] = {1, 2, 3, 4, 6, 8, 16, 32, 64, 128};

int model_index(const SimtConfig& c) {
  for (int i = 0; i < kModelCount; ++i)
    if (kModel[i].tile_m == c.tile_m && kModel[i].tile_n == c.tile_n && kModel[i].thread_m == c.thread_m &&
        kModel[i].stages == c.stages)
      return i;
  return -1;
}

// How the problem's operands are copied and its epilogue computed (pipelined.cuh).
struct Variant {
  int a_copy, b_copy, epi;
};

// Packed row-major NN, one item, C = D (or not read), alpha and beta values, no bias or activation,
// and D's rows in 16-byte pieces: the ladder's kernel of old serves it as measured. Where D's rows
// cannot take 16-byte stores (n % 4 != 0, or D off 16 bytes), that kernel's epilogue stores 4 bytes
// at a time straight from each thread's registers, far slower than the general epilogue, whose
// block writes whole rows through shared memory (docs/kernels/fp32-ladder.md, "The packed epilogue
// on rows off 16 bytes").
bool packed(const Problem& p) {
  const bool c_is_d = !p.reads_c() || (p.c == p.d && p.ldc == p.ldd);
  return p.a.k_major && !p.b.k_major && p.batch == 1 && p.a.ld == p.k && p.b.ld == p.n && p.ldd == p.n && c_is_d &&
         !p.alpha_ptr && !p.beta_ptr && !p.has_epilogue() && rows_aligned(p.d, p.ldd, p.stride_d, p.batch, 4, 16);
}

// 16-byte copies of an MN-major operand: its pointer, leading dimension and batch stride 16-byte
// multiples. (The A path copies a piece that straddles M in part; B's reads whole pieces, so n % 4
// or a copy's padded lines.)
bool vec_ok(const Operand& o, std::int64_t batch) {
  return rows_aligned(o.ptr, o.ld, o.stride, batch, 4, 16);
}

Variant variant_of(const Problem& p) {
  Variant v;
  v.a_copy = p.a.k_major ? kTransposed : vec_ok(p.a, p.batch) ? kDirect16 : kDirect4;
  v.b_copy = p.b.k_major ? kTransposed : vec_ok(p.b, p.batch) && (p.n % 4 == 0 || p.b.padded) ? kDirect16 : kDirect4;
  v.epi = p.has_epilogue() ? kEpiFused : packed(p) ? kEpiPacked : kEpiPlain;
  return v;
}

const SimtEntry* find_in(const std::vector<SimtEntry>& t, const SimtConfig& c, const Variant& v, bool want_tail) {
  for (const SimtEntry& e : t)
    if (e.tile_m == c.tile_m && e.tile_n == c.tile_n && e.thread_m == c.thread_m && e.stages == c.stages &&
        e.a_copy == v.a_copy && e.b_copy == v.b_copy && e.epi == v.epi && (!want_tail || e.tail))
      return &e;
  return nullptr;
}

const SimtEntry* find_entry(const Problem& p, const SimtConfig& c) {
  const Variant v = variant_of(p);
  switch (v.epi) {
    case kEpiPacked: {
      // The ladder's table; a packed problem whose configuration the ladder lacks runs the general
      // epilogue's instantiation (32x128, the model's one tile outside the ladder's grid).
      if (const SimtEntry* e = find_in(simt_entries_ladder(), c, v, false)) return e;
      return find_in(simt_entries_plain(), c, Variant{v.a_copy, v.b_copy, kEpiPlain}, false);
    }
    case kEpiPlain: return find_in(simt_entries_plain(), c, v, false);
    default: return find_in(simt_entries_fused(), c, v, false);
  }
}

// Resident blocks of configuration c on the whole GPU, for the stream-K tail's schedule.
std::int64_t resident_blocks(const SimtConfig& c, const DeviceState& s, const SimtEntry& e) {
  const int i = model_index(c);
  const int per_sm = i >= 0 && std::size_t(i) < s.simt_resident.size() && s.simt_resident[std::size_t(i)] > 0
                         ? s.simt_resident[std::size_t(i)]
                         : e.planned_blocks;
  return std::int64_t(per_sm) * std::max(1, s.props.sm_count);
}

std::int64_t tile_count(const Problem& p, const SimtConfig& c) { return cdiv(p.m, c.tile_m) * cdiv(p.n, c.tile_n); }

// The tail of a launch: only without split-K, for a single item (the whole-tile grid's batch
// dimension has no room for one), and not for batch-invariant problems (its pieces follow the tile
// count, so a row's sums would depend on m).
fp32::StreamKTail plan_tail(const Problem& p, const SimtConfig& c, const DeviceState& s, const SimtEntry& e) {
  if (c.splits > 1 || c.stream_k == 0 || !e.tail || p.batch > 1 || p.determinism == Determinism::batch_invariant)
    return {};
  return fp32::plan_stream_k_tail(tile_count(p, c), int(std::min<std::int64_t>(INT_MAX, resident_blocks(c, s, e))),
                                  cdiv(p.k, kBK), TailMode(c.stream_k));
}

std::size_t tail_bytes(const fp32::StreamKTail& t, const SimtConfig& c) {
  return t.tiles > 0 ? std::size_t(t.slots()) * std::size_t(c.tile_m) * std::size_t(c.tile_n) * sizeof(float) : 0;
}

// Split-K's slices as they run: the k-tiles shared out so that none is empty (128 asked of K = 4099's
// 257 k-tiles run as 86 of 3), as the tensor-core kernels share them (split_k.hpp).
SplitK split_of(const Problem& p, const SimtConfig& c) { return split_k_slices(p.k, c.splits, kBK); }

std::size_t split_bytes(const Problem& p, const SimtConfig& c) {
  const int splits = split_of(p, c).splits;
  return splits > 1 ? std::size_t(splits) * std::size_t(p.batch) * std::size_t(p.m) * std::size_t(p.n) * sizeof(float) : 0;
}

// SimtConfig::copy_b: B copied N-major into the workspace before the main loop, where the main
// loop would copy it 4 bytes at a time: a K-major B (transposing copies), or an N-major one whose
// lines are not 16-byte aligned or hold no whole 16-byte pieces (n % 4 != 0). Those copies cost more
// than one pass over B when m is large (docs/kernels/fp32-ladder.md, "The library's kernel",
// Layouts). The copy holds the batch items of B (one when B is broadcast) for `cols` columns of D,
// in rows of a 16-byte multiple whose padding is zeroed, so that the main loop takes 16-byte copies.
// The main loop then multiplies the same tiles in the same order: bitwise the same D.
bool narrow_b(const Problem& p) { return variant_of(p).b_copy != kDirect16; }
bool copies_b(const Problem& p, const SimtConfig& c) { return c.copy_b && narrow_b(p); }
std::int64_t copy_items(const Problem& p) { return p.batch > 1 && p.b.stride != 0 ? p.batch : 1; }
std::int64_t copy_ld(std::int64_t cols) { return (cols + 3) / 4 * 4; }
std::size_t copy_bytes(const Problem& p, std::int64_t cols) {
  return align256(std::size_t(copy_items(p)) * std::size_t(p.k) * std::size_t(copy_ld(cols)) * sizeof(float));
}

// Columns [n0, n0 + cols) of D, with B read N-major from its copy at `b`.
Problem column_slice(const Problem& p, std::int64_t n0, std::int64_t cols, const float* b) {
  Problem q = block_of(p, 0, p.m, n0, cols);  // D, C and the bias moved to column n0
  q.b.ptr = b;
  q.b.k_major = false;
  q.b.padded = true;
  q.b.ld = copy_ld(cols);
  q.b.stride = copy_items(p) > 1 ? p.k * q.b.ld : 0;
  return q;
}

// Where the copy will be, for choosing before launch: an address 256-byte aligned, as the
// workspace is (instantiations are looked up by alignment).
const float* copy_stand_in() { return reinterpret_cast<const float*>(std::uintptr_t(256)); }

// The problem the main loop runs: p, or with copy_b its N-major form.
Problem launched(const Problem& p, const SimtConfig& c) {
  return copies_b(p, c) ? column_slice(p, 0, p.n, copy_stand_in()) : p;
}

// Columns of D per slice of B's copy when it has `bytes` of workspace: all of n when the whole copy
// fits, else the most whole tiles' columns that do (0: not even one tile's).
std::int64_t slice_cols(const Problem& p, const SimtConfig& c, std::size_t bytes) {
  if (copy_bytes(p, p.n) <= bytes) return p.n;
  const std::size_t per_col = std::size_t(copy_items(p)) * std::size_t(p.k) * sizeof(float);
  std::int64_t cols = std::int64_t(bytes / per_col) / c.tile_n * c.tile_n;
  while (cols > 0 && copy_bytes(p, cols) > bytes) cols -= c.tile_n;
  return cols;
}

// The largest element offset a copy of this operand computes, discarded copies included: every
// batch item, lines up to a tile (<= 256) past the matrix, elements up to a k-tile or a tile past.
// `outer` is the extent of the strided index, `inner` of the contiguous one.
std::int64_t max_offset(const Operand& o, std::int64_t outer, std::int64_t inner, std::int64_t batch) {
  if (o.ld > INT_MAX || o.stride > INT_MAX) return std::numeric_limits<std::int64_t>::max();
  return (batch - 1) * o.stride + (outer + 256) * o.ld + inner + 256;
}

std::string configs_compiled(const Variant& v) {
  if (v.epi == kEpiPacked)
    return "8x8 thread tiles: 64/128 x 64/128, 256x128, 128x256; 16x8: 128x128, 128x256, 256x128; 2-4 stages";
  return "128x256 and 128x128 with 16x8 thread tiles and 3 stages, 64x128, 64x64 and 32x128 with 8x8 and 2 stages";
}

// Split-K's second pass (pipelined.cuh): the kernels, and the grid of one.
template <int EPI>
void launch_reduce(const fp32::ReduceArgs& r, std::int64_t batch, int sms, cudaStream_t stream) {
  constexpr int threads = 256;
  const std::int64_t total = std::int64_t(r.M) * r.N;
  const unsigned blocks = unsigned(std::min<std::int64_t>(cdiv(total, threads), std::int64_t(sms) * 16));
  fp32::splitk_reduce<EPI><<<dim3(blocks, unsigned(batch)), threads, 0, stream>>>(r);
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace

void prepare_simt(DeviceState& state) {
  state.simt_resident.assign(kModelCount, 0);
  if (state.cc != 0 && state.cc < 80) return;  // cp.async: simt_reject refuses every problem
  const std::size_t optin = state.props.smem_per_block_optin;
  for (const std::vector<SimtEntry>* table : {&simt_entries_ladder(), &simt_entries_plain(), &simt_entries_fused()})
    for (const SimtEntry& e : *table) {
      if (optin != 0 && e.smem_bytes > optin) continue;  // refused by simt_reject on this GPU
      const int blocks = e.prepare();
      SimtConfig c;
      c.tile_m = e.tile_m, c.tile_n = e.tile_n, c.thread_m = e.thread_m, c.stages = e.stages;
      const int i = model_index(c);
      if (i < 0) continue;
      int& r = state.simt_resident[std::size_t(i)];
      r = r == 0 ? blocks : std::min(r, blocks);  // the fewest over the configuration's instantiations
    }
}

void assume_simt_occupancy(DeviceState& state) {
  state.simt_resident.assign(kModelCount, 0);
  for (const SimtEntry& e : simt_entries_fused()) {
    SimtConfig c;
    c.tile_m = e.tile_m, c.tile_n = e.tile_n, c.thread_m = e.thread_m, c.stages = e.stages;
    const int i = model_index(c);
    if (i >= 0) state.simt_resident[std::size_t(i)] = e.planned_blocks;
  }
}

namespace {

// simt_reject with the problem's instantiation looked up (null: none), so that a launch looks once.
std::optional<std::string> reject_with(const Problem& p, const SimtConfig& c, const DeviceState& state, const SimtEntry* e) {
  if (p.ab != DataType::f32 || p.cd != DataType::f32)
    return std::string("computes f32 operands into an f32 result");
  if (p.grouped()) return std::string("grouped problems go to the generic kernel");
  if (state.cc != 0 && state.cc < 80) return fmt::format("needs cp.async (sm_80 or newer); this GPU is sm_{}", state.cc);
  if (c.splits < 1 || c.splits > kMaxGridYZ) return fmt::format("{} splits: 1 to {}", c.splits, kMaxGridYZ);
  if (c.stream_k < 0 || c.stream_k > 2) return fmt::format("stream_k = {}: 0, 1 or 2", c.stream_k);
  if (c.group_m < 0) return fmt::format("group_m = {} is negative", c.group_m);
  if (!e) {
    const Variant v = variant_of(p);
    return fmt::format("{}x{} with {}x8 thread tiles and {} stages is not compiled for layout {} with the {} epilogue "
                       "(compiled: {})",
                       c.tile_m, c.tile_n, c.thread_m, c.stages, p.layout_name(),
                       v.epi == kEpiFused ? "fused" : v.epi == kEpiPacked ? "packed" : "general", configs_compiled(v));
  }
  if (state.props.smem_per_block_optin != 0 && e->smem_bytes > state.props.smem_per_block_optin)
    return fmt::format("needs {} bytes of shared memory per block; this GPU allows {}", e->smem_bytes,
                       state.props.smem_per_block_optin);
  if (p.m > INT_MAX - 256 || p.n > INT_MAX - 256) return std::string("m and n must stay 256 below 2^31");
  const std::int64_t a_max = p.a.k_major ? max_offset(p.a, p.m, p.k, p.batch) : max_offset(p.a, p.k, p.m, p.batch);
  const std::int64_t b_max = p.b.k_major ? max_offset(p.b, p.n, p.k, p.batch) : max_offset(p.b, p.k, p.n, p.batch);
  if (a_max > INT_MAX || b_max > INT_MAX)
    return fmt::format("{}'s copies would address up to element {}, batch items included: the copy offsets are 32-bit "
                       "(the generic kernel serves it)",
                       a_max > INT_MAX ? "A" : "B", a_max > INT_MAX ? a_max : b_max);
  if (tile_count(p, c) > kMaxGridX) return fmt::format("{} tiles exceed the grid limit", tile_count(p, c));
  if (p.batch > kMaxGridYZ) return fmt::format("a batch of {} exceeds the grid limit of {}", p.batch, kMaxGridYZ);
  return std::nullopt;
}

}  // namespace

bool simt_copies_b(const Problem& p, const SimtConfig& c) { return copies_b(p, c); }

std::optional<std::string> simt_reject(const Problem& p, const SimtConfig& c, const DeviceState& state) {
  if (c.copy_b) {
    if (!narrow_b(p)) return std::string("copy_b: B is read in 16-byte pieces already");
    if (c.splits > 1) return std::string("copy_b is not offered with split-K");
    const Problem q = launched(p, c);
    return reject_with(q, c, state, find_entry(q, c));
  }
  return reject_with(p, c, state, find_entry(p, c));
}

int simt_slices(const Problem& p, const SimtConfig& c) { return c.splits > 1 ? split_of(p, c).splits : c.splits; }

std::size_t simt_workspace_bytes(const Problem& p, const SimtConfig& c, const DeviceState& state) {
  if (c.splits > 1) return split_bytes(p, c);
  const Problem q = launched(p, c);
  const SimtEntry* e = find_entry(q, c);
  return (copies_b(p, c) ? copy_bytes(p, p.n) : 0) + (e ? tail_bytes(plan_tail(q, c, state, *e), c) : 0);
}

std::optional<std::string> simt_workspace_reject(const Problem& p, const SimtConfig& c, const DeviceState& state,
                                                 std::size_t workspace_bytes) {
  if (c.splits > 1 && split_bytes(p, c) > workspace_bytes)
    return fmt::format("split-K needs {} bytes of workspace, the call has {}", simt_workspace_bytes(p, c, state),
                       workspace_bytes);
  if (copies_b(p, c) && slice_cols(p, c, workspace_bytes) == 0)
    return fmt::format("B's N-major copy needs at least {} bytes of workspace (one tile's columns), the call has {}",
                       copy_bytes(p, std::min<std::int64_t>(p.n, c.tile_n)), workspace_bytes);
  return std::nullopt;
}

fp32::StreamKTail simt_tail(const Problem& p, const SimtConfig& c, const DeviceState& state) {
  const Problem q = launched(p, c);
  const SimtEntry* e = find_entry(q, c);
  return e ? plan_tail(q, c, state, *e) : fp32::StreamKTail{};
}

std::optional<SimtLaunchShape> simt_launch_shape(const Problem& problem, const SimtConfig& c, const DeviceState& state) {
  const Problem p = launched(problem, c);
  const SimtEntry* e = find_entry(p, c);
  if (!e) return std::nullopt;
  const fp32::StreamKTail tail = plan_tail(p, c, state, *e);
  const std::int64_t whole = tile_count(p, c) - tail.tiles;
  SimtLaunchShape s;
  s.threads = e->threads;
  s.smem_bytes = e->smem_bytes;
  if (tail.tiles > whole) {
    s.kernel = e->tail_kernel;
    s.grid_x = unsigned(tail.blocks);
  } else {
    s.kernel = e->kernel;
    s.grid_x = unsigned(whole), s.grid_y = unsigned(p.batch), s.grid_z = unsigned(split_of(p, c).splits);
  }
  return s;
}

void launch_simt(const Problem& p, const SimtConfig& c, const LaunchEnv& env) { launch_simt(p, c, env, true); }

namespace {

// The launches of a problem whose B the main loop reads as it is stored.
void launch_direct(const Problem& p, const SimtConfig& c, const LaunchEnv& env, bool early_tail) {
  const DeviceState& state = *env.device;
  const SimtEntry* entry = find_entry(p, c);
  if (const std::optional<std::string> why = reject_with(p, c, state, entry))
    throw Error(fmt::format("simt kernel: {}", *why));
  const SimtEntry& e = *entry;
  // The instantiation's epilogue, not the problem's: a packed problem whose configuration the
  // ladder's table lacks runs the general epilogue's (find_entry), which takes the general arguments.
  const int epi = e.epi;
  const SplitK split = split_of(p, c);
  const int splits = split.splits;
  const int K = int(p.k);
  // Each split takes a whole number of BK-deep tiles.
  const int k_per_split = (splits > 1 ? split.k_tiles : int(cdiv(K, kBK))) * kBK;
  if (split_bytes(p, c) > env.scratch.bytes)
    throw Error(fmt::format("simt kernel: split-K needs {} bytes of workspace, the call has {}", split_bytes(p, c),
                            env.scratch.bytes));
  fp32::StreamKTail tail = plan_tail(p, c, state, e);
  if (tail_bytes(tail, c) > env.scratch.bytes) tail = {};  // whole tiles only

  const bool reads_c = p.reads_c() && p.c != nullptr;
  const float* C = reads_c ? static_cast<const float*>(p.c) : static_cast<const float*>(p.d);
  const std::int64_t ldc = reads_c ? p.ldc : p.ldd, stride_c = reads_c ? p.stride_c : p.stride_d;

  fp32::PipelinedArgs a{};
  a.M = int(p.m), a.N = int(p.n), a.K = K;
  if (epi == kEpiPacked) {
    // The ladder kernel's argument layout: alpha and beta in place of the leading dimensions.
    a.lda = std::bit_cast<int>(p.alpha), a.ldb = std::bit_cast<int>(p.beta);
  } else {
    a.lda = int(p.a.ld), a.ldb = int(p.b.ld);
  }
  a.A = static_cast<const float*>(p.a.ptr);
  a.B = static_cast<const float*>(p.b.ptr);
  a.D = static_cast<float*>(p.d);
  a.stride_a = p.batch > 1 ? int(p.a.stride) : 0;
  a.stride_b = p.batch > 1 ? int(p.b.stride) : 0;
  a.k_per_split = k_per_split;
  a.partial = splits > 1 ? reinterpret_cast<float*>(env.scratch.data) : nullptr;
  a.group_m = c.group_m;
  const bool d_vec = rows_aligned(p.d, p.ldd, p.stride_d, p.batch, 4, 16);
  const bool c_vec = !reads_c || rows_aligned(C, ldc, stride_c, p.batch, 4, 16);
  // Split-K's whole-tile kernel writes only the workspace (256-byte aligned, rows of n floats).
  a.c_vec = p.n % 4 == 0 && (splits > 1 ? aligned16(env.scratch.data) : d_vec && c_vec);
  a.tail = tail;
  if (tail.tiles > 0) {
    a.tail_partials = reinterpret_cast<float*>(env.scratch.data);
    a.tail_arrivals = env.scratch.flags;
  }
  fp32::StoreArgs o{};
  o.C = C;
  o.ldd = p.ldd, o.ldc = ldc, o.stride_d = p.stride_d, o.stride_c = stride_c;
  o.epi = epilogue_params(p);

  const unsigned whole = unsigned(tile_count(p, c) - tail.tiles);
  e.launch(a, o, whole, int(p.batch), splits, early_tail && state.cc >= 90, env.stream, env.queue().early);
  if (splits > 1) {
    fp32::ReduceArgs r{};
    r.M = a.M, r.N = a.N, r.splits = splits;
    r.partial = a.partial;
    r.D = a.D, r.C = C;
    r.ldd = p.ldd, r.ldc = ldc, r.stride_d = p.stride_d, r.stride_c = stride_c;
    r.epi = o.epi;
    const int sms = std::max(1, state.props.sm_count);
    if (epi == kEpiFused) launch_reduce<kEpiFused>(r, p.batch, sms, env.stream);
    else launch_reduce<kEpiPlain>(r, p.batch, sms, env.stream);
  }
}

}  // namespace

void launch_simt(const Problem& p, const SimtConfig& c, const LaunchEnv& env, bool early_tail) {
  if (!copies_b(p, c)) {
    SimtConfig direct = c;
    direct.copy_b = false;  // an N-major B is read as it is
    launch_direct(p, direct, env, early_tail);
    return;
  }
  if (const std::optional<std::string> why = simt_reject(p, c, *env.device)) throw Error(fmt::format("simt kernel: {}", *why));
  if (const std::optional<std::string> why = simt_workspace_reject(p, c, *env.device, env.scratch.bytes))
    throw Error(fmt::format("simt kernel: {}", *why));
  // Slice by slice of columns of D: B's columns copied N-major to the front of the workspace, then
  // the main loop over that slice of D (its stream-K tail, if any, in the rest of the workspace).
  const std::int64_t width = slice_cols(p, c, env.scratch.bytes);
  SimtConfig direct = c;
  direct.copy_b = false;
  float* const copy = reinterpret_cast<float*>(env.scratch.data);
  for (std::int64_t n0 = 0; n0 < p.n; n0 += width) {
    const std::int64_t cols = std::min(width, p.n - n0);
    const std::int64_t ld = copy_ld(cols);
    if (p.b.k_major) {
      launch_transpose_f32(static_cast<const float*>(p.b.ptr) + n0 * p.b.ld, p.b.ld, p.b.stride, cols, p.k,
                           copy_items(p), copy, ld, env.stream);
      if (ld != cols)  // the padding the main loop reads (column_slice: padded)
        GEMMLAB_CUDA(cudaMemset2DAsync(copy + cols, std::size_t(ld) * sizeof(float), 0,
                                             std::size_t(ld - cols) * sizeof(float),
                                             std::size_t(p.k * copy_items(p)), env.stream));
    } else {  // zero-fills each row's padding
      launch_copy_rows_32(static_cast<const float*>(p.b.ptr) + n0, p.b.ld, p.b.stride, p.k, cols, copy_items(p), copy,
                          ld, env.stream);
    }
    LaunchEnv rest = env;
    const std::size_t used = copy_bytes(p, cols);
    rest.scratch.data += used;
    rest.scratch.bytes -= used;
    launch_direct(column_slice(p, n0, cols, copy), direct, rest, early_tail);
  }
}

// ---- the model ---------------------------------------------------------------------------------

namespace {

SimtConfig config_of(const ModelTile& t, int splits) {
  SimtConfig c;
  c.tile_m = t.tile_m, c.tile_n = t.tile_n, c.thread_m = t.thread_m, c.stages = t.stages;
  // Raster groups of 32 tile rows for 128x256 tiles: measured faster than 8 at 8192^3 on the H100 and
  // the same within noise at the suite's other large shapes (docs/kernels/fp32-ladder.md, section 9, "Raster group 32").
  c.group_m = t.tile_n == 256 ? 32 : 8;
  c.splits = splits;
  c.stream_k = splits == 1 ? int(TailMode::when_faster) : 0;
  return c;
}

// Estimated time, in units of one 128x128 tile times one k on one SM: the blocks are spread evenly
// over the SMs, the busiest SM sets the time; split-K adds its reduction pass (memory-bound: about
// 115 units per 4 MB moved on an H100). With a stream-K tail, the last partial wave costs each
// block its range of the tail's k-tiles plus the tail's overhead instead of a whole tile.
// The warps an SM needs resident to run at its full rate: with fewer, each one's latencies are
// exposed. A 64 x 64 tile has 2 warps; one such block an SM (8192 x 64 x 8192 without split-K)
// ran far slower on an H100 than four with a quarter of k each. Nor are 4 enough: one 64 x 128 block
// an SM ran slower than two with half the k each (docs/shapes.md, "The FP32 model's small problems"
// and "FP32 split-K in thin slices").
constexpr double kSaturatingWarps = 8.0;
// A launch that is all tail (fewer tiles than resident blocks) with a few k-tiles a block measured
// far slower than the tail's model, whose overhead (fp32::kTailOverhead) was fitted where blocks
// take hundreds: 128^3 and 333 x 777 x 555 (1 and 4 k-tiles a block) ran far slower than split-K,
// while 1536^3 (53 k-tiles a block) was the fastest candidate (H100; docs/shapes.md, "The FP32
// model's small problems"). Below this many k-tiles a block the model weighs such a launch without
// its tail.
constexpr std::int64_t kMinAllTailRange = 16;
// The main loop's rate with a K-major B (transposing 4-byte copies) and with an N-major B copied 4
// bytes at a time (narrow_b), relative to 16-byte copies of an N-major B; and B's N-major copy
// (SimtConfig::copy_b), a memory-bound pass over B and the launch of one copy kernel a slice, in the
// model's units (docs/kernels/fp32-ladder.md, "The library's kernel", Layouts).
constexpr double kTransposedBRate = 0.82, kNarrowBRate = 0.87;
constexpr double kCopyUnitsPerMiB = 6.0, kCopyLaunchUnits = 50.0;

// Split-K's partial sums that fit in half the L2 are read back from it, not from DRAM: the second
// pass then cost about a third of the DRAM rate (`gemmlab tune --kernel auto.fp32`, H100;
// docs/shapes.md, "FP32 split-K in thin slices").
constexpr double kReduceUnitsPerMiB = 115.0 / 4.0, kL2ReduceShare = 1.0 / 3.0;

double estimate(const Problem& p, const ModelTile& t, const SimtConfig& c, const fp32::StreamKTail& tail, int sms,
                int resident_per_sm, std::size_t l2_bytes) {
  const double tiles = double(cdiv(p.m, t.tile_m)) * double(cdiv(p.n, t.tile_n)) * double(p.batch);
  double per_sm = std::ceil(tiles * c.splits / sms);
  // Of the SM's rate, the share its concurrent blocks' warps draw (tails are not scaled).
  double rate = 1.0;
  if (tail.tiles > 0) {
    const double range = std::ceil(double(tail.iters()) / tail.blocks);
    per_sm = double(tail.whole) / sms + double(tail.blocks) / sms * (range + fp32::kTailOverhead) / tail.k_tiles;
  } else {
    const double warps = double(t.tile_m) * t.tile_n / (double(t.thread_m) * 8.0) / 32.0;
    rate = std::min(1.0, std::min(per_sm, double(std::max(1, resident_per_sm))) * warps / kSaturatingWarps);
  }
  const double k_slice = std::ceil(double(p.k) / c.splits);
  double time = per_sm * (double(t.tile_m) * t.tile_n / (128.0 * 128.0)) * k_slice / t.efficiency / rate;
  if (c.splits > 1) {
    const double plane = double(p.batch) * double(p.m) * double(p.n) * 4.0;  // bytes of one slice's sums
    const double rate = double(c.splits) * plane <= 0.5 * double(l2_bytes) ? kL2ReduceShare : 1.0;
    time += double(c.splits + 1) * plane / (1024.0 * 1024.0) * kReduceUnitsPerMiB * rate;
  }
  return time;
}

}  // namespace

SimtConfig simt_model_choice(const Problem& p, const DeviceState& state, std::size_t workspace_bytes,
                             bool batch_invariant) {
  if (batch_invariant) {
    // One configuration for every m: the tile from n alone, by the model's cost per row of D when m
    // is large (columns padded to whole tiles over the efficiency); no split-K, no tail. Every
    // element of D is then one FMA chain over k in order, k-tile by k-tile of 16 (zero-filled past
    // K, the same for every m), with no partial sums added; the tile shape and the raster order
    // only decide which block computes it, and rows past m are zero-filled copies no stored
    // output reads. So a row of D is bitwise the same whatever m (or configuration) the call has.
    double best = std::numeric_limits<double>::infinity();
    SimtConfig pick = config_of(kModel[0], 1);
    for (const ModelTile& t : kModel) {
      const double cost = double(cdiv(p.n, t.tile_n) * t.tile_n) / t.efficiency;
      if (cost < best * 0.98) best = cost, pick = config_of(t, 1);
    }
    pick.stream_k = 0;
    return pick;
  }
  const int sms = std::max(1, state.props.sm_count);
  // The estimate of configuration c (its stream-K tail dropped where the model would not keep it)
  // for problem q with `bytes` of workspace; nothing when c cannot run q.
  auto cost = [&](const Problem& q, const ModelTile& t, SimtConfig& c, std::size_t bytes) -> std::optional<double> {
    if (simt_reject(q, c, state)) return std::nullopt;
    if (split_bytes(q, c) > bytes) return std::nullopt;
    const SimtEntry* e = find_entry(q, c);
    fp32::StreamKTail tail = plan_tail(q, c, state, *e);
    if (tail_bytes(tail, c) > bytes) tail = {}, c.stream_k = 0;
    if (tail.tiles > 0 && tail.whole == 0 && cdiv(tail.iters(), tail.blocks) < kMinAllTailRange) tail = {}, c.stream_k = 0;
    return estimate(q, t, c, tail, sms, int(resident_blocks(c, state, *e) / sms), state.props.l2_bytes) /
           (q.b.k_major ? kTransposedBRate : narrow_b(q) ? kNarrowBRate : 1.0);
  };
  double best = std::numeric_limits<double>::infinity();
  SimtConfig pick = config_of(kModel[0], 1);
  bool found = false;
  auto consider = [&](const SimtConfig& c, double time) {
    if (!found || time < best * 0.98) {  // prefer the earlier (simpler) choice on near-ties
      best = time;
      pick = c;
      found = true;
    }
  };
  for (const ModelTile& t : kModel)
    for (int splits : kSplits) {
      // Every slice at least one k-tile: few tiles with a short k ran fastest in thin slices on an
      // H100 (docs/shapes.md, "FP32 split-K in thin slices").
      if (splits > 1 && p.k < kBK * splits) continue;
      SimtConfig c = config_of(t, splits);
      if (const std::optional<double> time = cost(p, t, c, workspace_bytes)) consider(c, *time);
      if (splits > 1 || !narrow_b(p)) continue;
      // The same with B's copy: slices of `width` columns of D, each with the rest of the workspace.
      SimtConfig copied = config_of(t, 1);
      copied.copy_b = true;
      if (simt_reject(p, copied, state)) continue;
      const std::int64_t width = slice_cols(p, copied, workspace_bytes);
      if (width == 0) continue;
      const std::int64_t slices = cdiv(p.n, width), last = p.n - (slices - 1) * width;
      // cost() may drop a slice's tail, so each slice size has its configuration.
      SimtConfig direct = config_of(t, 1), rest = direct;
      const std::optional<double> whole =
          cost(column_slice(p, 0, width, copy_stand_in()), t, direct, workspace_bytes - copy_bytes(p, width));
      const std::optional<double> final =
          cost(column_slice(p, 0, last, copy_stand_in()), t, rest, workspace_bytes - copy_bytes(p, last));
      if (!whole || !final) continue;
      const double mib = 2.0 * double(copy_items(p)) * double(p.k) * double(p.n) * sizeof(float) / (1024.0 * 1024.0);
      copied.stream_k = direct.stream_k;
      consider(copied, double(slices - 1) * *whole + *final + mib * kCopyUnitsPerMiB + double(slices) * kCopyLaunchUnits);
    }
  return pick;
}

double simt_wave_fill(const Problem& problem, const SimtConfig& c, const DeviceState& state) {
  const Problem p = launched(problem, c);
  const SimtEntry* e = find_entry(p, c);
  if (!e || plan_tail(p, c, state, *e).tiles > 0) return 1.0;
  const std::int64_t resident = std::max<std::int64_t>(1, resident_blocks(c, state, *e));
  const std::int64_t blocks = tile_count(p, c) * p.batch * split_of(p, c).splits;
  return double(blocks) / double(cdiv(blocks, resident) * resident);
}

std::vector<SimtConfig> simt_configs() {
  std::vector<SimtConfig> out;
  for (const ModelTile& t : kModel)
    for (int splits : {1, 2, 4, 8, 16, 32}) {
      // 16 and 32 slices for 32-row tiles only: a D of at most 32 rows fills the GPU's SMs with
      // their two-warp blocks only in that many.
      if (splits > 8 && t.tile_m > 32) continue;
      SimtConfig c = config_of(t, splits);
      c.stream_k = 0;
      out.push_back(c);
      if (splits == 1 && t.thread_m == 16 && t.tile_n == 256) {  // the tail is compiled for 128x256 only
        c.stream_k = int(TailMode::when_faster);
        out.push_back(c);
      }
    }
  // With B's N-major copy (simt_reject refuses them for an N-major B).
  for (const ModelTile& t : kModel) {
    SimtConfig c = config_of(t, 1);
    c.copy_b = true;
    c.stream_k = 0;
    out.push_back(c);
    if (t.thread_m == 16 && t.tile_n == 256) {
      c.stream_k = int(TailMode::when_faster);
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace gemmlab::detail
