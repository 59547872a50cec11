// The vocabulary every layer shares: element types, precisions, problem shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gemmlab {

// How a matrix is stored in memory.
enum class DType { f32, f64, bf16, f16 };

std::size_t dtype_size(DType t);
std::string_view dtype_name(DType t);  // "f32", "f64", "bf16", "f16"
std::optional<DType> parse_dtype(std::string_view s);

// The arithmetic of a GEMM. Accumulation is FP32 in every precision; what differs is the type of
// the multiplied operands: fp32 (CUDA-core FMA, or cuBLAS with TF32 off), tf32 (FP32 in memory,
// tensor cores round the operands to 10 mantissa bits), bf16 and fp16 (16-bit operands in memory).
enum class Precision { fp32, tf32, bf16, fp16 };

std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view s);
DType operand_type(Precision p);  // the type A and B have in memory

// Pass/fail limits of the verifier for one precision (see docs/verification.md).
//   rel_frobenius: ||C - ref||_F / ||ref||_F
//   elementwise:   max_ij |C - ref|_ij / (|alpha| |A||B| + |beta| |C0|)_ij, the error of each element
//                  measured against the size its inputs allow (Higham's componentwise bound).
struct Tolerance {
  double rel_frobenius;
  double elementwise;
};
Tolerance tolerance_for(Precision p);

// C (m x n) = alpha * A (m x k) * B (k x n) + beta * C, all row-major.
struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  bool operator==(const Shape& o) const { return m == o.m && n == o.n && k == o.k; }
};
std::string to_string(const Shape& s);  // "4096x4096x4096"

}  // namespace gemmlab
