// multiply: one GEMM, D = A B, with BF16 inputs and FP32 output, all matrices row-major.
//
// The shortest path through gemmlab: put A and B in device memory, describe the problem in a
// gemmlab::Gemm, ask gemmlab::plan() which kernel it will run and why, run it with gemmlab::gemm(),
// and check a sample of D against a float64 computation on the CPU.
#include <gemmlab/gemmlab.hpp>

#include <cuda_bf16.h>         // __nv_bfloat16 and its host-side conversions
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

// Turns a failed CUDA call into an exception that names it.
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
  // Any sizes work; these are deliberately not multiples of a tile.
  const int m = 1000, n = 1500, k = 768;

  // Random inputs in [-1, 1], rounded to BF16 on the host. The reference below uses the rounded
  // values, so that it checks the GEMM and not the rounding of the inputs.
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<__nv_bfloat16> a(std::size_t(m) * k), b(std::size_t(k) * n);
  for (auto& x : a) x = __float2bfloat16(dist(rng));
  for (auto& x : b) x = __float2bfloat16(dist(rng));

  DeviceArray<__nv_bfloat16> d_a(a), d_b(b);
  DeviceArray<float> d_d(std::size_t(m) * n);

  gemmlab::Context ctx;  // once per GPU: device properties, dispatch table, workspace
  std::printf("gemmlab %s on %s\n", gemmlab::version(), ctx.device().name.c_str());

  gemmlab::Gemm g;
  g.m = m, g.n = n, g.k = k;
  g.a = {d_a.ptr, gemmlab::DataType::bf16};  // m x k, row-major, packed (ld = k)
  g.b = {d_b.ptr, gemmlab::DataType::bf16};  // k x n, row-major, packed (ld = n)
  g.d = {d_d.ptr, gemmlab::DataType::f32};   // m x n, row-major, packed (ld = n)

  // What gemm() will run, and why (validated like the call itself; nothing is launched).
  const gemmlab::Plan plan = gemmlab::plan(ctx, g);
  std::printf("plan: kernel %s\n      config %s\n      reason %s\n", plan.kernel.c_str(), plan.config.c_str(),
              plan.reason.c_str());

  // gemm() only enqueues work on the stream (a cudaStream_t); wait for it before reading D.
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  gemmlab::gemm(ctx, g, stream);
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));
  const std::vector<float> d = d_d.to_host();

  // Check 200 random elements against float64. FP32 accumulation of k products may differ from
  // the exact sum by a small multiple of 2^-24 * sum |a_ip b_pj|: allow 1e-5 of that sum.
  std::uniform_int_distribution<int> row(0, m - 1), col(0, n - 1);
  double max_error = 0.0;
  int bad = 0;
  for (int s = 0; s < 200; ++s) {
    const int i = row(rng), j = col(rng);
    double want = 0.0, magnitude = 0.0;
    for (int p = 0; p < k; ++p) {
      const double x = double(__bfloat162float(a[std::size_t(i) * k + p])) * __bfloat162float(b[std::size_t(p) * n + j]);
      want += x;
      magnitude += std::fabs(x);
    }
    const double error = std::fabs(d[std::size_t(i) * n + j] - want);
    max_error = std::max(max_error, error);
    if (error > 1e-5 * magnitude) {
      if (++bad <= 5) std::printf("mismatch at (%d, %d): %.7g, expected %.7g\n", i, j, d[std::size_t(i) * n + j], want);
    }
  }
  std::printf("%d x %d x %d: max |error| over 200 sampled elements = %.3g\n", m, n, k, max_error);
  if (bad) {
    std::printf("FAILED: %d of 200 elements outside the tolerance\n", bad);
    return 1;
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {  // gemmlab::Error (and its InvalidArgument, Unsupported) included
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
