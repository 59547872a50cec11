// The library's Hopper BF16/FP16 kernel (kernels/tensor/hopper.cuh) as dispatch sees it: which
// problems and configurations it takes, what workspace they need, its model's choice, and launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/problem.hpp"
#include "kernels/library/configs.hpp"
#include "kernels/library/launch.hpp"
#include "kernels/library/operand_copy.hpp"

namespace gemmlab::detail {

// Once per Context: raise the shared-memory limit of every instantiation on this device and count
// the resident clusters of each tile configuration (state.sm90_resident).
void prepare_sm90(DeviceState& state);

// Why this configuration cannot compute p on this device, or nothing when it can: 16-bit operands,
// an sm_90 GPU, the configuration compiled for this kind of problem, and room in `workspace_bytes`
// for the copies of operands the TMA cannot address (pointers, leading dimensions or batch strides
// that are not 16-byte multiples are copied into rows of a 16-byte multiple first): for all of
// them, or, for a single problem without split-K, for those of one block of D (sm90_copy_blocks).
std::optional<std::string> sm90_reject(const Problem& p, const Sm90Config& c, const DeviceState& state,
                                       std::size_t workspace_bytes);

// Scratch the launch uses: the operand copies, then the stream-K tail's partial sums (0 without
// either). A tail whose partial sums do not fit the rest of `workspace_bytes` is dropped: the
// result is then whole tiles only.
std::size_t sm90_workspace_bytes(const Problem& p, const Sm90Config& c, const DeviceState& state,
                                 std::size_t workspace_bytes);

// The slices split-K runs for c: K's k-tiles in equal shares, as many as cover it (split_k_slices),
// which can be fewer than c.splits asks for (66 of K = 65536 run as 64 of 16 k-tiles); c.splits
// where it does not split.
int sm90_slices(const Problem& p, const Sm90Config& c);

void launch_sm90(const Problem& p, const Sm90Config& c, const LaunchEnv& env);

// The blocks of D the launch multiplies one after the other where the operands' copies do not fit
// `workspace_bytes` whole (operand_copy.hpp); rows 0 where they fit or nothing runs.
CopyBlocks sm90_copy_blocks(const Problem& p, const Sm90Config& c, const DeviceState& state,
                                  std::size_t workspace_bytes);

// The kernel function, block and grid a launch would use (for occupancy and profiler analyses).
struct Sm90LaunchShape {
  const void* kernel = nullptr;
  int threads = 0;
  std::size_t smem_bytes = 0;
  std::int64_t grid = 0;
};
std::optional<Sm90LaunchShape> sm90_launch_shape(const Problem& p, const Sm90Config& c, const DeviceState& state);

// The model's configuration: 128 x 256 tiles unless they leave SMs idle (then 128 x 128, 128 x 192 or
// 192 x 96 where their rounds of tiles take a tenth less time, or 128 x 64
// where 128 x 128 tiles would leave half of them idle, and for n <= 64; 64 x 64 or pairs of 128 x 64
// where sm90_small_tiles_where_they_gain or sm90_pairs_where_they_gain says so), clusters of 2 where
// sm90_wide_pairs_gain says so, a stream-K tail where its cost model gains (and the
// workspace holds it); split-K for a few tiles with a long K. batch_invariant: one configuration
// for every shape, without a tail or a split.
Sm90Config sm90_model_choice(const Problem& p, const DeviceState& state, std::size_t workspace_bytes,
                             bool batch_invariant);

// c, or, where c is single 128-row tiles of at least 128 columns without split-K, 192 x 96 tiles (three
// consumer warpgroups) where their rounds of tiles take at least a tenth less time, a round as long
// as a tile's area: 1536^3 in one round of 128 tiles against one of 96 tiles of 128 x 192, a third
// of the SMs idle (768 x 3072 likewise); 3072^3 (four rounds against three of 128 x 192) stays.
// Only where K is at most 32 k-tiles of 64: over a longer K the wider tiles' faster main loop
// outweighs the rounds (docs/shapes.md, "192 x 96 tiles over a long K").
// Dense, plain epilogue (the only 192 x 96 instantiations: sm90_impl.cuh). Applied to the table's
// entries as well as the model's choice: the entries were measured before 192 x 96 tiles existed
// (docs/shapes.md, "192 x 96 tiles").
Sm90Config sm90_tall_tiles_where_they_gain(const Problem& p, Sm90Config c, const DeviceState& state);

// c, or, where c is 128-row tiles without split-K, 64 x 64 tiles: for m <= 64, where half of every
// 128-row tile is padding, and where single tiles of at most 128 columns would be 128 x 64 tiles
// leaving half the SMs or more idle (128 x 4096 x 4096: 64 tiles for 132 SMs, 128 of 64 x 64) and
// k <= 4 max(m, n) (a longer K is split-K's, on bigger tiles). And 64 x 32 tiles where they fill
// more than half a wave and at most one (64 x 4096 x 4096, 128 x 2048 x 2048), with rows at most
// an eighth padding, 1024 <= k <= 2 max(m, n) and operand rows on 32-byte sectors (docs/shapes.md,
// "64 x 32 tiles").
// Dense, plain epilogue (the only 64-row instantiations: sm90_impl.cuh). Applied to the table's
// entries as well as the model's choice: the entries were measured before 64-row tiles existed
// (docs/shapes.md, "64 x 64 tiles").
Sm90Config sm90_small_tiles_where_they_gain(const Problem& p, Sm90Config c, const DeviceState& state);

// c, or, where c is single 128 x 64 tiles that pairs sharing A serve faster, those pairs: an
// operand read in place with rows that do not start on 32-byte sectors (a leading dimension or
// pointer off that grid, 1000^3 say) and a K of at least 16 k-tiles where that operand is A, 32
// where it is B; whole tiles (no split-K), a plain epilogue, dense. The TMA reads such rows slowly
// and pairs halve A's reads; where every row starts on a sector the cluster costs more than it
// saves (docs/shapes.md, "Pairs of 128 x 64 tiles"). The table's
// entries, all measured at aligned shapes, say nothing about this, so dispatch applies it to them
// as well as to the model's choice.
Sm90Config sm90_pairs_where_they_gain(const Problem& p, Sm90Config c);

// Which rows of A and B that the TMA reads in place start off the 128-byte lines, and whether B's
// also lie off the 32-byte sectors (rows of 3600 bytes, say; 4000 lie off the lines only). The
// TMA reads rows off the sectors at about half speed and rows off the lines somewhat slower than
// aligned ones (docs/shapes.md, "Copies in rows of 128 bytes"). Copies have rows of 128-byte
// multiples.
struct SlowRows {
  bool a_off_lines = false, b_off_lines = false, b_off_sectors = false;
  bool any() const { return a_off_lines || b_off_lines; }
};
SlowRows sm90_slow_rows(const Problem& p);

// c, or, where rows of A or B read slowly (sm90_slow_rows) and c is single tiles of at least 96
// columns without split-K (dense, n > 128, a K of at least 8 k-tiles), 128 x 256 tiles: in pairs
// sharing B where B's rows lie off the sectors (over half a wave of tiles) or, with B
// N-major, off the lines (from a wave and a half), and with a plain epilogue; single ones from
// nine tenths of a wave in place of 192 x 96 tiles, and of 128-row ones where their rounds of tiles
// take no longer. Wide tiles read the fewest operand bytes a FLOP; the table's entries, all
// measured at shapes whose rows start on lines, and the rounds of tiles chose narrower or taller
// ones, which ran slower there (docs/shapes.md, "Wide tiles where rows read slowly"). Applied to
// the table's entries as well as to the model's choice.
Sm90Config sm90_wide_tiles_where_rows_read_slowly(const Problem& p, Sm90Config c, const DeviceState& state);

// Whether pairs of 128 x 256 tiles sharing B (clusters of 2) serve p better than single ones: from
// 8 waves of such tiles on, where the halved B traffic wins a little (below, single tiles measured
// equal or faster: docs/kernels/tensor-ladder.md, "Clusters of 1 below 8 waves"), and with a K of
// at least 8 k-tiles. At one k-tile a tile is its epilogue, and the pairs' coupling only costs
// (H200); at 8 k-tiles pairs gained (H100; docs/shapes.md, "Pairs of wide tiles need a longer K").
// Dense launches with a plain epilogue only (the pairs' instantiations).
bool sm90_wide_pairs_gain(const Problem& p, const DeviceState& state);

// How full configuration c keeps the GPU's waves on p: its units (a cluster's tiles) over the
// resident slots of the waves they take, 1 for whole waves (1023 x 1025 x 1027 in 128 x 64 tiles:
// 136 units on 132 slots, 0.52). Grouped and split-K launches count as full.
double sm90_wave_fill(const Problem& p, const Sm90Config& c, const DeviceState& state);

// The configurations a tuner tries.
std::vector<Sm90Config> sm90_configs();

}  // namespace gemmlab::detail
