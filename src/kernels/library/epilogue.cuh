// The epilogue every library kernel applies to its FP32 sums before writing D:
//
//   D = act(alpha * acc + beta * C + bias)
//
// in that order (cuBLASLt's). Shared by the generic, CUDA-core and tensor-core kernels so that
// they agree to the bit on everything after the product.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gemmlab::epi {

enum Act : int { kNone = 0, kRelu = 1, kGeluTanh = 2, kSilu = 3 };
enum BiasKind : int { kNoBias = 0, kPerRow = 1, kPerColumn = 2 };

// Kernel-argument form of the epilogue (trivially copyable).
struct Params {
  float alpha = 1.0f, beta = 0.0f;
  const float* alpha_ptr = nullptr;  // read once per thread when set
  const float* beta_ptr = nullptr;
  const void* bias = nullptr;
  std::int64_t bias_stride = 0;  // between batch items (or groups)
  int bias_kind = kNoBias;
  int bias_f32 = 1;  // the bias is FP32; else it has D's type
  int act = kNone;
};

__device__ __forceinline__ float to_f32(float x) { return x; }
__device__ __forceinline__ float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f32(__half x) { return __half2float(x); }

template <class T> __device__ __forceinline__ T from_f32(float x);
template <> __device__ __forceinline__ float from_f32<float>(float x) { return x; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ __half from_f32<__half>(float x) { return __float2half_rn(x); }

// Activation A. GELU's tanh form goes through the identity 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)):
// one exponential and one division (two MUFU operations), accurate where the result is small. A form
// through tanh, h + h tanh(u) with h = x / 2, subtracts nearly equal numbers for negative x: with
// tanh.approx.f32 it was many FP16 ulps off there, and it is no longer used
// (docs/kernels/tensor-ladder.md 7.10). The reference evaluates the tanh form in double.
template <int A>
__device__ __forceinline__ float activate(float x) {
  if constexpr (A == kRelu) {
    return x > 0.0f ? x : 0.0f;
  } else if constexpr (A == kGeluTanh) {
    const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return __fdividef(x, 1.0f + __expf(-2.0f * u));
  } else if constexpr (A == kSilu) {
    return __fdividef(x, 1.0f + __expf(-x));
  } else {
    return x;
  }
}

// The activation `act` known only at run time: for code that activates a few values per thread.
__device__ __forceinline__ float activate(float x, int act) {
  switch (act) {
    case kRelu: return activate<kRelu>(x);
    case kGeluTanh: return activate<kGeluTanh>(x);
    case kSilu: return activate<kSilu>(x);
    default: return x;
  }
}

// The activations by the shape of their code, for epilogues that activate many values per thread
// in unrolled code: kNone and kRelu are a compare, kGeluTanh and kSilu x / (1 + exp(k t)) with
// t = x + 0.044715 x^3 and k = -2 * 0.7978845608028654 for GELU, t = x and k = -1 for SiLU
// (bitwise the values of activate<A>: -2.0f * (c * t) is (-2c) * t, scaling by 2 being exact).
// Every kernel takes this form (or activate<A>), so that an element's value does not depend on
// the kernel or on the way its tile was stored.
struct ActForm {
  bool relu_or_silu;  // kRelu in the compare form, kSilu in the exponential form
  float k;            // the exponential form's factor
};

template <bool kExp>
__device__ __forceinline__ float activate_form(float x, const ActForm& f) {
  if constexpr (kExp) {
    const float t = f.relu_or_silu ? x : x + 0.044715f * x * x * x;
    return __fdividef(x, 1.0f + __expf(f.k * t));
  } else {
    return f.relu_or_silu && !(x > 0.0f) ? 0.0f : x;
  }
}

// Calls f(std::bool_constant<kExp>{}, form) for the form of activation `act`. An epilogue branches
// here once rather than once per value: with a branch per value the code of every activation sat
// between the values, and a 128 x 256 tile's unrolled epilogue outgrew the instruction cache
// (docs/kernels/tensor-ladder.md, "The fused epilogue"). Two forms, not one pass per activation:
// four unrolled passes made ptxas spill in the kernels with FP32 D.
template <class F>
__device__ __forceinline__ void with_activation_form(int act, F&& f) {
  if (act == kGeluTanh || act == kSilu) {
    const bool silu = act == kSilu;
    f(std::true_type{}, ActForm{silu, silu ? -1.0f : -1.5957691216057308f});
  } else {
    f(std::false_type{}, ActForm{act == kRelu, 0.0f});
  }
}

// alpha and beta as this launch uses them: the values, or what the device pointers hold.
struct Scalars {
  float alpha, beta;
};
__device__ __forceinline__ Scalars scalars(const Params& p) {
  return {p.alpha_ptr ? *p.alpha_ptr : p.alpha, p.beta_ptr ? *p.beta_ptr : p.beta};
}

// The bias for element (row, col) of batch item (or group) `item`.
template <class OutT>
__device__ __forceinline__ float bias_at(const Params& p, std::int64_t item, std::int64_t row, std::int64_t col) {
  if (p.bias_kind == kNoBias) return 0.0f;
  const std::int64_t i = item * p.bias_stride + (p.bias_kind == kPerRow ? row : col);
  return p.bias_f32 ? __ldg(static_cast<const float*>(p.bias) + i) : to_f32(static_cast<const OutT*>(p.bias)[i]);
}

// One output value: the sum `acc`, the old C (read only when beta != 0) and the bias.
template <class OutT>
__device__ __forceinline__ OutT finish(const Params& p, const Scalars& s, float acc, const OutT* c, float bias) {
  float v = s.alpha * acc;
  if (s.beta != 0.0f) v += s.beta * to_f32(*c);
  return from_f32<OutT>(activate(v + bias, p.act));
}

}  // namespace gemmlab::epi
