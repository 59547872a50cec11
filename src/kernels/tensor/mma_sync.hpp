// The mma.sync kernel (step 2) as a plain launcher: the Hopper kernels use it as their correct
// path for shapes TMA cannot describe (rows not 16-byte aligned).
#pragma once

#include <cuda_runtime.h>

#include "kernels/kernel.hpp"

namespace gemmlab::tc {

void launch_mma_sync(Precision p, const GemmArgs& g, cudaStream_t s);

}  // namespace gemmlab::tc
