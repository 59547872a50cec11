#include "reference/verify.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/buffer.hpp"
#include "core/error.hpp"

namespace gemmlab {

namespace {

__host__ __device__ inline void accumulate(ErrorSums& e, double c, double r, double scale) {
  e.count += 1;
  if (!isfinite(c)) {
    e.nonfinite += 1;
    return;
  }
  const double d = fabs(c - r);
  e.sum_sq_diff += d * d;
  e.sum_sq_ref += r * r;
  e.max_abs_diff = fmax(e.max_abs_diff, d);
  // scale == 0 only when a whole row of A or column of B is zero: then C must be exact.
  const double scaled = d == 0.0 ? 0.0 : (scale > 0.0 ? d / scale : INFINITY);
  e.max_scaled_diff = fmax(e.max_scaled_diff, scaled);
}

void merge(ErrorSums& into, const ErrorSums& e) {
  into.sum_sq_diff += e.sum_sq_diff;
  into.sum_sq_ref += e.sum_sq_ref;
  into.max_abs_diff = std::fmax(into.max_abs_diff, e.max_abs_diff);
  into.max_scaled_diff = std::fmax(into.max_scaled_diff, e.max_scaled_diff);
  into.nonfinite += e.nonfinite;
  into.count += e.count;
}

template <class T> __device__ double as_double(T v);
template <> __device__ double as_double(float v) { return v; }
template <> __device__ double as_double(double v) { return v; }
template <> __device__ double as_double(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __device__ double as_double(__half v) { return __half2float(v); }

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

// Each block reduces a grid-stride slice and writes one partial; the host merges the partials.
template <class T>
__global__ void compare_kernel(const T* c, const double* ref, const double* scale, std::int64_t n,
                               ErrorSums* partials) {
  ErrorSums e{};
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    accumulate(e, as_double(c[i]), ref[i], scale[i]);
  __shared__ ErrorSums sh[kThreads];
  sh[threadIdx.x] = e;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      ErrorSums& a = sh[threadIdx.x];
      const ErrorSums& b = sh[threadIdx.x + stride];
      a.sum_sq_diff += b.sum_sq_diff;
      a.sum_sq_ref += b.sum_sq_ref;
      a.max_abs_diff = fmax(a.max_abs_diff, b.max_abs_diff);
      a.max_scaled_diff = fmax(a.max_scaled_diff, b.max_scaled_diff);
      a.nonfinite += b.nonfinite;
      a.count += b.count;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}

}  // namespace

std::string Verification::summary() const {
  if (!checked) return "not checked";
  if (nonfinite > 0) return fmt::format("FAIL: {} non-finite element(s)", nonfinite);
  return fmt::format("{} rel {:.1e} elem {:.1e}", passed ? "PASS" : "FAIL", rel_frobenius, max_elementwise);
}

Verification evaluate(const ErrorSums& e, const Tolerance& tol) {
  Verification v;
  v.checked = true;
  v.tolerance = tol;
  v.nonfinite = e.nonfinite;
  v.max_abs_error = e.max_abs_diff;
  v.max_elementwise = e.max_scaled_diff;
  v.rel_frobenius = e.sum_sq_ref > 0 ? std::sqrt(e.sum_sq_diff / e.sum_sq_ref) : std::sqrt(e.sum_sq_diff);
  v.passed = e.count > 0 && e.nonfinite == 0 && v.rel_frobenius <= tol.rel_frobenius &&
             v.max_elementwise <= tol.elementwise;
  return v;
}

ErrorSums compare_host(const double* c, const double* ref, const double* scale, std::int64_t n) {
  ErrorSums e{};
  for (std::int64_t i = 0; i < n; ++i) accumulate(e, c[i], ref[i], scale[i]);
  return e;
}

ErrorSums compare_device(const void* c, DType c_type, const double* ref, const double* scale, std::int64_t n,
                         cudaStream_t s) {
  const int blocks = int(std::min<std::int64_t>(kMaxBlocks, (n + kThreads - 1) / kThreads));
  DeviceBuffer partials(sizeof(ErrorSums) * std::size_t(blocks));
  auto* p = partials.as<ErrorSums>();
  switch (c_type) {
    case DType::f32: compare_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const float*>(c), ref, scale, n, p); break;
    case DType::f64: compare_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const double*>(c), ref, scale, n, p); break;
    case DType::bf16: compare_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const __nv_bfloat16*>(c), ref, scale, n, p); break;
    case DType::f16: compare_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const __half*>(c), ref, scale, n, p); break;
  }
  GEMMLAB_CHECK_LAUNCH();
  std::vector<ErrorSums> host;
  host.resize(std::size_t(blocks));
  GEMMLAB_CUDA(cudaMemcpyAsync(host.data(), p, sizeof(ErrorSums) * host.size(), cudaMemcpyDeviceToHost, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  ErrorSums total{};
  for (const auto& e : host) merge(total, e);
  return total;
}

}  // namespace gemmlab
