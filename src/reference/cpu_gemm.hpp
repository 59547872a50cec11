// The float64 reference on the CPU: a plain loop, for small sizes and for the tests that check
// the GPU reference itself.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace gemmlab {

// C = alpha * A * B + beta * C in double, row-major, packed. C must hold m*n values.
void gemm_cpu(const Shape& s, double alpha, const double* a, const double* b, double beta, double* c);

// |alpha| |A| |B| + |beta| |C0|: the scale each element's rounding error is measured against.
void abs_gemm_cpu(const Shape& s, double alpha, const double* a, const double* b, double beta,
                  const double* c0, double* out);

}  // namespace gemmlab
