// The small-tile kernel's instantiations for bf16 operands (small.cuh): D in bf16 or f32, each
// operand K-major or MN-major.
#include "kernels/library/small.cuh"

namespace gemmlab::detail::small {

Kernel kernel_bf16(bool f32_out, bool a_k_major, bool b_k_major) {
  return f32_out ? kernel_for<__nv_bfloat16, float>(a_k_major, b_k_major)
                 : kernel_for<__nv_bfloat16, __nv_bfloat16>(a_k_major, b_k_major);
}

}  // namespace gemmlab::detail::small
