#include "reference/cpu_gemm.hpp"

#include <cmath>

namespace gemmlab {

void gemm_cpu(const Shape& s, double alpha, const double* a, const double* b, double beta, double* c) {
  std::vector<double> row(std::size_t(s.n));
  for (std::int64_t i = 0; i < s.m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (std::int64_t p = 0; p < s.k; ++p) {  // i-p-j order: unit stride over B and C
      const double aip = a[i * s.k + p];
      const double* brow = b + p * s.n;
      for (std::int64_t j = 0; j < s.n; ++j) row[std::size_t(j)] += aip * brow[j];
    }
    for (std::int64_t j = 0; j < s.n; ++j) {
      double& cij = c[i * s.n + j];
      cij = beta == 0.0 ? alpha * row[std::size_t(j)] : alpha * row[std::size_t(j)] + beta * cij;
    }
  }
}

void abs_gemm_cpu(const Shape& s, double alpha, const double* a, const double* b, double beta,
                  const double* c0, double* out) {
  std::vector<double> aa(std::size_t(s.m * s.k)), bb(std::size_t(s.k * s.n));
  for (std::size_t i = 0; i < aa.size(); ++i) aa[i] = std::fabs(a[i]);
  for (std::size_t i = 0; i < bb.size(); ++i) bb[i] = std::fabs(b[i]);
  for (std::int64_t i = 0; i < s.m * s.n; ++i) out[i] = (beta != 0.0 && c0) ? std::fabs(c0[i]) : 0.0;
  gemm_cpu(s, std::fabs(alpha), aa.data(), bb.data(), beta != 0.0 && c0 ? std::fabs(beta) : 0.0, out);
}

}  // namespace gemmlab
