// Errors and the checks that turn CUDA / cuBLAS return codes into them.
//
// Every fallible call in gemmlab goes through GEMMLAB_CUDA / GEMMLAB_CUBLAS, so a failure
// becomes one readable exception (file:line, the call, the library's message) instead of
// an error code silently ignored. The CLI catches gemmlab::Error and prints one line.
#pragma once

#include <stdexcept>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gemmlab/error.hpp"  // gemmlab::Error: the one exception type for anything a user can fix or must know

namespace gemmlab {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t code, const char* call, const char* file, int line);
const char* cublas_status_name(cublasStatus_t code);

}  // namespace gemmlab

#define GEMMLAB_CUDA(call)                                                              \
  do {                                                                                  \
    cudaError_t gemmlab_status_ = (call);                                               \
    if (gemmlab_status_ != cudaSuccess)                                                 \
      ::gemmlab::throw_cuda_error(gemmlab_status_, #call, __FILE__, __LINE__);          \
  } while (0)

#define GEMMLAB_CUBLAS(call)                                                            \
  do {                                                                                  \
    cublasStatus_t gemmlab_status_ = (call);                                            \
    if (gemmlab_status_ != CUBLAS_STATUS_SUCCESS)                                       \
      ::gemmlab::throw_cublas_error(gemmlab_status_, #call, __FILE__, __LINE__);        \
  } while (0)

// After every kernel launch: launch-configuration errors surface here, not later.
#define GEMMLAB_CHECK_LAUNCH() GEMMLAB_CUDA(cudaGetLastError())
