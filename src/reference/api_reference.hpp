// The float64 reference of a public-API call (gemm.hpp), and the checks of what the call wrote.
//
// The reference reads the call's matrices exactly as the public structs describe them (orders,
// ops, leading dimensions, batch strides, groups, epilogue) and never goes through
// detail::normalize: a normalisation bug then shows up as a difference instead of being
// reproduced on both sides. Each logical element of D gets its value and its error scale
// |alpha| sum_k |a||b| + |beta| |c| + |bias| (the componentwise measure of docs/verification.md),
// computed in double by a tiled CUDA kernel (a few tens of milliseconds at 4096^3 on an H100).
//
// The test side: matrices allocated with their padding, the gaps between batch items and guard
// bytes on both sides all filled with a poison byte (0xff: NaN in every offered type, so an
// unwritten element of D fails as non-finite and an input element read from the padding turns
// its outputs into NaN), random logical elements, and a check of D that compares every logical
// element with the reference and every other byte of the allocation with the poison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/buffer.hpp"
#include "core/types.hpp"
#include "gemmlab/gemm.hpp"
#include "reference/verify.hpp"

namespace gemmlab::apiref {

inline constexpr unsigned char kPoison = 0xff;
// Poisoned bytes before and after every allocation: writes just outside a matrix are caught too.
inline constexpr std::int64_t kGuardBytes = 256;

// A stored matrix as the public API describes it: `rows` x `cols` in `order` (the stored matrix,
// before any op), `ld` elements between rows (row-major) or columns (column-major), 0 for packed,
// and `batch` items `batch_stride` elements apart (0: one item shared by all).
struct Layout {
  DataType type = DataType::f32;
  Order order = Order::row_major;
  std::int64_t rows = 0, cols = 0;
  std::int64_t ld = 0;
  std::int64_t batch = 1;
  std::int64_t batch_stride = 0;

  std::int64_t resolved_ld() const;  // ld, or the packed one for 0
  std::int64_t item_span() const;    // elements from an item's first to one past its last
  std::int64_t span() const;         // the same over all items
  std::int64_t offset(std::int64_t item, std::int64_t r, std::int64_t c) const;  // in elements
};

// The stored shape of an operand: op(X) is rows x cols, so X is cols x rows when transposed.
Layout operand_layout(DataType t, Order order, Op op, std::int64_t rows, std::int64_t cols, std::int64_t ld_pad = 0);
// Packed items with `gap` poisoned elements between consecutive ones; broadcast: one item (stride 0).
Layout batched(Layout l, std::int64_t batch, std::int64_t gap = 0, bool broadcast = false);

// Device memory holding one Layout: [guard | `misalign` elements | matrix | guard], all poisoned
// when made. `misalign` shifts the matrix by whole elements off the allocation's 256-byte
// alignment, to catch kernels that assume aligned pointers without checking.
class TestMatrix {
 public:
  TestMatrix() = default;
  TestMatrix(const Layout& layout, cudaStream_t s, std::int64_t misalign = 0);

  const Layout& layout() const { return layout_; }
  void* data() const { return data_; }
  std::size_t bytes() const { return buf_.bytes(); }  // the whole allocation, guards included
  const void* allocation() const { return buf_.get(); }

  Matrix input() const;      // the public description, as an operand
  MatrixOut output() const;  // and as D

  void poison(cudaStream_t s) const;  // every byte of the allocation
  // Logical elements <- uniform values in [-1, 1) of stream `stream` under `seed`, rounded to the
  // type (core/fill.hpp's generator and rounding). Padding and guards are not written.
  void fill_uniform(std::uint64_t seed, std::uint64_t stream, cudaStream_t s) const;
  std::vector<unsigned char> download(cudaStream_t s) const;  // the whole allocation (synchronises)

 private:
  Layout layout_;
  DeviceBuffer buf_;
  void* data_ = nullptr;
};

// The reference for the elements of D: value and scale, [item][row][col] packed doubles.
struct Reference {
  std::int64_t batch = 1, m = 0, n = 0;
  std::int64_t rows_used = 0;  // rows of each item that the call writes: m, or a grouped call's last offset
  DeviceBuffer value, scale;
  std::vector<double> download_value(cudaStream_t s) const;
};

// alpha and beta are passed as doubles by the caller, who knows them even when the call reads
// them through device pointers. Enqueued on `s` and reads C there: when C is D, compute the
// reference before the call. The grouped form copies the offsets to the host (it synchronises)
// and throws Error when they decrease or exceed m (the API leaves such calls' results open).
Reference reference(const Gemm& g, double alpha, double beta, cudaStream_t s);
Reference reference(const GroupedGemm& g, double alpha, double beta, cudaStream_t s);

// Pass/fail limits for a call's type combination (see tolerance_for in core/types.cpp; tighter
// where the output keeps FP32).
Tolerance tolerance_for(DataType ab, DataType cd, Compute compute);

// What a check of D found.
struct OutputCheck {
  Verification verification;        // the logical elements against the reference
  std::int64_t poison_changed = 0;  // bytes outside the logical elements no longer holding the poison
  std::int64_t first_changed = -1;  // the first such byte, from the start of the matrix (negative: guard)
  bool passed() const { return verification.passed && poison_changed == 0; }
  std::string summary() const;
};

// D (its layout describing all of it: m x n per item, `batch` items) against the reference:
// elements of rows >= rows_used count as padding and must still hold the poison. Synchronises.
OutputCheck check_output(const TestMatrix& d, const Reference& ref, const Tolerance& tol, cudaStream_t s);

// Bytes of the allocation outside the matrix's logical elements (rows_used rows per item) that
// differ from the poison; first offender in `first` (from the start of the matrix).
std::int64_t changed_padding_bytes(const TestMatrix& m, std::int64_t rows_used, cudaStream_t s,
                                   std::int64_t* first = nullptr);

// The bytes of logical element (item, r, c) of a downloaded allocation (TestMatrix::download).
std::vector<unsigned char> element_bytes(const TestMatrix& m, const std::vector<unsigned char>& allocation,
                                         std::int64_t item, std::int64_t r, std::int64_t c);

}  // namespace gemmlab::apiref
