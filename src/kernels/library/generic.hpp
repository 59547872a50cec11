// The generic kernel: correct for every problem the API accepts (any type combination, layout,
// leading dimension, alignment, batch, groups and epilogue), on any GPU gemmlab is built for. The
// dispatcher sends it what no fast kernel can take; it is also the library's reference path.
#pragma once

#include <cuda_runtime.h>

#include "api/problem.hpp"

namespace gemmlab::detail {

void launch_generic(const Problem& p, cudaStream_t stream);

// The kernel's entry point for one type combination (to check at context creation that the
// library holds code for the device).
const void* generic_kernel_for_checks();

}  // namespace gemmlab::detail
