#include "kernels/catalog.hpp"

#include "kernels/registry.hpp"

namespace gemmlab {

// The library as a kernel: gemmlab::gemm's own dispatch, in each precision.
void register_auto(Registry& r);
// Baselines: cuBLAS in each precision.
void register_cublas(Registry& r);
// The seed ladder (src/kernels/seed/), in the order the seed documents build it up.
void register_seed_single_block(Registry& r);
void register_seed_naive(Registry& r);
void register_seed_shared(Registry& r);
void register_seed_prefetch(Registry& r);
void register_seed_prefetch_2x2(Registry& r);
void register_seed_double_buffer(Registry& r);
void register_seed_quadrant(Registry& r);
// The fast FP32 ladder (src/kernels/fp32/): CUDA cores, strict FP32, towards cuBLAS SGEMM.
void register_fp32_blocktile(Registry& r);
void register_fp32_vectorized(Registry& r);  // steps 2 and 3
void register_fp32_warptile(Registry& r);
void register_fp32_async(Registry& r);
void register_fp32_raster(Registry& r);
void register_fp32_splitk(Registry& r);
void register_fp32_streamk(Registry& r);
void register_fp32_tuned(Registry& r);
// The tensor-core ladder (src/kernels/tensor/): TF32, BF16, FP16 with FP32 accumulation.
void register_tc_wmma(Registry& r);
void register_tc_mma(Registry& r);
#ifdef GEMMLAB_HAVE_SM90A
void register_tc_hopper(Registry& r);       // steps 3-7, built for sm_90a
void register_tc_hopper_tf32(Registry& r);  // step 8, built for sm_90a
#endif

void register_all_kernels(Registry& r) {
  register_auto(r);
  register_cublas(r);
  register_seed_single_block(r);
  register_seed_naive(r);
  register_seed_shared(r);
  register_seed_prefetch(r);
  register_seed_prefetch_2x2(r);
  register_seed_double_buffer(r);
  register_seed_quadrant(r);
  register_fp32_blocktile(r);
  register_fp32_vectorized(r);
  register_fp32_warptile(r);
  register_fp32_async(r);
  register_fp32_raster(r);
  register_fp32_splitk(r);
  register_fp32_streamk(r);
  register_fp32_tuned(r);
  register_tc_wmma(r);
  register_tc_mma(r);
#ifdef GEMMLAB_HAVE_SM90A
  register_tc_hopper(r);
  register_tc_hopper_tf32(r);
#endif
}

}  // namespace gemmlab
