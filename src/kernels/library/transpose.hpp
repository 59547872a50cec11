// Copies of operands in the workspace: a matrix transposed (the TF32 kernel's copy of an M-major
// A into a K-major one, the skinny kernel's of an MN-major short operand), and a 16-bit matrix into rows of a 16-byte multiple (the Hopper
// 16-bit kernel's copy of an operand the TMA cannot address).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace gemmlab::detail {

// dst (batch items of cols x rows, row-major with dst_ld >= rows between rows, item i at
// dst + i * cols * dst_ld) = the transpose of src (batch items of rows x cols, row-major with ld
// between rows and stride between items).
void launch_transpose_f32(const float* src, std::int64_t ld, std::int64_t stride, std::int64_t rows,
                          std::int64_t cols, std::int64_t batch, float* dst, std::int64_t dst_ld, cudaStream_t stream);

// The same for 2-byte elements (the skinny kernel's K-major copy of its short operand).
void launch_transpose_16(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                         std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream);

// dst (batch items of rows x cols, row-major with dst_ld >= cols between rows, item i at
// dst + i * rows * dst_ld) = src (the same, with ld between rows and stride between items), for
// 2-byte elements (_16) or 4-byte ones (_32). Columns cols to dst_ld - 1 of dst are left as they were.
void launch_copy_rows_16(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                         std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream);
void launch_copy_rows_32(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                         std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream);

}  // namespace gemmlab::detail
