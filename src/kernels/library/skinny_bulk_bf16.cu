// The TMA-fed skinny kernel's instantiations for bf16 operands (skinny_bulk.cuh): D in bf16 or f32,
// 1 or 2 groups of 8 short-side columns (4 and 8 multiply by wgmma: skinny_bulk_wgmma.sm90a.cu),
// W K-major or big-major.
#include "kernels/library/skinny_bulk.cuh"

namespace gemmlab::detail::skinny {

BulkKernel bulk_kernel_bf16(bool f32_out, int mt, bool w_kmajor) {
  return f32_out ? bulk_kernel_for<__nv_bfloat16, float>(mt, w_kmajor) : bulk_kernel_for<__nv_bfloat16, __nv_bfloat16>(mt, w_kmajor);
}

}  // namespace gemmlab::detail::skinny
