// Deliberately broken GEMM kernels, one per class of error in the seed documents' printed code
// (docs/seed-errata.md). They exist only in the tests, are never registered, and serve to prove
// that the verifier catches each class: a lab whose checker would let these pass could not be
// trusted with the real kernels either.
#pragma once

#include <memory>

#include "kernels/kernel.hpp"

namespace gemmlab::broken {

// Seed 000 methods 1 and 2: A[ty * N + k], B[k * N + tx]: every block computes block (0, 0).
std::unique_ptr<Kernel> index_ignores_block();
// Seed 000 method 6b: all four products summed into one accumulator, three outputs stored as 0.
std::unique_ptr<Kernel> one_accumulator_for_four_outputs();
// Seed 001 dgemm_gpu_shared: no barrier after the compute loop (a write-after-read race). One warp
// per block is delayed after the first barrier so that the race is lost every time, not sometimes.
std::unique_ptr<Kernel> missing_barrier();
// Seed 000 method 6: the staging buffer is refilled with the current strip (a, not a + aStep),
// so strip 0 is used twice and the last strip never. Square sizes divisible by 32 only.
std::unique_ptr<Kernel> stale_double_buffer();
// Seed 003 versions 4 and 5: loads and the register prefetch are not guarded, so at an edge that
// is not a multiple of the tile they fetch elements from outside the tile (the next row, or past
// the end of the matrix) and use them. Addresses are clamped to the matrix so the test cannot fault
// the GPU; what the sums receive is still data that does not belong there.
std::unique_ptr<Kernel> unguarded_prefetch();
// Seed 004, 16 outputs: row_start_A / col_start_B repeat width / 4, 8 stores swapped.
// Square sizes divisible by 64 only.
std::unique_ptr<Kernel> wrong_quadrant_offsets();
// Seeds 000, 003: GRID_SIZE = MATRIX_SIZE / BLOCK_SIZE rounded down: the edge tiles are never
// written (C keeps its NaN poison).
std::unique_ptr<Kernel> grid_rounded_down();
// Seed 002 version 2: width / TILE_WIDTH strips of K rounded down: the tail of K is dropped.
std::unique_ptr<Kernel> k_tail_dropped();
// Seed 003 version 1: the column offset uses blockDim.y. Harmless for the square blocks the seed
// used, wrong for any other: `block_x` x `block_y` threads, square sizes divisible by both.
std::unique_ptr<Kernel> column_offset_uses_block_dim_y(int block_x, int block_y);

}  // namespace gemmlab::broken
