// Copies of an operand the TMA cannot address (a pointer, leading dimension or batch stride that
// is not a 16-byte multiple: odd K or N, a sub-matrix view), for the tensor-core families: the
// stored matrix copied into the workspace with rows of a 128-byte multiple (kCopyRowBytes). The
// tensor maps keep the true K and N, so the engine reads zeros past them whatever the padding holds.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "api/problem.hpp"

namespace gemmlab::detail {

// A copy's rows are padded to this many bytes. 16 would do for the TMA, but the engine reads rows
// that start 16 bytes off a 32-byte boundary at about half speed, and 32 bytes off a 128-byte one
// measurably slower too (docs/shapes.md, "Copies in rows of 128 bytes").
inline constexpr std::int64_t kCopyRowBytes = 128;

// The copy of one operand: `items` matrices of rows x cols (rows of the stored operand: m or n
// when K-major, k otherwise), into rows of ld elements; `needed` false when the TMA can read it
// in place.
struct OperandCopy {
  bool needed = false;
  std::int64_t rows = 0, cols = 0, items = 0, ld = 0;
  std::size_t bytes = 0;  // a multiple of 256
};
OperandCopy copy_of(const Operand& o, std::int64_t rows_k_major, std::int64_t k, std::int64_t items,
                    std::size_t elem_bytes);

// Enqueues the copy of `o` at `at` and returns the operand the kernel reads in its place.
Operand launch_operand_copy(const Operand& o, const OperandCopy& c, void* at, std::size_t elem_bytes,
                            cudaStream_t stream);
// Both operands' copies (a at a_at, b at b_at, either not needed) in one launch; a and b become
// what the kernel reads in their place.
void launch_operand_copies(Operand& a, const OperandCopy& ca, void* a_at, Operand& b, const OperandCopy& cb, void* b_at,
                           std::size_t elem_bytes, cudaStream_t stream);

// Where the copies of a single problem do not fit the workspace, D is computed in blocks: each a
// complete GEMM of `rows` rows of op(A) by `cols` columns of op(B) (whole tiles; the last block of
// each kind shorter), whose operands are copied into the workspace block by block, B's columns in
// the outer loop. Each block sums its K as a launch over all of D would without a stream-K tail.
struct CopyBlocks {
  std::int64_t rows = 0, cols = 0;  // 0: not even one tile's copies fit
  std::size_t a_bytes = 0, b_bytes = 0;  // the workspace a block's copies take (the largest block)
  std::int64_t waves = 0;  // the blocks' waves of tiles, one launch after the other
  std::int64_t count(std::int64_t m, std::int64_t n) const {
    return (m + rows - 1) / rows * ((n + cols - 1) / cols);
  }
};
// Blocks for p in `workspace_bytes` with tiles (units of the schedule) of tile_m x tile_n, `slots`
// of them resident at once: the fewest waves of tiles over all blocks, then the fewest blocks, then
// the fewest copies of A. `a_line` and `b_line` are the bytes a copy takes per row of op(A) and per
// column of op(B) (0: read in place). Only for a single problem (batch 1, not grouped).
CopyBlocks copy_blocks(const Problem& p, std::size_t a_line, std::size_t b_line, std::size_t workspace_bytes,
                       int tile_m, int tile_n, std::int64_t slots);
// The waves of tiles of one launch over all of p (what blocks add to).
std::int64_t whole_waves(const Problem& p, int tile_m, int tile_n, std::int64_t slots);
// The bytes a copy (copy_of) of the operand takes per line of its M or N side.
std::size_t copy_line_bytes(const Operand& o, std::int64_t k, std::size_t elem_bytes);
// Rows [r0, r0 + rows) of op(A) and D times columns [n0, n0 + cols) of op(B) and D: the operands,
// D, C and the bias moved to the block's first element (not copied). A single problem's.
Problem block_of(const Problem& p, std::int64_t r0, std::int64_t rows, std::int64_t n0, std::int64_t cols);

}  // namespace gemmlab::detail
