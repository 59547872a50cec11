#include "kernels/catalog.hpp"

#include "kernels/registry.hpp"

namespace gemmlab {

// Baselines: cuBLAS in each precision.
void register_cublas(Registry& r);
// The seed ladder (src/kernels/seed/), in the order the seed documents build it up.
void register_seed_naive(Registry& r);

void register_all_kernels(Registry& r) {
  register_cublas(r);
  register_seed_naive(r);
}

}  // namespace gemmlab
