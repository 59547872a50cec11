// A kernel for the early-launch test (api_gpu_test.cpp): it lets the next kernel on the stream
// start at once, then writes its output only after a delay.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace gemmlab::apitest {

// Copies `bytes` from src to dst on `stream` after about `delay_us` microseconds. Its blocks allow
// the next kernel's early launch (griddepcontrol.launch_dependents) before they wait, so a kernel
// launched early behind it that read dst before waiting would see dst as it was before the copy.
void launch_late_copy(void* dst, const void* src, std::size_t bytes, double delay_us, cudaStream_t stream);

}  // namespace gemmlab::apitest
