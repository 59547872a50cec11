// The skinny kernel's instantiations for FP32 operands multiplied as TF32 (skinny.cuh): D in f32, 1
// to 8 groups of 8 short-side columns, W K-major or big-major (in 16-byte vectors or read
// unaligned), X K-major or (1 or 2 groups, over a big-major W) MN-major.
#include "kernels/library/skinny.cuh"

namespace gemmlab::detail::skinny {

Kernel kernel_tf32(int mt, bool w_kmajor, bool x_kmajor, bool w_unaligned) {
  return kernel_for<Tf32, float>(mt, w_kmajor, x_kmajor, w_unaligned);
}

}  // namespace gemmlab::detail::skinny
