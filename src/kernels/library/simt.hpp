// The library's CUDA-core FP32 kernel (kernels/fp32/pipelined.cuh) as dispatch sees it: which
// problems and configurations it takes, the workspace they need, its model's choice, and launch.
//
// What it computes: every f32 x f32 -> f32 problem that is not grouped (TF32-allowed problems too,
// exactly in FP32): the four layouts (A K- or M-major, B K- or N-major), any leading dimensions and
// alignments (16-byte copies where rows allow them, 4-byte ones otherwise; a B the main loop would
// copy 4 bytes at a time, K-major or in unaligned rows, may first be copied N-major into aligned
// rows: SimtConfig::copy_b), strided batches
// (broadcast operands included), C apart from D or D itself, alpha and beta as values or device
// pointers, and the fused bias and activation (epilogue.cuh, as the other library kernels apply
// them). Split-K and the stream-K tail apply the epilogue once, in the reduction or the piece that
// finishes a tile, adding partial sums in a fixed order: results are reproducible run to run.
//
// Offsets: the copy paths keep per-thread offsets in 32-bit registers (the measured main loops
// need every register), so simt_reject refuses a problem whose A or B addressing, batch items
// included, could reach 2^31 elements: dispatch then sends it to the generic kernel. D and C are
// addressed in 64 bits.
//
// Compiled configurations (the index order of DeviceState::simt_resident is the first list):
//   the model's five, in every layout, plain and fused epilogue:
//     0: 128x256, 16x8 thread tiles, 3 stages (with the stream-K tail)
//     1: 128x128, 16x8, 3 stages
//     2: 64x128, 8x8, 2 stages
//     3: 64x64, 8x8, 2 stages
//     4: 32x128, 8x8, 2 stages (for D with at most 32 rows)
//   the lab's FP32 ladder (steps 5 to 8), layout NN and the plain epilogue only: tiles 64/128 x
//   64/128, 256x128 and 128x256 with 8x8 thread tiles, 128x128, 128x256 and 256x128 with 16x8,
//   2 to 4 stages, 16- and 4-byte B copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/problem.hpp"
#include "kernels/fp32/stream_k_tail.hpp"
#include "kernels/library/configs.hpp"
#include "kernels/library/launch.hpp"

namespace gemmlab::detail {

// Once per Context, on its device: raises the dynamic shared-memory limit of every compiled
// kernel (whole tiles and stream-K tails) and records in state.simt_resident the blocks of each of
// the model's five configurations resident on one SM (the fewest over its instantiations).
void prepare_simt(DeviceState& state);

// Why configuration c cannot compute p on this device, or nothing when it can: f32 operands and
// output, not grouped, an sm_80 or newer GPU (cp.async), the configuration compiled for the
// problem's layout and epilogue, 32-bit copy offsets (above), grid limits.
std::optional<std::string> simt_reject(const Problem& p, const SimtConfig& c, const DeviceState& state);
// Whether c copies p's B before the main loop: c.copy_b, where the main loop would copy B 4 bytes at
// a time (a K-major B, or N-major lines that are not 16-byte aligned or have n % 4 != 0).
bool simt_copies_b(const Problem& p, const SimtConfig& c);

// The split-K slices c runs p in: c.splits, less the slices no k-tile would be left for (128 asked
// of K = 4099's 257 16-deep k-tiles run as 86 of 3).
int simt_slices(const Problem& p, const SimtConfig& c);
// Scratch the launch uses: split-K's partial sums ([batch][splits][m][n]), or B's N-major copy
// (copy_b) and the stream-K tail's partial sums (a slot of tile_m x tile_n per piece); 0 without
// any. launch_simt drops a tail whose slots do not fit the workspace it is given (whole tiles only
// then), and copies B in slices of columns of D when the whole copy does not fit; split-K must fit.
std::size_t simt_workspace_bytes(const Problem& p, const SimtConfig& c, const DeviceState& state);
// Why c cannot run p in `workspace_bytes` (split-K's sums, or not even one tile's columns of B's
// copy, do not fit), or nothing when it can.
std::optional<std::string> simt_workspace_reject(const Problem& p, const SimtConfig& c, const DeviceState& state,
                                                 std::size_t workspace_bytes);

// Enqueues the launch(es) on env.stream: the whole tiles (or split-K slices), the stream-K tail,
// the split-K reduction. Allocates nothing, synchronises nothing; leaves env.scratch.flags zero.
void launch_simt(const Problem& p, const SimtConfig& c, const LaunchEnv& env);
// The same with the stream-K tail's early launch chosen (programmatic dependent launch: the
// tail's blocks take the SMs the whole tiles free; the default, and what the other form does).
void launch_simt(const Problem& p, const SimtConfig& c, const LaunchEnv& env, bool early_tail);

// The load-balance model of the lab's fp32.tuned (docs/kernels/fp32-ladder.md, step 9): the five
// configurations x split-K 1, 2, 3, 4, 6, 8, 16, 32, 64, 128 (slices of at least one k-tile),
// waves of blocks on this GPU's SMs, each configuration's measured efficiency, split-K's reduction
// pass (cheaper where the slices' sums stay in L2), the stream-K tail where its own cost model
// keeps one; candidates that need more than workspace_bytes are skipped (or run without their
// tail). batch_invariant: a configuration from n alone, never split-K or a
// stream-K tail (see simt.cu for why every row of D is then the same whatever m).
SimtConfig simt_model_choice(const Problem& p, const DeviceState& state, std::size_t workspace_bytes,
                             bool batch_invariant);

// How full configuration c keeps the GPU's waves on p: its blocks (tiles x batch items x split-K
// slices) over the resident slots of the waves they take, 1 for whole waves. A launch with a
// stream-K tail counts as full (the tail shares out the last wave).
double simt_wave_fill(const Problem& p, const SimtConfig& c, const DeviceState& state);

// The configurations a tuner tries: the five x split-K 1, 2, 4, 8 (and 16, 32 for 32x128), with and
// without the tail where one is compiled; then the five with B's N-major copy (copy_b), the tail
// likewise.
std::vector<SimtConfig> simt_configs();

// ---- for the lab and the analyses --------------------------------------------------------------

// Fills state.simt_resident with the blocks per SM the kernels' launch bounds plan for, without
// asking a GPU (for models evaluated offline); state.props.sm_count must be set.
void assume_simt_occupancy(DeviceState& state);

// The stream-K tail a launch of c would run for p (tail.tiles == 0: none).
fp32::StreamKTail simt_tail(const Problem& p, const SimtConfig& c, const DeviceState& state);

// The kernel, block and grid of the launch that does most of the work (the whole tiles, or the
// tail's when it has more tiles than the rest), for occupancy and profiler analyses.
struct SimtLaunchShape {
  const void* kernel = nullptr;
  int threads = 0;
  std::size_t smem_bytes = 0;
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
};
std::optional<SimtLaunchShape> simt_launch_shape(const Problem& p, const SimtConfig& c, const DeviceState& state);

}  // namespace gemmlab::detail
