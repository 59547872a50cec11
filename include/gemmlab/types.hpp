// The vocabulary of gemmlab's public API: element types, storage orders, operations, epilogue
// options and determinism modes. Plain C++20; no CUDA header is needed to use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gemmlab/export.hpp"

namespace gemmlab {

// Element type of a matrix in memory.
//   f32, f16, bf16: offered as operands (A, B) and outputs (C, D); see gemm.hpp for the combinations.
//   e4m3, e5m2:     the two FP8 formats. Reserved: the API names them so that FP8 with per-operand
//                   scales can be added without changing it; today a call with them is refused.
enum class DataType : std::uint8_t { f32, f16, bf16, e4m3, e5m2 };

// How a stored matrix is laid out: row-major (C, NumPy, PyTorch) or column-major (BLAS, Fortran).
enum class Order : std::uint8_t { row_major, col_major };

// What is done to an operand before the product: nothing, or the transpose.
enum class Op : std::uint8_t { none, transpose };

// Arithmetic of the products. Accumulation is FP32 in every mode.
//   f32:  FP32 operands are multiplied exactly as FP32 (CUDA cores); 16-bit operands on tensor cores.
//   tf32: FP32 operands may be rounded to TF32 (10 mantissa bits) and multiplied on tensor cores,
//         like cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32 and PyTorch's allow_tf32. Ignored for 16-bit.
enum class Compute : std::uint8_t { f32, tf32 };

// Applied last, element by element: D = act(alpha * op(A) op(B) + beta * C + bias).
//   gelu_tanh: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), PyTorch's approximate="tanh".
//   silu:      x / (1 + exp(-x)).
enum class Activation : std::uint8_t { none, relu, gelu_tanh, silu };

// Which elements a bias vector adds to: one value per row of D (m values) or per column (n values).
enum class BiasKind : std::uint8_t { none, per_row, per_column };

// What a caller may rely on when the same call is made again.
//   reproducible:    bitwise the same D for the same problem on the same device, run after run
//                    (the default). No atomics; every reduction in a fixed order.
//   batch_invariant: reproducible, and each row of D is also bitwise independent of m: the same
//                    row of A gives the same row of D whatever the number of rows in the call
//                    (what inference engines need when they batch requests). The kernel and its
//                    reduction order are then chosen from n, k, the types and layouts only.
//   fast:            the fastest path, which may sum partial products with atomics in any order,
//                    so D may differ in the last bits from run to run.
enum class Determinism : std::uint8_t { reproducible, batch_invariant, fast };

GEMMLAB_API std::string_view to_string(DataType t);     // "f32", "f16", "bf16", "e4m3", "e5m2"
GEMMLAB_API std::string_view to_string(Order o);        // "row_major", "col_major"
GEMMLAB_API std::string_view to_string(Op o);           // "none", "transpose"
GEMMLAB_API std::string_view to_string(Compute c);      // "f32", "tf32"
GEMMLAB_API std::string_view to_string(Activation a);   // "none", "relu", "gelu_tanh", "silu"
GEMMLAB_API std::string_view to_string(BiasKind b);     // "none", "per_row", "per_column"
GEMMLAB_API std::string_view to_string(Determinism d);  // "reproducible", "batch_invariant", "fast"

// Bytes per element (1 for the FP8 formats).
constexpr std::size_t size_of(DataType t) {
  switch (t) {
    case DataType::f32: return 4;
    case DataType::f16:
    case DataType::bf16: return 2;
    case DataType::e4m3:
    case DataType::e5m2: return 1;
  }
  return 0;
}

}  // namespace gemmlab
