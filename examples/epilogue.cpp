// epilogue: D = gelu(A B + bias), a transformer MLP's first layer, in FP16 in and out.
//
// The bias (one value per column of D) and the GELU are applied inside the GEMM kernel, on its FP32
// sums, before D is rounded and written: no second kernel and no extra pass over D.
// GELU is the tanh form (PyTorch's approximate="tanh"): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
#include <gemmlab/gemmlab.hpp>

#include <cuda_fp16.h>  // __half and its host-side conversions
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    const cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(err_)); \
  } while (0)

// Device memory that frees itself, made from (or read back into) a host vector.
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t size = 0;
  explicit DeviceArray(std::size_t n) : size(n) { CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    CHECK(cudaMemcpy(ptr, host.data(), size * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  std::vector<T> to_host() const {
    std::vector<T> host(size);
    CHECK(cudaMemcpy(host.data(), ptr, size * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}

int main() try {
  const int m = 384, n = 512, k = 320;  // tokens x hidden -> tokens x 4 hidden, say

  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<__half> a(std::size_t(m) * k), b(std::size_t(k) * n), bias(n);
  for (auto& x : a) x = __float2half(dist(rng));
  for (auto& x : b) x = __float2half(dist(rng));
  for (auto& x : bias) x = __float2half(2.0f * dist(rng));  // shifts some columns into GELU's curved part

  DeviceArray<__half> d_a(a), d_b(b), d_bias(bias), d_d(std::size_t(m) * n);

  gemmlab::Context ctx;
  gemmlab::Gemm g;
  g.m = m, g.n = n, g.k = k;
  g.a = {d_a.ptr, gemmlab::DataType::f16};  // row-major m x k
  g.b = {d_b.ptr, gemmlab::DataType::f16};  // row-major k x n
  g.d = {d_d.ptr, gemmlab::DataType::f16};  // row-major m x n
  g.epilogue.bias_kind = gemmlab::BiasKind::per_column;  // bias[j] is added to column j
  g.epilogue.bias = d_bias.ptr;                          // n values, of D's type (or set bias_type = f32)
  g.epilogue.activation = gemmlab::Activation::gelu_tanh;

  const gemmlab::Plan plan = gemmlab::plan(ctx, g);
  std::printf("plan: %s [%s] (%s)\n", plan.kernel.c_str(), plan.config.c_str(), plan.reason.c_str());
  gemmlab::gemm(ctx, g);
  const std::vector<__half> d = d_d.to_host();

  // Every element against float64. FP16 keeps 11 bits of mantissa (a relative rounding error up to
  // 2^-11): allow 2^-10 of the value, plus FP32 accumulation of the sum (GELU's slope is below 1.13).
  double max_error = 0.0;
  long bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0, magnitude = 0.0;
      for (int p = 0; p < k; ++p) {
        const double x = double(__half2float(a[std::size_t(i) * k + p])) * __half2float(b[std::size_t(p) * n + j]);
        sum += x;
        magnitude += std::fabs(x);
      }
      const double want = gelu_tanh(sum + __half2float(bias[j]));
      const double got = __half2float(d[std::size_t(i) * n + j]);
      const double error = std::fabs(got - want);
      max_error = std::max(max_error, error);
      if (error > std::ldexp(std::fabs(want), -10) + 2e-5 * magnitude && ++bad <= 5)
        std::printf("mismatch at (%d, %d): %.5g, expected %.5g\n", i, j, got, want);
    }
  std::printf("gelu(A B + bias), %d x %d x %d, FP16: max |error| = %.3g\n", m, n, k, max_error);
  if (bad) {
    std::printf("FAILED: %ld elements outside the tolerance\n", bad);
    return 1;
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
