// The host side of epilogue.cuh: a normalised problem's epilogue as kernel arguments.
#include "api/problem.hpp"
#include "kernels/library/epilogue.cuh"

namespace gemmlab::detail {

epi::Params epilogue_params(const Problem& p) {
  epi::Params e;
  e.alpha = p.alpha;
  e.beta = p.beta;
  e.alpha_ptr = p.alpha_ptr;
  e.beta_ptr = p.beta_ptr;
  e.bias = p.bias;
  e.bias_stride = p.bias_stride;
  e.bias_kind = p.bias_kind == BiasKind::per_row ? epi::kPerRow : p.bias_kind == BiasKind::per_column ? epi::kPerColumn : epi::kNoBias;
  e.bias_f32 = p.bias_type == DataType::f32 ? 1 : 0;
  e.act = p.act == Activation::relu ? epi::kRelu : p.act == Activation::gelu_tanh ? epi::kGeluTanh
        : p.act == Activation::silu ? epi::kSilu : epi::kNone;
  return e;
}

}  // namespace gemmlab::detail
