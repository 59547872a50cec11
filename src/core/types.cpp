#include "core/types.hpp"

#include <fmt/format.h>

namespace gemmlab {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::bf16: return 2;
    case DType::f16: return 2;
  }
  return 0;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16})
    if (dtype_name(t) == s) return t;
  return std::nullopt;
}

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16})
    if (precision_name(p) == s) return p;
  return std::nullopt;
}

DType operand_type(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: return DType::f32;
    case Precision::bf16: return DType::bf16;
    case Precision::fp16: return DType::f16;
  }
  return DType::f32;
}

Tolerance tolerance_for(Precision p) {
  switch (p) {
    // FP32 FMA: observed errors are ~1e-7..1e-5 up to K = 16384; a wrong element or a lost
    // k-tile costs orders of magnitude more.
    case Precision::fp32: return {1e-4, 1e-4};
    // TF32 rounds each operand to 2^-11: products carry ~1e-3 relative error, sums ~3e-4..1e-3.
    case Precision::tf32: return {3e-3, 5e-3};
    // 16-bit operands: the reference is computed from the very operands the kernel received,
    // so the error left is accumulation and, for a 16-bit output, its rounding (2^-8 for bf16).
    case Precision::bf16:
    case Precision::fp16: return {1e-2, 1e-2};
  }
  return {0, 0};
}

std::string to_string(const Shape& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

}  // namespace gemmlab
