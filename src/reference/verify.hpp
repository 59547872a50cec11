// Verification: the kernel's C against a float64 reference.
//
// Three numbers decide: the relative Frobenius error ||C - ref||_F / ||ref||_F (the overall
// accuracy), the worst element's error scaled by what its inputs allow, |C - ref| / (|alpha||A||B| +
// |beta||C0|) (one wrong element among millions cannot hide in a norm), and the count of non-finite
// values (C is filled with NaN before the kernel runs, so an element never written shows up here).
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "core/types.hpp"

namespace gemmlab {

// Raw sums from one comparison; combined by evaluate().
struct ErrorSums {
  double sum_sq_diff = 0, sum_sq_ref = 0;
  double max_abs_diff = 0;
  double max_scaled_diff = 0;  // max |c - ref| / scale
  std::int64_t nonfinite = 0;
  std::int64_t count = 0;
};

struct Verification {
  bool checked = false;
  double rel_frobenius = 0;
  double max_abs_error = 0;
  double max_elementwise = 0;
  std::int64_t nonfinite = 0;
  Tolerance tolerance{};
  bool passed = false;
  std::string summary() const;  // "PASS rel 3.1e-07 elem 2.0e-06" / "FAIL: 12 non-finite ..."
};

Verification evaluate(const ErrorSums& e, const Tolerance& tol);

// Accumulate ErrorSums over n elements on the host.
ErrorSums compare_host(const double* c, const double* ref, const double* scale, std::int64_t n);

// The same on the device: c has type c_type; ref and scale are float64 device arrays.
ErrorSums compare_device(const void* c, DType c_type, const double* ref, const double* scale, std::int64_t n,
                         cudaStream_t s);

}  // namespace gemmlab
