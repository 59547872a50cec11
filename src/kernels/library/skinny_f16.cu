// The skinny kernel's instantiations for f16 operands (skinny.cuh): D in f16 or f32, 1 to 8 groups
// of 8 short-side columns, W K-major or big-major (in 16-byte vectors or read unaligned), X K-major
// or (1 or 2 groups) MN-major.
#include "kernels/library/skinny.cuh"

namespace gemmlab::detail::skinny {

Kernel kernel_f16(bool f32_out, int mt, bool w_kmajor, bool x_kmajor, bool w_unaligned) {
  return f32_out ? kernel_for<__half, float>(mt, w_kmajor, x_kmajor, w_unaligned)
                 : kernel_for<__half, __half>(mt, w_kmajor, x_kmajor, w_unaligned);
}

}  // namespace gemmlab::detail::skinny
