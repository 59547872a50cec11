// The skinny kernel's CUDA-core form (skinny_simt.cuh): exact FP32 products, D in f32, at most
// 1, 2, 4, 8 or 16 short-side columns, W K-major or big-major.
#include "kernels/library/skinny_simt.cuh"

namespace gemmlab::detail::skinny_simt {

Kernel kernel_f32(int s, bool w_kmajor) { return kernel_for(s, w_kmajor); }

}  // namespace gemmlab::detail::skinny_simt
