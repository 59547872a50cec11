// The library's Hopper TF32 kernel (kernels/tensor/hopper_tf32.cuh) as dispatch sees it. wgmma
// takes TF32 tiles K-major only: the kernel reads a K-major A from shared memory and B, either
// layout, through registers. An M-major A with a K-major B is served by the transposed problem
// (D^T = op(B)^T op(A)^T, its result written column-major: tf32_swaps); an M-major A with an
// N-major B is first copied K-major into the workspace (that copy is the layout's measured cost,
// docs/api.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "api/problem.hpp"
#include "kernels/library/configs.hpp"
#include "kernels/library/launch.hpp"
#include "kernels/library/operand_copy.hpp"

namespace gemmlab::detail {

void prepare_tf32(DeviceState& state);

// Why this configuration cannot compute p within `workspace_bytes` of scratch, or nothing.
std::optional<std::string> tf32_reject(const Problem& p, const Tf32Config& c, const DeviceState& state,
                                       std::size_t workspace_bytes);
std::size_t tf32_workspace_bytes(const Problem& p, const Tf32Config& c, const DeviceState& state,
                                 std::size_t workspace_bytes);
// As sm90_slices: the slices split-K runs for c.
int tf32_slices(const Problem& p, const Tf32Config& c);
void launch_tf32(const Problem& p, const Tf32Config& c, const LaunchEnv& env);
// As sm90_copy_blocks (the transposed problem and split-K are never run in blocks).
CopyBlocks tf32_copy_blocks(const Problem& p, const Tf32Config& c, const DeviceState& state,
                                  std::size_t workspace_bytes);

// Clusters of 2 above one wave of tiles, a stream-K tail where its model gains, split-K for a few
// tiles with a long K; batch_invariant: one configuration, no tail or split.
Tf32Config tf32_model_choice(const Problem& p, const DeviceState& state, std::size_t workspace_bytes,
                             bool batch_invariant);
std::vector<Tf32Config> tf32_configs();

// The workspace bytes of the copies p's operands take before the kernel reads them (an M-major A
// or an operand the TMA cannot address; 0: none).
std::size_t tf32_copies_bytes(const Problem& p);

// Whether c runs p as its transposed problem (an M-major A with a K-major B, no split-K): no copy
// of A then.
bool tf32_swaps(const Problem& p, const Tf32Config& c);

// c, or, where c is 128-row tiles alone and whole (no split-K), 64-row tiles: for m <= 64, and where
// 128-row tiles would leave half the SMs or more idle with k <= max(m, n) and n > 64 (1000^3: 64
// tiles of 128 x 128 for 132 SMs, 128 of 64 x 128). Applied to the table's entries as well as the
// model's choice: the entries were measured before 64-row tiles existed (docs/shapes.md, "64-row
// TF32 tiles").
Tf32Config tf32_small_tiles_where_they_gain(const Problem& p, Tf32Config c, const DeviceState& state);

// c, or, where c is tiles of 128 or 256 rows alone and whole (no split-K, not swapped) over more
// than one row of tiles and more than half a wave, clusters of 2 (pairs sharing A) where A is read
// in place with rows off the 32-byte sectors (an ld * 4 not a multiple of 32: 2004^3), which the
// TMA reads at about half speed: pairs halve A's reads. The table's entries, all measured at
// shapes whose rows start on sectors, and the model's one-wave rule chose single tiles there,
// which ran slower (docs/shapes.md, "TF32 pairs where A's rows read slowly"). Dense, at least 8
// k-tiles. Applied to the table's entries as well as the model's choice.
Tf32Config tf32_pairs_where_rows_read_slowly(const Problem& p, Tf32Config c, const DeviceState& state);

// The kernel function and grid of a launch (for the lab's analyses).
struct Tf32LaunchShape {
  const void* kernel = nullptr;
  int threads = 0;
  std::size_t smem_bytes = 0;
  std::int64_t grid = 0;
};
std::optional<Tf32LaunchShape> tf32_launch_shape(const Problem& p, const Tf32Config& c, const DeviceState& state);

}  // namespace gemmlab::detail
