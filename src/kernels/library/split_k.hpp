// Split-K's second pass for the library's tensor-core kernels: the FP32 partial products of the K
// slices are added in a fixed order (the result does not depend on which slice finished first),
// then the epilogue is applied and D written in its type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "api/problem.hpp"

namespace gemmlab::detail {

// K in `splits` slices of whole k-tiles (bk deep): the slices that hold any k-tile (at most
// `splits`), and the k-tiles of each (the last may hold fewer: the kernels read zeros past K).
struct SplitK {
  int splits = 1;
  int k_tiles = 0;
};
SplitK split_k_slices(std::int64_t k, int splits, int bk);

// The model's slice count for p (one problem) in tiles of tile_m x tile_n with `resident` CTAs on
// the GPU and k-tiles `bk` deep: as many slices as bring the tiles to about a wave, each at least
// `min_slice_tiles` deep, halved while their partial sums (written by the first pass and read by
// the second: 8 bytes an output per slice) outweigh a quarter of the operand bytes a slice reads,
// or do not fit `room` bytes of workspace. 1: no split. The operand bytes count A and B once, or,
// with `count_rereads`, as the tiles read them (A once per column of tiles, B once per row): more
// slices, which pay where the tiles leave most SMs idle (docs/shapes.md, "Split-K counts the
// tiles' re-reads"). Split-K loses where m x n is large against k and wins where k is long against
// it (docs/shapes.md, "Split-K for a few tiles with a long K").
std::int64_t split_k_model(const Problem& p, int tile_m, int tile_n, bool count_rereads, std::int64_t resident,
                           int bk, std::int64_t min_slice_tiles, std::size_t room);

// Why p cannot be split into `splits` slices of k-tiles `bk` deep, or nothing: one problem only
// (not a batch or groups), not batch-invariant (the slices depend on the shape), at most one slice
// per k-tile, and m x n within the reduction's 32-bit indices.
std::optional<std::string> split_k_refusal(const Problem& p, int splits, int bk);

// The workspace of `splits` partial products of p, m x n FP32 each (a multiple of 256 bytes).
std::size_t split_k_parts_bytes(const Problem& p, std::int64_t splits);

// The first pass as a problem: slice z of K is batch item z (A and B broadcast: the kernel offsets
// k by z slices), multiplied into FP32 partial sums at `parts` (rows of n), without C or an
// epilogue, which the second pass applies. q: one problem, not batched or grouped.
Problem split_k_first_pass(const Problem& q, int splits, void* parts);

// The second pass: `splits` partial products of p one after another from `parts`:
// D = act(alpha * their sum + beta * C + bias), in p's layout and output type. `sms`, the GPU's
// SM count, sizes its grid (and with the shape, its order of additions).
void launch_split_k_reduce(const Problem& p, const float* parts, int splits, int sms, cudaStream_t stream);

}  // namespace gemmlab::detail
