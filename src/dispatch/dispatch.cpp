#include "dispatch/dispatch.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "kernels/library/generic.hpp"
#include "kernels/library/operand_copy.hpp"
#include "kernels/library/simt.hpp"
#include "kernels/library/skinny.hpp"
#include "kernels/library/small.hpp"
#include "kernels/library/sm90.hpp"
#include "kernels/library/tf32.hpp"
#include "kernels/stream_k_flags.hpp"

namespace gemmlab::detail {

namespace {

int param(const TableEntry& e, const char* name, int fallback) {
  const auto it = e.config.find(name);
  return it == e.config.end() ? fallback : it->second;
}

Sm90Config sm90_from(const TableEntry& e) {
  Sm90Config c;
  c.tile_m = param(e, "tile_m", c.tile_m);
  c.tile_n = param(e, "tile_n", c.tile_n);
  c.cluster = param(e, "cluster", c.cluster);
  c.group_m = param(e, "group_m", c.group_m);
  c.stream_k = param(e, "stream_k", c.stream_k);
  c.splits = param(e, "splits", c.splits);
  return c;
}

SimtConfig simt_from(const TableEntry& e) {
  SimtConfig c;
  c.tile_m = param(e, "tile_m", c.tile_m);
  c.tile_n = param(e, "tile_n", c.tile_n);
  c.thread_m = param(e, "thread_m", c.thread_m);
  c.stages = param(e, "stages", c.stages);
  c.group_m = param(e, "group_m", c.group_m);
  c.splits = param(e, "splits", c.splits);
  c.stream_k = param(e, "stream_k", c.stream_k);
  c.copy_b = param(e, "copy_b", 0) != 0;
  return c;
}

Tf32Config tf32_from(const TableEntry& e) {
  Tf32Config c;
  c.cluster = param(e, "cluster", c.cluster);
  c.group_m = param(e, "group_m", c.group_m);
  c.stream_k = param(e, "stream_k", c.stream_k);
  c.splits = param(e, "splits", c.splits);
  c.tile_m = param(e, "tile_m", c.tile_m);
  return c;
}

SkinnyConfig skinny_from(const TableEntry& e) {
  SkinnyConfig c;
  c.splits = param(e, "splits", c.splits);
  c.bulk = param(e, "bulk", c.bulk);
  c.persistent = param(e, "persistent", c.persistent);
  return c;
}

std::string shape_text(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  return batch > 1 ? fmt::format("{}x{}x{} x{}", m, n, k, batch) : fmt::format("{}x{}x{}", m, n, k);
}

bool invariant(const Problem& p) { return p.determinism == Determinism::batch_invariant; }

// The table's entry for p, unless the caller asked for batch invariance (a table's choice varies
// with m by design).
const TableEntry* table_entry(const ContextImpl& ctx, const Problem& p) {
  if (invariant(p) || ctx.table.entries.empty()) return nullptr;
  return ctx.table.nearest(class_key(p.ab, p.cd, p.tf32, p.grouped(), p.a.k_major, p.b.k_major), p.m, p.n, p.k,
                           p.grouped() ? p.groups : p.batch);
}

// Whether p is the shape entry e was measured at.
bool at_entry_shape(const TableEntry& e, const Problem& p) {
  return e.m == p.m && e.n == p.n && e.k == p.k && e.batch == p.batch;
}

// One family's choice: the table's configuration if it names this family and that configuration
// runs p here, else the family's model. `from_entry` reads a configuration from a table entry,
// `model` gives the model's, `reject` says why a configuration cannot run (nothing when it can),
// `bytes` the workspace it takes. Returns false, with the family's refusal in `why_not`, when even
// the model's configuration cannot run.
// `transfers(config, entry)` says whether an entry's configuration measured at the entry's shape
// still holds at p's (a family without such a check passes one that always says yes).
template <class Config, class FromEntry, class Model, class Reject, class Bytes, class Transfers>
bool choose_family(const ContextImpl& ctx, const Problem& p, Family family, Config Choice::*slot,
                   FromEntry from_entry, Model model, Reject reject, Bytes bytes, Choice& out, std::string& why_not,
                   Transfers transfers) {
  const TableEntry* e = table_entry(ctx, p);
  if (e && e->kernel == family_name(family)) {
    const Config entry_config = from_entry(*e);
    const bool transfers_here = transfers(entry_config, *e);
    if (!transfers_here) out.entry_refused = e;  // the model decides, and describe() says why
    // Whether a partial last wave gets a stream-K tail depends on the shape's number of tiles, which
    // an entry does not carry to its neighbours: at the entry's own shape "no tail" and "a tail
    // where the model finds it gains" often ran the same kernel (no partial wave there), so the
    // measurement said nothing about the tail. Elsewhere the tail rule decides (FP32 1536^3, 72 tiles
    // for 132 SMs, ran far slower without the tail; docs/shapes.md, "The dispatch table's reach").
    auto take = [&](const Config& c, bool tail_here) {
      if (!transfers_here || reject(c)) return false;
      out.family = family;
      out.*slot = c;
      out.workspace_bytes = bytes(c);
      out.why = Why::table;
      out.entry = e;
      out.tail_here = tail_here;
      return true;
    };
    if constexpr (requires { entry_config.stream_k; entry_config.splits; }) {
      if (!p.grouped() && entry_config.stream_k == 0 && entry_config.splits <= 1 && !at_entry_shape(*e, p)) {  // grouped: no tail
        Config tailed = entry_config;
        tailed.stream_k = int(TailMode::when_faster);
        if (take(tailed, true)) return true;
      }
    }
    if (take(entry_config, false)) return true;
  }
  const Config c = model();
  if (auto why = reject(c)) {
    why_not += fmt::format("{}{}: {}", why_not.empty() ? "" : "; ", family_name(family), *why);
    return false;
  }
  out.family = family;
  out.*slot = c;
  out.workspace_bytes = bytes(c);
  out.why = invariant(p) ? Why::batch_invariant : Why::model;
  return true;
}

// The `transfers` of families whose entries serve every shape within the table's reach.
constexpr auto kEveryShape = [](const auto&, const TableEntry&) { return true; };

// An entry's tile measured at its own shape says little where the same tile fills the GPU's waves
// far worse: a 1024^3 entry's 128 x 64 tiles make one wave of 128 on 132 SMs, but 136 tiles at
// 1023 x 1025 x 1027, a second wave of 4 (docs/shapes.md, "A table entry's tile only where it
// fills the waves"). Below 85% of the entry's wave fill, the model decides. (The bound was 75%
// until entries at neighbours just above it ran far slower than the model's choice on an H200.)
constexpr double kWaveFillKept = 0.85;

// The `transfers` of a family whose configurations fill waves: `fill(config, problem)` is its wave
// fill (sm90_wave_fill, simt_wave_fill).
template <class Fill>
auto wave_fill_transfers(const Problem& p, const DeviceState& dev, Fill fill) {
  return [&p, &dev, fill](const auto& c, const TableEntry& e) {
    Problem at_entry = p;
    at_entry.m = e.m, at_entry.n = e.n, at_entry.k = e.k, at_entry.batch = e.batch;
    return fill(p, c, dev) >= kWaveFillKept * fill(at_entry, c, dev);
  };
}

bool choose_sm90(const ContextImpl& ctx, const Problem& p, std::size_t ws, Choice& out, std::string& why_not) {
  const DeviceState& dev = ctx.device;
  const auto transfers = wave_fill_transfers(p, dev, sm90_wave_fill);
  // An entry's single 128 x 64 tiles go in pairs where rows of A or B are off the 32-byte sectors:
  // every entry was measured at a shape whose rows start on them. For the same reason its tiles of
  // 96 columns or more become 128 x 256 ones, alone or in pairs, where rows off the 128-byte lines
  // read slowly (sm90_wide_tiles_where_rows_read_slowly). Its 128-row tiles of 128 columns
  // or more become 192 x 96 ones where those finish in fewer rounds, and its 128-row tiles 64 x 64
  // ones where those gain: the entries were measured before 64 x 64 tiles existed. Its pairs of
  // 128 x 256 tiles stay pairs away from its own shape only where sm90_wide_pairs_gain: pairs and
  // single tiles measure close to each other over many waves, so the pairing an entry won by says
  // little at a neighbour with fewer waves (5120^3 on an H200 ran the 6144^3 entry's pairs slower
  // than single tiles with a stream-K tail; docs/shapes.md, "Pairs of wide tiles need a longer K").
  const auto from_entry = [&p, &dev](const TableEntry& e) {
    Sm90Config c = sm90_from(e);
    if (c.tile_n == 256 && c.cluster == 2 && !at_entry_shape(e, p) && !sm90_wide_pairs_gain(p, dev)) c.cluster = 1;
    c = sm90_wide_tiles_where_rows_read_slowly(p, sm90_tall_tiles_where_they_gain(p, c, dev), dev);
    return sm90_pairs_where_they_gain(p, sm90_small_tiles_where_they_gain(p, c, dev));
  };
  return choose_family(
      ctx, p, Family::sm90, &Choice::sm90, from_entry,
      [&] { return sm90_model_choice(p, dev, ws, invariant(p)); },
      [&](const Sm90Config& c) { return sm90_reject(p, c, dev, ws); },
      [&](const Sm90Config& c) { return sm90_workspace_bytes(p, c, dev, ws); }, out, why_not, transfers);
}

bool choose_tf32(const ContextImpl& ctx, const Problem& p, std::size_t ws, Choice& out, std::string& why_not) {
  const DeviceState& dev = ctx.device;
  // An entry's 128-row tiles become 64-row ones where those gain, as choose_sm90's; its single
  // tiles go in pairs where A's rows read in place start off the 32-byte sectors (every entry was
  // measured at a shape whose rows start on them).
  const auto from_entry = [&p, &dev](const TableEntry& e) {
    return tf32_pairs_where_rows_read_slowly(p, tf32_small_tiles_where_they_gain(p, tf32_from(e), dev), dev);
  };
  // Whether K is split depends on the shape's tiles and K, which an entry does not carry to its
  // neighbours (as the stream-K tail in choose_family). Over a single row of 128-row tiles (m <=
  // 128), an entry's whole tiles serve a neighbour where the model would not split K; where it
  // would (fewer tiles, a longer K), the model decides. Over more rows the entry stays: its tiles
  // become 64-row ones where they gain, and the model's split measured slower than the entry's
  // tiles near 1024^3 (docs/shapes.md, "TF32 entries' whole tiles and a split of K").
  // The model's choice, made once and only when asked for (by that rule or as the fallback).
  std::optional<Tf32Config> model;
  const auto model_choice = [&]() -> const Tf32Config& {
    if (!model) model = tf32_model_choice(p, dev, ws, invariant(p));
    return *model;
  };
  const auto transfers = [&](const Tf32Config& c, const TableEntry& e) {
    return p.m > 128 || c.splits > 1 || at_entry_shape(e, p) || model_choice().splits <= 1;
  };
  return choose_family(
      ctx, p, Family::sm90_tf32, &Choice::tf32, from_entry, model_choice,
      [&](const Tf32Config& c) { return tf32_reject(p, c, dev, ws); },
      [&](const Tf32Config& c) { return tf32_workspace_bytes(p, c, dev, ws); }, out, why_not, transfers);
}

bool choose_skinny(const ContextImpl& ctx, const Problem& p, std::size_t ws, Choice& out, std::string& why_not) {
  const DeviceState& dev = ctx.device;
  return choose_family(
      ctx, p, Family::skinny, &Choice::skinny, skinny_from, [&] { return skinny_model_choice(p, dev, ws); },
      [&](const SkinnyConfig& c) { return skinny_reject(p, c, dev, ws); },
      [&](const SkinnyConfig& c) { return skinny_workspace_bytes(p, c, dev); }, out, why_not,
      kEveryShape);
}

bool choose_skinny_simt(const ContextImpl& ctx, const Problem& p, std::size_t ws, Choice& out, std::string& why_not) {
  const DeviceState& dev = ctx.device;
  return choose_family(
      ctx, p, Family::skinny_simt, &Choice::skinny, skinny_from, [&] { return skinny_simt_model_choice(p, dev); },
      [&](const SkinnyConfig& c) { return skinny_simt_reject(p, c, dev, ws); },
      [&](const SkinnyConfig&) { return skinny_simt_workspace_bytes(p); }, out, why_not,
      kEveryShape);
}

// The small-tile kernel has no parameters to choose: it runs p, or says why not.
bool choose_small(const ContextImpl& ctx, const Problem& p, Choice& out, std::string& why_not) {
  if (auto why = small_reject(p, ctx.device)) {
    why_not += fmt::format("{}{}: {}", why_not.empty() ? "" : "; ", family_name(Family::small), *why);
    return false;
  }
  out.family = Family::small;
  out.workspace_bytes = 0;
  const TableEntry* e = table_entry(ctx, p);
  out.why = e && e->kernel == family_name(Family::small) ? Why::table : invariant(p) ? Why::batch_invariant : Why::model;
  out.entry = out.why == Why::table ? e : nullptr;
  return true;
}

bool choose_simt(const ContextImpl& ctx, const Problem& p, std::size_t ws, Choice& out, std::string& why_not) {
  const DeviceState& dev = ctx.device;
  // As choose_sm90's: an H200 1024^3 entry's 128 x 256 tiles in 4 slices make 128 blocks on 132
  // SMs, but 160 at 1023 x 1025 x 1027, a second wave of 28.
  const auto transfers = wave_fill_transfers(p, dev, simt_wave_fill);
  // Evaluated once: from_entry asks for it, and so does choose_family where the entry is refused.
  std::optional<SimtConfig> model_choice;
  const auto model = [&] {
    if (!model_choice) model_choice = simt_model_choice(p, dev, ws, invariant(p));
    return *model_choice;
  };
  // The entries were measured before 32 x 128 tiles existed. Where the model takes them (D's rows,
  // or those of its last tile row, at most 32), 64-row tiles compute up to half padding, and
  // the model's choice replaces the entry's (docs/shapes.md, "32-row FP32 tiles").
  // The entries were measured on a B read in 16-byte pieces; where the model copies one that cannot
  // be into aligned rows first, the entry's tiles run on that copy (docs/kernels/fp32-ladder.md,
  // "B in unaligned rows").
  const auto from_entry = [&](const TableEntry& e) {
    const SimtConfig own = model();
    if (own.tile_m == 32) return own;
    SimtConfig c = simt_from(e);
    if (own.copy_b && !p.b.k_major && c.splits <= 1) c.copy_b = true;
    return c;
  };
  return choose_family(
      ctx, p, Family::simt, &Choice::simt, from_entry, model,
      [&](const SimtConfig& c) -> std::optional<std::string> {
        if (auto why = simt_reject(p, c, dev)) return why;
        // Split-K and a slice of B's copy must fit the workspace (a stream-K tail that does not is
        // dropped at launch).
        return simt_workspace_reject(p, c, dev, ws);
      },
      [&](const SimtConfig& c) { return std::min(simt_workspace_bytes(p, c, dev), ws); }, out, why_not,
      transfers);
}

// What a choice launches: split-K's slices as the kernel runs them (a requested 66
// runs as 64 where K's k-tiles share out so), so that a plan names the count that runs, and the
// blocks of D where the operands' copies do not fit whole.
void note_launch(Choice& c, const Problem& p, const DeviceState& state, std::size_t workspace_bytes) {
  if (c.family == Family::sm90) {
    c.sm90.splits = sm90_slices(p, c.sm90);
    c.blocks = sm90_copy_blocks(p, c.sm90, state, workspace_bytes);
  }
  if (c.family == Family::sm90_tf32) {
    c.tf32.splits = tf32_slices(p, c.tf32);
    c.blocks = tf32_copy_blocks(p, c.tf32, state, workspace_bytes);
  }
  if (c.family == Family::simt) c.simt.splits = simt_slices(p, c.simt);
}

constexpr const char* kPairsWords = "; in pairs sharing A: rows of A or B off the 32-byte sectors";
constexpr const char* kSinglesWords =
    "; single tiles, not the entry's pairs: pairs of 128x256 tiles need 8 waves of them and a K of 8 k-tiles";
constexpr const char* kWideWords =
    "; in 128x256 tiles: rows of A or B off the 128-byte lines read slowly (the entry's were on them), and wide tiles "
    "read the fewest bytes a FLOP";
constexpr const char* kWidePairsWords =
    "; in 128x256 tiles in pairs sharing B: B's rows off the 128-byte lines read slowly (the entry's were on them), "
    "and pairs halve those reads";
constexpr const char* kTf32PairsWords =
    "; in pairs sharing A: A's rows off the 32-byte sectors read at about half speed (the entry's were on them), and "
    "pairs halve those reads";
constexpr const char* kSmallWords = "; in 64-row tiles: m <= 64, or 128-row tiles would leave half the SMs or more idle";
constexpr const char* kTallWords = "; in 192x96 tiles instead (the table predates them): they finish in fewer rounds";
constexpr const char* kAlignedCopyWords =
    "; B first copied into aligned rows (the entry was measured on a B read in 16-byte pieces)";
constexpr const char* kThinWords =
    "; the model's 32x128 tiles instead (the table predates them): 64-row tiles would compute up to half padding";

// What dispatch changed in a table entry's configuration, in words: the pairs, the 192- or 64-row
// tiles (choose_sm90's and choose_tf32's from_entry), the model's 32-row tiles (choose_simt's).
const char* entry_changed_words(const Choice& c) {
  if (c.family == Family::sm90) {
    const Sm90Config entry = sm90_from(*c.entry);
    // The row count first: 192-row tiles come from single ones only, and 64-row tiles are always
    // alone, so an entry's pairs of 128 x 256 tiles turned into them change the cluster too.
    // (An entry's single 128 x 256 tiles go in pairs by sm90_wide_tiles_where_rows_read_slowly only.)
    const bool widened = c.sm90.tile_n == 256 && (entry.tile_n != 256 || (c.sm90.cluster == 2 && entry.cluster != 2));
    return widened ? (c.sm90.cluster == 2 ? kWidePairsWords : kWideWords)
           : c.sm90.tile_m == 192 && entry.tile_m != 192 ? kTallWords
           : c.sm90.tile_m != entry.tile_m                 ? kSmallWords
           : c.sm90.cluster == entry.cluster               ? ""
           : c.sm90.cluster == 2                           ? kPairsWords
                                                           : kSinglesWords;
  }
  if (c.family == Family::sm90_tf32) {
    const Tf32Config entry = tf32_from(*c.entry);
    return c.tf32.tile_m != entry.tile_m ? kSmallWords : c.tf32.cluster != entry.cluster ? kTf32PairsWords : "";
  }
  if (c.family == Family::simt) {
    const SimtConfig entry = simt_from(*c.entry);
    return c.simt.tile_m != entry.tile_m && c.simt.tile_m == 32 ? kThinWords
           : c.simt.copy_b && !entry.copy_b                     ? kAlignedCopyWords
                                                                : "";
  }
  return "";
}

// What the model's choice says in words.
std::string model_words(const Choice& c, const Problem& p) {
  switch (c.family) {
    case Family::sm90:
      if (c.sm90.splits > 1)
        return fmt::format("split-K in {} slices: few tiles and a long K (partial sums added in a second pass)",
                           c.sm90.splits);
      if (c.sm90.tile_m == 64)
        return fmt::format("{}{}",
                           p.m <= 64 ? "64x64 tiles: m <= 64 (a 128-row tile would be half padding)"
                                     : "64x64 tiles: 128x64 tiles would leave half the SMs or more idle",
                           c.sm90.tile_n == 32 ? "; 64x32 ones, since 64x64 tiles would fill at most half the SMs" : "");
      if (c.sm90.tile_n == 64)
        return fmt::format("{}{}", p.n <= 64 ? "128x64 tiles: n <= 64" : "128x64 tiles: 128x128 tiles would leave half the SMs or more idle",
                           c.sm90.cluster == 2 ? kPairsWords : "");
      return c.sm90.tile_n == 128 ? (p.n <= 128 ? "128x128 tiles: n <= 128" : "128x128 tiles: fewer 128x256 tiles than SMs")
             : c.sm90.tile_n == 192 ? "128x192 tiles: they finish in fewer rounds than 128x256 or 128x128 ones"
             : c.sm90.tile_n == 96  ? "192x96 tiles: they finish in fewer rounds than 128-row ones"
             : c.sm90.cluster == 2
                 ? (sm90_slow_rows(p).b_off_lines
                        ? "128x256 tiles in pairs sharing B: B's rows off the 128-byte lines read slowly, and pairs "
                          "halve those reads"
                        : "128x256 tiles in pairs sharing B: 8 waves of tiles or more, and 8 k-tiles")
             : p.m <= 16 ? "128x256 tiles: a decode step past the skinny kernel's 256 MiB streams B faster in wide tiles"
             : sm90_slow_rows(p).any()
                 ? "128x256 tiles: rows of A or B off the 128-byte lines read slowly, and wide tiles read the fewest "
                   "bytes a FLOP"
                 : "128x256 tiles";
    case Family::sm90_tf32:
      if (c.tf32.splits > 1)
        return fmt::format("{}x128 tiles, split-K in {} slices: few tiles and a long K (partial sums added in a second pass){}",
                           c.tf32.tile_m, c.tf32.splits, p.a.k_major ? "" : "; A is M-major and is first copied K-major");
      if (tf32_swaps(p, c.tf32))
        return fmt::format("{}x128 tiles in clusters of {}; A is M-major and B K-major: the kernel computes D^T = "
                           "op(B)^T op(A)^T and writes it column-major (no copy)",
                           c.tf32.tile_m, c.tf32.cluster);
      return fmt::format("{}x128 tiles{} in clusters of {}{}", c.tf32.tile_m,
                         c.tf32.tile_m == 64    ? (p.m <= 64 ? " (m <= 64)" : " (128-row tiles would leave half the SMs or more idle)")
                         : c.tf32.tile_m == 128 ? (p.m <= 128 ? " (m <= 128)" : " (256-row tiles would leave half the SMs or more idle)")
                                                : "",
                         c.tf32.cluster,
                         p.a.k_major ? "" : "; A is M-major and is first copied K-major (TF32 wgmma reads K-major tiles only)");
    case Family::skinny:
      if (c.skinny.bulk && c.skinny.persistent)
        return fmt::format("a short side of D: mma.sync with it as the 8-wide operand; a long operand: W and X stream "
                           "through TMA stages, {}, each an even share of every tile's stages (tiles cut between CTAs "
                           "are added in a fixed order)",
                           c.skinny.splits > 1 ? fmt::format("{} CTAs a tile", c.skinny.splits) : std::string("one CTA an SM"));
      return fmt::format("a short side of D: mma.sync with it as the 8-wide operand, k split over clusters of {}{}",
                         c.skinny.splits, c.skinny.bulk ? "; a long operand: W and X stream through TMA stages, one CTA an SM" : "");
    case Family::skinny_simt:
      return fmt::format("a short side of D: FP32 products on CUDA cores streaming the long operand, k split over "
                         "clusters of {}",
                         c.skinny.splits);
    case Family::small:
      return "a batch of problems of at most 64 x 64: 64x64 tiles on mma.sync, the next tile's loads in flight "
             "during each epilogue (a 128x128 tile would be 3/4 padding or more)";
    case Family::simt:
      return fmt::format("{}{}{}",
                         c.simt.splits > 1 ? fmt::format("split-K in {} slices: too few tiles to fill the GPU", c.simt.splits)
                         : c.simt.stream_k != 0 ? "whole tiles, and a stream-K tail for a partial last wave"
                                                : "the tile with the fewest waves for its efficiency",
                         c.simt.tile_m == 32 ? "; 32x128 tiles: 64-row ones would compute up to half padding" : "",
                         !simt_copies_b(p, c.simt) ? ""
                         : p.b.k_major ? "; B is K-major and is first copied N-major (16-byte copies in the main loop)"
                                       : "; B's rows cannot be read in 16-byte pieces (unaligned, or n % 4 != 0) and are "
                                         "first copied into aligned rows (16-byte copies in the main loop)");
    default: return "the only kernel for this problem";
  }
}

// See choose(): a TF32 problem the exact FP32 kernel serves faster than the copies and the tensor
// cores (ExactFirst says why; docs/shapes.md, "Small TF32 problems on the exact FP32 kernel" and
// "TF32 problems bound by their copies").
enum class ExactFirst { no, small, copies };
// A copy reads and writes each byte of the operands it copies, and the TF32 kernel reads them once
// more, where the FP32 kernel reads them once as stored; but the FP32 kernel multiplies at about an
// eighth of the TF32 rate. So the FP32 kernel goes first where the problem's multiply-adds, counted
// over the FP32 kernel's smallest tile (32 x 128, its padding included), are few for the bytes
// copied: the bound lies between the ratios at which the FP32 kernel measured faster and slower
// (docs/shapes.md, "TF32 problems bound by their copies").
constexpr double kMaxFlopsPerCopiedByte = 40;
ExactFirst exact_first_why(const Problem& p) {
  const std::size_t copies = tf32_copies_bytes(p);
  if (copies == 0 || p.grouped()) return ExactFirst::no;
  constexpr double kMaxOperandBytes = 4.0 * 1024 * 1024;
  const double items = double(p.batch);
  const double bytes = double(p.m + p.n) * double(p.k) * sizeof(float) * items;
  if (p.m <= 64 && p.n <= 64 && bytes <= kMaxOperandBytes) return ExactFirst::small;
  const double padded_flops = 2.0 * double(cdiv(p.m, 32) * 32) * double(cdiv(p.n, 128) * 128) * double(p.k) * items;
  return padded_flops < kMaxFlopsPerCopiedByte * double(copies) ? ExactFirst::copies : ExactFirst::no;
}
bool exact_first(const Problem& p) { return exact_first_why(p) != ExactFirst::no; }

}  // namespace

const char* family_name(Family f) {
  switch (f) {
    case Family::generic: return "any.simt_tiled";
    case Family::simt: return "sm80.simt_pipelined";
    case Family::sm90: return "sm90.wgmma";
    case Family::sm90_tf32: return "sm90.wgmma_swapab";
    case Family::skinny: return "sm90.skinny_mma";
    case Family::skinny_simt: return "sm90.skinny_simt";
    case Family::small: return "sm80.mma_small";
  }
  return "?";
}

std::map<std::string, int> config_fields(const Choice& c) {
  switch (c.family) {
    case Family::sm90:
      return {{"tile_m", c.sm90.tile_m}, {"tile_n", c.sm90.tile_n}, {"cluster", c.sm90.cluster},
              {"group_m", c.sm90.group_m}, {"stream_k", c.sm90.stream_k}, {"splits", c.sm90.splits}};
    case Family::sm90_tf32:
      return {{"tile_m", c.tf32.tile_m}, {"cluster", c.tf32.cluster}, {"group_m", c.tf32.group_m},
              {"stream_k", c.tf32.stream_k}, {"splits", c.tf32.splits}};
    case Family::skinny: return {{"splits", c.skinny.splits}, {"bulk", c.skinny.bulk}, {"persistent", c.skinny.persistent}};
    case Family::skinny_simt: return {{"splits", c.skinny.splits}};
    case Family::simt:
      return {{"tile_m", c.simt.tile_m}, {"tile_n", c.simt.tile_n}, {"thread_m", c.simt.thread_m},
              {"stages", c.simt.stages}, {"group_m", c.simt.group_m}, {"splits", c.simt.splits},
              {"stream_k", c.simt.stream_k}, {"copy_b", c.simt.copy_b ? 1 : 0}};
    default: return {};
  }
}

std::string types_key(const Problem& p) {
  return fmt::format("{}.{}{}", p.tf32 ? std::string_view("tf32") : to_string(p.ab), to_string(p.cd),
                     p.grouped() ? ".grouped" : "");
}

void prepare_kernels(DeviceState& state) {
  prepare_sm90(state);
  prepare_tf32(state);
  prepare_simt(state);
  prepare_skinny(state);
  prepare_small(state);
}

Choice choose(const ContextImpl& ctx, const Problem& p, std::size_t workspace_bytes) {
  Choice c;
  std::string why_not;
  // The fast families that compute this problem's types, fastest first by design; the family a
  // table entry measured fastest goes first.
  std::vector<Family> order;
  if (p.ab == DataType::bf16 || p.ab == DataType::f16) order = {Family::sm90};
  else if (p.ab == DataType::f32 && p.tf32) order = {Family::sm90_tf32, Family::simt};  // simt: exactly in FP32
  else if (p.ab == DataType::f32) order = {Family::simt};
  // TF32 allowed, but the exact FP32 kernel first where the tensor cores would buy nothing: a D of at
  // most 64 x 64 (a quarter of one 128 x 128 tile) whose operands must be copied first (two more
  // launches), and few megabytes of them, which the FP32 kernel reads as they are stored; or any D
  // whose copies would take longer than the FP32 kernel's multiply-adds (exact_first_why).
  const bool exact = p.ab == DataType::f32 && p.tf32 && exact_first(p);
  if (exact) order = {Family::simt, Family::sm90_tf32};
  // A D of at most 16 rows is bound by the bytes of its long operand: the skinny kernel streams
  // them, where a tile kernel would multiply mostly padding (skinny_first says when).
  if (!order.empty() && skinny_first(p)) order.insert(order.begin(), Family::skinny);
  if (!order.empty() && skinny_simt_first(p)) order.insert(order.begin(), Family::skinny_simt);
  // A batch of problems of at most 64 x 64: the small-tile kernel multiplies no padding tiles.
  if (!order.empty() && small_first(p, ctx.device)) order.insert(order.begin(), Family::small);
  const TableEntry* e = table_entry(ctx, p);
  if (e && e->kernel == family_name(Family::generic)) {
    c.why = Why::table;
    c.entry = e;
    return c;
  }
  // An entry was measured at a shape whose operands the TMA addresses (no copies): its family does
  // not override the exact FP32 kernel chosen for the copies' cost.
  if (e && !exact)
    for (std::size_t i = 1; i < order.size(); ++i)
      if (e->kernel == family_name(order[i])) std::rotate(order.begin(), order.begin() + long(i), order.begin() + long(i) + 1);
  for (Family f : order) {
    const bool chosen = f == Family::sm90        ? choose_sm90(ctx, p, workspace_bytes, c, why_not)
                        : f == Family::sm90_tf32 ? choose_tf32(ctx, p, workspace_bytes, c, why_not)
                        : f == Family::skinny    ? choose_skinny(ctx, p, workspace_bytes, c, why_not)
                        : f == Family::skinny_simt ? choose_skinny_simt(ctx, p, workspace_bytes, c, why_not)
                        : f == Family::small     ? choose_small(ctx, p, c, why_not)
                                                 : choose_simt(ctx, p, workspace_bytes, c, why_not);
    if (chosen) {
      note_launch(c, p, ctx.device, workspace_bytes);
      return c;
    }
  }
  c = Choice{};
  c.why = Why::fallback;
  c.fallback = why_not.empty() ? "no fast kernel computes these types" : std::move(why_not);
  return c;
}

namespace {

// A tunable family's configuration as a candidate for p, with its workspace, or nothing where it
// cannot run p with this workspace.
std::optional<Choice> sm90_candidate(const ContextImpl& ctx, const Problem& p, const Sm90Config& cfg,
                                     std::size_t workspace_bytes) {
  if (sm90_reject(p, cfg, ctx.device, workspace_bytes)) return std::nullopt;
  Choice c;
  c.family = Family::sm90;
  c.sm90 = cfg;
  c.workspace_bytes = sm90_workspace_bytes(p, cfg, ctx.device, workspace_bytes);
  note_launch(c, p, ctx.device, workspace_bytes);
  return c;
}

std::optional<Choice> tf32_candidate(const ContextImpl& ctx, const Problem& p, const Tf32Config& cfg,
                                     std::size_t workspace_bytes) {
  if (tf32_reject(p, cfg, ctx.device, workspace_bytes)) return std::nullopt;
  Choice c;
  c.family = Family::sm90_tf32;
  c.tf32 = cfg;
  c.workspace_bytes = tf32_workspace_bytes(p, cfg, ctx.device, workspace_bytes);
  note_launch(c, p, ctx.device, workspace_bytes);
  return c;
}

std::optional<Choice> simt_candidate(const ContextImpl& ctx, const Problem& p, const SimtConfig& cfg,
                                     std::size_t workspace_bytes) {
  if (simt_reject(p, cfg, ctx.device) || simt_workspace_reject(p, cfg, ctx.device, workspace_bytes)) return std::nullopt;
  Choice c;
  c.family = Family::simt;
  c.simt = cfg;
  c.workspace_bytes = std::min(simt_workspace_bytes(p, cfg, ctx.device), workspace_bytes);
  note_launch(c, p, ctx.device, workspace_bytes);
  return c;
}

}  // namespace

std::vector<Choice> candidates(const ContextImpl& ctx, const Problem& p, std::size_t workspace_bytes) {
  std::vector<Choice> out;
  Choice generic;
  generic.why = Why::fallback;
  generic.fallback = "candidate";
  out.push_back(generic);
  // A stream-K tail depends on m: none for batch-invariant calls, as their model's choice has none.
  const auto tail_breaks_invariance = [&p](int stream_k) { return invariant(p) && stream_k != 0; };
  for (const Sm90Config& cfg : sm90_configs())
    if (!tail_breaks_invariance(cfg.stream_k))
      if (auto c = sm90_candidate(ctx, p, cfg, workspace_bytes)) out.push_back(*c);
  for (const SimtConfig& cfg : simt_configs())
    if (!tail_breaks_invariance(cfg.stream_k))
      if (auto c = simt_candidate(ctx, p, cfg, workspace_bytes)) {
        // Counts that run as the same slices (note_launch: 8, 16 and 32 asked of K's 7 k-tiles all
        // run 7) are one candidate. (The tensor-core kernels refuse more slices than k-tiles, and
        // their grid's counts share out differently wherever they are offered.)
        const auto same = [&](const Choice& o) { return o.family == Family::simt && o.simt == c->simt; };
        if (std::none_of(out.begin(), out.end(), same)) out.push_back(*c);
      }
  if (skinny_shape(p))
    for (const SkinnyConfig& cfg : skinny_configs()) {
      if (skinny_reject(p, cfg, ctx.device, workspace_bytes)) continue;
      Choice c;
      c.family = Family::skinny;
      c.skinny = cfg;
      c.workspace_bytes = skinny_workspace_bytes(p, cfg, ctx.device);
      out.push_back(c);
    }
  if (skinny_simt_shape(p))
    for (const SkinnyConfig& cfg : skinny_configs()) {
      if (skinny_simt_reject(p, cfg, ctx.device, workspace_bytes)) continue;
      Choice c;
      c.family = Family::skinny_simt;
      c.skinny = cfg;
      c.workspace_bytes = skinny_simt_workspace_bytes(p);
      out.push_back(c);
    }
  if (!small_reject(p, ctx.device)) {
    Choice c;
    c.family = Family::small;
    out.push_back(c);
  }
  for (const Tf32Config& cfg : tf32_configs())
    if (!tail_breaks_invariance(cfg.stream_k))
      if (auto c = tf32_candidate(ctx, p, cfg, workspace_bytes)) out.push_back(*c);
  return out;
}

std::vector<Choice> split_neighbours(const ContextImpl& ctx, const Problem& p, const Choice& pick,
                                     std::size_t workspace_bytes) {
  std::vector<Choice> out;
  const int splits = pick.family == Family::sm90        ? pick.sm90.splits
                     : pick.family == Family::sm90_tf32 ? pick.tf32.splits
                     : pick.family == Family::simt      ? pick.simt.splits
                                                        : 1;
  if (splits <= 1) return out;
  for (const int s : {splits / 2, splits * 2}) {
    if (s < 2) continue;
    std::optional<Choice> c;
    if (pick.family == Family::sm90) {
      Sm90Config cfg = pick.sm90;
      cfg.splits = s;
      c = sm90_candidate(ctx, p, cfg, workspace_bytes);
    } else if (pick.family == Family::sm90_tf32) {
      Tf32Config cfg = pick.tf32;
      cfg.splits = s;
      c = tf32_candidate(ctx, p, cfg, workspace_bytes);
    } else {
      SimtConfig cfg = pick.simt;
      cfg.splits = s;
      c = simt_candidate(ctx, p, cfg, workspace_bytes);
    }
    // A count K's k-tiles cannot share out as asked runs as a nearby one (note_launch): keep only
    // neighbours that run a count of their own.
    const auto runs = [](const Choice& x) { return x.sm90.splits * x.tf32.splits * x.simt.splits; };
    if (c && runs(*c) != runs(pick) && (out.empty() || runs(out.back()) != runs(*c))) out.push_back(*c);
  }
  return out;
}

void execute(const Choice& c, const Problem& p, const LaunchEnv& env) {
  switch (c.family) {
    case Family::sm90: launch_sm90(p, c.sm90, env); return;
    case Family::sm90_tf32: launch_tf32(p, c.tf32, env); return;
    case Family::simt: launch_simt(p, c.simt, env); return;
    case Family::skinny: launch_skinny(p, c.skinny, env); return;
    case Family::skinny_simt: launch_skinny_simt(p, c.skinny, env); return;
    case Family::small: launch_small(p, env); return;
    default: launch_generic(p, env.stream); return;
  }
}

Plan describe(const Choice& c, const Problem& p) {
  Plan plan;
  plan.kernel = fmt::format("{}.{}", family_name(c.family), types_key(p));
  switch (c.family) {
    case Family::sm90:
      plan.config = fmt::format("tile={}x{} cluster={} group={} stream_k={}{}", c.sm90.tile_m, c.sm90.tile_n,
                                c.sm90.cluster, c.sm90.group_m, c.sm90.stream_k,
                                c.sm90.splits > 1 ? fmt::format(" splits={}", c.sm90.splits) : std::string());
      break;
    case Family::sm90_tf32:
      plan.config = fmt::format("tile={}x128 cluster={} group={} stream_k={}{}{}", c.tf32.tile_m, c.tf32.cluster, c.tf32.group_m,
                                c.tf32.stream_k, c.tf32.splits > 1 ? fmt::format(" splits={}", c.tf32.splits) : std::string(),
                                p.a.k_major ? "" : tf32_swaps(p, c.tf32) ? " swap_ab=d_col_major" : " copy_a=k_major");
      break;
    case Family::skinny:
    case Family::skinny_simt:
      plan.config = fmt::format("splits={}{}{}", c.skinny.splits, c.skinny.bulk ? " bulk=1" : "", c.skinny.persistent ? " persistent=1" : "");
      break;
    case Family::small: plan.config = "tile=64x64 stages=2"; break;
    case Family::simt:
      plan.config = fmt::format("tile={}x{} thread_tile={}x8 stages={} group={} splits={} stream_k={}{}", c.simt.tile_m,
                                c.simt.tile_n, c.simt.thread_m, c.simt.stages, c.simt.group_m, c.simt.splits,
                                c.simt.stream_k, !simt_copies_b(p, c.simt) ? "" : p.b.k_major ? " copy_b=n_major" : " copy_b=aligned");
      break;
    default: break;
  }
  if (c.blocks.rows > 0)
    plan.config += fmt::format(" blocks={}x{} ({} launches: the copies in 128-byte rows fit the workspace block by block)",
                               std::min(c.blocks.rows, p.m), std::min(c.blocks.cols, p.n), c.blocks.count(p.m, p.n));
  plan.config += fmt::format("{}layout={}{}{}", plan.config.empty() ? "" : " ", p.layout_name(),
                             p.has_epilogue() ? " epilogue=fused" : "",
                             p.transposed ? " (D column-major: D^T computed)" : "");
  switch (c.why) {
    case Why::table:
      plan.reason = fmt::format("dispatch table: measured fastest at {} on {}{}{}",
                                shape_text(c.entry->m, c.entry->n, c.entry->k, c.entry->batch), c.entry->kernel,
                                c.tail_here ? " (a stream-K tail where the model finds it gains at this shape)" : "",
                                entry_changed_words(c));
      break;
    case Why::model:
      if (c.entry_refused && c.entry_refused->kernel == family_name(c.family))
        plan.reason = fmt::format("model: {} (the table's entry at {} {})", model_words(c, p),
                                  shape_text(c.entry_refused->m, c.entry_refused->n, c.entry_refused->k,
                                             c.entry_refused->batch),
                                  c.family == Family::sm90_tf32 ? "has whole tiles, and the model splits K here"
                                                                : "would fill the GPU's waves far less here");
      else
        plan.reason = fmt::format("model: {} (no table entry near {})", model_words(c, p),
                                  shape_text(p.m, p.n, p.k, p.grouped() ? p.groups : p.batch));
      if (c.family == Family::simt && p.tf32) {
        const ExactFirst why = exact_first_why(p);
        if (why == ExactFirst::small)
          plan.reason += "; TF32 allowed, but D is at most 64 x 64 and the tensor-core kernel would copy its "
                         "operands first: the exact FP32 kernel reads them as stored";
        if (why == ExactFirst::copies)
          plan.reason += "; TF32 allowed, but the tensor-core kernel would first copy operands whose bytes take "
                         "longer than the exact FP32 kernel, which reads them as stored, takes to multiply";
      }
      break;
    case Why::batch_invariant:
      plan.reason = "batch-invariant: one configuration for every m, whole tiles, no split of K";
      break;
    case Why::fallback: plan.reason = fmt::format("generic kernel: {}", c.fallback); break;
  }
  plan.workspace_bytes = c.workspace_bytes;
  return plan;
}

}  // namespace gemmlab::detail
