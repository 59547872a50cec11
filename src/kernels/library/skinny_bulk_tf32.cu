// The TMA-fed skinny kernel's instantiations for FP32 operands multiplied as TF32
// (skinny_bulk.cuh): D in f32, 1 or 2 groups of 8 short-side columns (a decode step), W K-major or
// big-major.
#include "kernels/library/skinny_bulk.cuh"

namespace gemmlab::detail::skinny {

BulkKernel bulk_kernel_tf32(int mt, bool w_kmajor) { return bulk_kernel_for<Tf32, float>(mt, w_kmajor); }

}  // namespace gemmlab::detail::skinny
