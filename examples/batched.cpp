// batched: a strided batched GEMM, D_i = A op(B_i) for i = 0 .. 7, in FP32.
//
// One operand is shared by every item (batch_stride 0: a weight matrix applied to 8 inputs), and
// the operands use the other layouts gemmlab accepts:
//   A:   m x k, column-major (BLAS, Fortran), the same for every item (batch_stride 0);
//   B_i: stored n x k row-major and used transposed (op_b = transpose), as in PyTorch's x @ W.T;
//   D_i: m x n row-major, one after another (batch_stride m * n).
#include <gemmlab/gemmlab.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

int main() try {
  const int batch = 8, m = 256, n = 128, k = 64;

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(std::size_t(m) * k);          // one matrix, column-major: A(i, p) = a[i + p * m]
  std::vector<float> b(std::size_t(batch) * n * k);  // 8 matrices, each n x k row-major: B_i^T(j, p)
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);

  DeviceArray<float> d_a(a), d_b(b);
  DeviceArray<float> d_d(std::size_t(batch) * m * n);

  gemmlab::Context ctx;
  gemmlab::Gemm g;
  g.m = m, g.n = n, g.k = k;
  g.batch = batch;
  g.a = {d_a.ptr, gemmlab::DataType::f32, gemmlab::Order::col_major, /*ld=*/m, /*batch_stride=*/0};
  g.b = {d_b.ptr, gemmlab::DataType::f32, gemmlab::Order::row_major, /*ld=*/k, /*batch_stride=*/std::int64_t(n) * k};
  g.op_b = gemmlab::Op::transpose;  // op(B_i) = B_i^T is k x n
  g.d = {d_d.ptr, gemmlab::DataType::f32, gemmlab::Order::row_major, /*ld=*/n, /*batch_stride=*/std::int64_t(m) * n};
  g.compute = gemmlab::Compute::f32;  // the default: exact FP32 products (Compute::tf32 allows TF32)

  const gemmlab::Plan plan = gemmlab::plan(ctx, g);
  std::printf("plan: %s [%s] (%s)\n", plan.kernel.c_str(), plan.config.c_str(), plan.reason.c_str());
  gemmlab::gemm(ctx, g);  // on the legacy default stream: the cudaMemcpy below waits for it
  const std::vector<float> d = d_d.to_host();

  // Every element of every item against float64; tolerance as in multiply.cpp.
  double max_error = 0.0;
  long bad = 0;
  for (int item = 0; item < batch; ++item) {
    const float* bi = b.data() + std::size_t(item) * n * k;
    const float* di = d.data() + std::size_t(item) * m * n;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double want = 0.0, magnitude = 0.0;
        for (int p = 0; p < k; ++p) {
          const double x = double(a[i + std::size_t(p) * m]) * bi[std::size_t(j) * k + p];
          want += x;
          magnitude += std::fabs(x);
        }
        const double error = std::fabs(di[std::size_t(i) * n + j] - want);
        max_error = std::max(max_error, error);
        if (error > 1e-5 * magnitude && ++bad <= 5)
          std::printf("mismatch in item %d at (%d, %d): %.7g, expected %.7g\n", item, i, j, di[std::size_t(i) * n + j], want);
      }
  }
  std::printf("%d x (%d x %d x %d): max |error| = %.3g\n", batch, m, n, k, max_error);
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
