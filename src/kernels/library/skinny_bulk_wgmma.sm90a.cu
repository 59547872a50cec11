// The TMA-fed skinny kernel's wgmma instantiations (skinny_bulk.cuh, wgmma_stage): bf16 and f16
// operands, D in their type or f32, 4 or 8 groups of 8 short-side columns (17 to 64), W K-major or
// big-major. sm_90a only, as every wgmma.
#include "kernels/library/skinny_bulk.cuh"

namespace gemmlab::detail::skinny {

BulkKernel bulk_wgmma_kernel_bf16(bool f32_out, int mt, bool w_kmajor) {
  return f32_out ? bulk_wgmma_kernel_for<__nv_bfloat16, float>(mt, w_kmajor)
                 : bulk_wgmma_kernel_for<__nv_bfloat16, __nv_bfloat16>(mt, w_kmajor);
}

BulkKernel bulk_wgmma_kernel_f16(bool f32_out, int mt, bool w_kmajor) {
  return f32_out ? bulk_wgmma_kernel_for<__half, float>(mt, w_kmajor) : bulk_wgmma_kernel_for<__half, __half>(mt, w_kmajor);
}

}  // namespace gemmlab::detail::skinny
