#include "kernels/catalog.hpp"

#include "kernels/registry.hpp"

namespace gemmlab {

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

void register_all_kernels(Registry& r) {
  register_cublas(r);
  register_seed_single_block(r);
  register_seed_naive(r);
  register_seed_shared(r);
  register_seed_prefetch(r);
  register_seed_prefetch_2x2(r);
  register_seed_double_buffer(r);
  register_seed_quadrant(r);
}

}  // namespace gemmlab
