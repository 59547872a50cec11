#include "core/error.hpp"

#include <fmt/format.h>

namespace gemmlab {

namespace {
std::string basename(const char* path) {
  std::string p(path);
  auto pos = p.find_last_of('/');
  return pos == std::string::npos ? p : p.substr(pos + 1);
}
}  // namespace

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw Error(fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(code),
                          cudaGetErrorString(code), call, basename(file), line));
}

const char* cublas_status_name(cublasStatus_t code) {
  switch (code) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

void throw_cublas_error(cublasStatus_t code, const char* call, const char* file, int line) {
  throw Error(fmt::format("cuBLAS error {} in {} at {}:{}", cublas_status_name(code), call,
                          basename(file), line));
}

}  // namespace gemmlab
