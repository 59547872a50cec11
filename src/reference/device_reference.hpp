// The float64 reference on the GPU: the kernel's own operands upcast to double, multiplied by
// cuBLAS DGEMM. A second DGEMM on absolute values gives each element's error scale.
#pragma once

#include <cublas_v2.h>

#include "core/buffer.hpp"
#include "core/types.hpp"

namespace gemmlab {

struct DeviceReference {
  DeviceBuffer ref;    // alpha * A * B + beta * C0, m x n doubles
  DeviceBuffer scale;  // |alpha| |A| |B| + |beta| |C0|
};

// Bytes of device memory compute_reference needs at its peak.
std::size_t reference_bytes(const Shape& s);

// a, b: operands in type ab_type (exactly what the kernel reads); c0: the initial C (type c0_type),
// used only when beta != 0.
DeviceReference compute_reference(cublasHandle_t h, cudaStream_t st, const Shape& s, double alpha, const void* a,
                                  const void* b, DType ab_type, double beta, const void* c0, DType c0_type);

// Row-major C(m x n) = alpha A(m x k) B(k x n) + beta C in double through cuBLAS.
void dgemm_row_major(cublasHandle_t h, cudaStream_t st, const Shape& s, double alpha, const double* a,
                     const double* b, double beta, double* c);

}  // namespace gemmlab
