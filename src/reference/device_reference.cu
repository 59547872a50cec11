#include "reference/device_reference.hpp"

#include "core/error.hpp"
#include "core/fill.hpp"

namespace gemmlab {

namespace {

__global__ void abs_in_place(double* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = fabs(x[i]);
}

void abs_inplace(double* x, std::int64_t n, cudaStream_t st) {
  const int blocks = int(std::min<std::int64_t>(65535, (n + 255) / 256));
  abs_in_place<<<blocks, 256, 0, st>>>(x, n);
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace

std::size_t reference_bytes(const Shape& s) {
  return 8 * std::size_t(s.m * s.k + s.k * s.n + 2 * s.m * s.n);
}

void dgemm_row_major(cublasHandle_t h, cudaStream_t st, const Shape& s, double alpha, const double* a,
                     const double* b, double beta, double* c) {
  GEMMLAB_CUBLAS(cublasSetStream(h, st));
  // Row-major C = A B is column-major C^T = B^T A^T.
  GEMMLAB_CUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(s.n), int(s.m), int(s.k), &alpha, b, int(s.n), a,
                             int(s.k), &beta, c, int(s.n)));
}

DeviceReference compute_reference(cublasHandle_t h, cudaStream_t st, const Shape& s, double alpha, const void* a,
                                  const void* b, DType ab_type, double beta, const void* c0, DType c0_type) {
  const std::int64_t mk = s.m * s.k, kn = s.k * s.n, mn = s.m * s.n;
  DeviceBuffer a64(8 * std::size_t(mk)), b64(8 * std::size_t(kn));
  convert(a, ab_type, a64.get(), DType::f64, mk, st);
  convert(b, ab_type, b64.get(), DType::f64, kn, st);
  DeviceReference r{DeviceBuffer(8 * std::size_t(mn)), DeviceBuffer(8 * std::size_t(mn))};
  const bool with_c = beta != 0.0 && c0 != nullptr;
  if (with_c) {
    convert(c0, c0_type, r.ref.get(), DType::f64, mn, st);
    convert(c0, c0_type, r.scale.get(), DType::f64, mn, st);
    abs_inplace(r.scale.as<double>(), mn, st);
  }
  dgemm_row_major(h, st, s, alpha, a64.as<double>(), b64.as<double>(), with_c ? beta : 0.0, r.ref.as<double>());
  abs_inplace(a64.as<double>(), mk, st);
  abs_inplace(b64.as<double>(), kn, st);
  dgemm_row_major(h, st, s, std::fabs(alpha), a64.as<double>(), b64.as<double>(), with_c ? std::fabs(beta) : 0.0,
                  r.scale.as<double>());
  GEMMLAB_CUDA(cudaStreamSynchronize(st));
  return r;
}

}  // namespace gemmlab
