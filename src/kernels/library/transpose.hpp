// Copies of operands in the workspace: a matrix transposed (the TF32 kernel's copy of an M-major
// A into a K-major one, the skinny kernel's of an MN-major short operand), and matrices into rows
// of a 128-byte multiple (the tensor-core kernels' copies of operands the TMA cannot address).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

// One row copy: dst (batch items of rows x cols, row-major with dst_ld >= cols between rows, item
// i at dst + i * rows * dst_ld) = src (the same, with ld between rows and stride between items).
// dst and dst_ld must keep every row 16-byte aligned. Columns from cols up to the next 16 bytes
// are zeroed, the rest of each row is left as it was.
struct RowCopy {
  const void* src = nullptr;
  std::int64_t ld = 0, stride = 0, rows = 0, cols = 0, batch = 1;
  void* dst = nullptr;
  std::int64_t dst_ld = 0;
};
// The pieces a launch of a row copy too large for one (max_vectors 16-byte vectors of the
// destination or more: 2^30, 16 GiB) is split into: whole items, or rows of one item, each under
// max_vectors, in order.
std::vector<RowCopy> row_copy_pieces(const RowCopy& w, std::size_t elem_bytes, std::int64_t max_vectors);
// One or two row copies in one launch, of 2-byte elements (_16) or 4-byte ones (_32).
void launch_copy_rows_16(const RowCopy* jobs, int count, cudaStream_t stream);
void launch_copy_rows_32(const RowCopy* jobs, int count, cudaStream_t stream);
// One copy, its fields as arguments.
inline void launch_copy_rows_16(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows,
                                std::int64_t cols, std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream) {
  const RowCopy job{src, ld, stride, rows, cols, batch, dst, dst_ld};
  launch_copy_rows_16(&job, 1, stream);
}
inline void launch_copy_rows_32(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows,
                                std::int64_t cols, std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream) {
  const RowCopy job{src, ld, stride, rows, cols, batch, dst, dst_ld};
  launch_copy_rows_32(&job, 1, stream);
}

}  // namespace gemmlab::detail
