// The small-tile kernel's instantiations for f16 operands (small.cuh): D in f16 or f32, each
// operand K-major or MN-major.
#include "kernels/library/small.cuh"

namespace gemmlab::detail::small {

Kernel kernel_f16(bool f32_out, bool a_k_major, bool b_k_major) {
  return f32_out ? kernel_for<__half, float>(a_k_major, b_k_major) : kernel_for<__half, __half>(a_k_major, b_k_major);
}

}  // namespace gemmlab::detail::small
