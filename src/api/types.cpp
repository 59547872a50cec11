#include "gemmlab/types.hpp"
#include "gemmlab/version.hpp"

namespace gemmlab {

const char* version() { return GEMMLAB_VERSION_STRING; }

std::string_view to_string(DataType t) {
  switch (t) {
    case DataType::f32: return "f32";
    case DataType::f16: return "f16";
    case DataType::bf16: return "bf16";
    case DataType::e4m3: return "e4m3";
    case DataType::e5m2: return "e5m2";
  }
  return "?";
}
std::string_view to_string(Order o) { return o == Order::row_major ? "row_major" : o == Order::col_major ? "col_major" : "?"; }
std::string_view to_string(Op o) { return o == Op::none ? "none" : o == Op::transpose ? "transpose" : "?"; }
std::string_view to_string(Compute c) { return c == Compute::f32 ? "f32" : c == Compute::tf32 ? "tf32" : "?"; }
std::string_view to_string(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::silu: return "silu";
  }
  return "?";
}
std::string_view to_string(BiasKind b) {
  switch (b) {
    case BiasKind::none: return "none";
    case BiasKind::per_row: return "per_row";
    case BiasKind::per_column: return "per_column";
  }
  return "?";
}
std::string_view to_string(Determinism d) {
  switch (d) {
    case Determinism::reproducible: return "reproducible";
    case Determinism::batch_invariant: return "batch_invariant";
    case Determinism::fast: return "fast";
  }
  return "?";
}

}  // namespace gemmlab
