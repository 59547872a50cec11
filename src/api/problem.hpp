// The library's internal form of a call: what every kernel and the dispatcher see.
//
// The public structs (gemm.hpp) say how the caller's matrices are stored; normalize() checks them
// and reduces every storage choice to the few facts a kernel needs:
//   - D (and C) row-major. A column-major D is the row-major D^T = op(B)^T op(A)^T: the operands
//     trade places, m and n too, and a per-row bias becomes per-column (transposed = true);
//   - for each operand, a pointer, a leading dimension, a batch stride, and whether it is
//     K-major (its k index is the contiguous one). Row- or column-major storage and op() combine
//     into that one bit: A is K-major when (row-major) XOR (transposed), B when (column-major) XOR
//     (transposed). A kernel that reads both K-major and MN-major tiles serves every layout.
#pragma once

#include <cstdint>

#include "gemmlab/gemm.hpp"

namespace gemmlab::detail {

// ceil(a / b) for positive sizes: the tiles (or slices, waves) that cover a extent of a.
constexpr std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Element (i, kk) of op(A) (m x k) is at ptr[i * ld + kk] when k_major, else ptr[kk * ld + i].
// Element (kk, j) of op(B) (k x n) is at ptr[j * ld + kk] when k_major, else ptr[kk * ld + j].
struct Operand {
  const void* ptr = nullptr;
  std::int64_t ld = 0;
  std::int64_t stride = 0;  // elements between batch items (B: between groups); 0 broadcasts
  bool k_major = true;
  // MN-major only: each line (a k row) may be read in whole 16-byte pieces past the matrix's last
  // column, up to the next 16-byte multiple: set on the FP32 kernel's copies of B, whose padding is
  // zeroed. A caller's matrix never says so (its last line may end where its allocation does).
  bool padded = false;
};

struct Problem {
  DataType ab = DataType::f32;  // A and B
  DataType cd = DataType::f32;  // C and D
  bool tf32 = false;            // FP32 operands may be multiplied as TF32
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  Operand a, b;
  const void* c = nullptr;  // row-major; null when beta is a host zero
  std::int64_t ldc = 0, stride_c = 0;
  void* d = nullptr;  // row-major
  std::int64_t ldd = 0, stride_d = 0;
  float alpha = 1.0f, beta = 0.0f;
  const float* alpha_ptr = nullptr;  // read on the device when set
  const float* beta_ptr = nullptr;
  BiasKind bias_kind = BiasKind::none;
  const void* bias = nullptr;
  DataType bias_type = DataType::f32;
  std::int64_t bias_stride = 0;
  Activation act = Activation::none;
  Determinism determinism = Determinism::reproducible;
  // Grouped calls: m is the total of rows; group g owns rows [offsets[g-1], offsets[g]) and
  // multiplies by B + g * b.stride. groups == 0: not grouped.
  int groups = 0;
  const std::int32_t* offsets = nullptr;
  bool transposed = false;  // D was column-major: this is the problem for D^T

  bool grouped() const { return groups > 0; }
  // C may be read: beta is not a host zero.
  bool reads_c() const { return beta_ptr != nullptr || beta != 0.0f; }
  bool has_epilogue() const { return bias_kind != BiasKind::none || act != Activation::none; }
  // 'N' or 'T' for each operand in BLAS terms of a row-major product: A K-major is N, B MN-major
  // is N. "NN" is the layout gemmlab's kernels were first written for.
  const char* layout_name() const;
};

// Checks a call and returns its normalised form. Throws InvalidArgument naming the offending
// field, or Unsupported for a valid request gemmlab does not offer. Needs no GPU.
Problem normalize(const Gemm& g);
Problem normalize(const GroupedGemm& g);

// The extent in elements of a strided matrix: from its first element to one past its last.
std::int64_t span_elements(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
                           std::int64_t stride);

}  // namespace gemmlab::detail
