// grouped: a grouped GEMM, as in a mixture-of-experts layer. BF16 in, BF16 out.
//
// Routing has sent each token (a row of A) to one of 4 experts and sorted the tokens by expert, so
// expert g owns a contiguous range of rows. Each expert multiplies its rows by its own weights B_g:
//   rows [offsets[g-1], offsets[g]) of D = the same rows of A times B_g   (offsets[-1] = 0)
// The groups are uneven, and expert 1 got no tokens at all. The offsets live in device memory (in
// a real model routing computes them on the GPU); here they are computed on the host and copied once.
#include <gemmlab/gemmlab.hpp>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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
  const int n = 256, k = 128;                              // every expert: k inputs -> n outputs
  const std::vector<int> tokens_per_expert = {96, 0, 200, 37};
  const int groups = int(tokens_per_expert.size());

  // offsets[g] = where group g ends: the running sum of the group sizes (torch._grouped_mm's convention).
  std::vector<std::int32_t> offsets(groups);
  std::int32_t rows = 0;
  for (int g = 0; g < groups; ++g) {
    rows += tokens_per_expert[g];
    offsets[g] = rows;  // 96, 96, 296, 333
  }
  const int m = rows;  // all tokens

  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<__nv_bfloat16> a(std::size_t(m) * k);            // tokens: m x k, row-major
  std::vector<__nv_bfloat16> b(std::size_t(groups) * k * n);   // expert weights: groups x (k x n), row-major
  for (auto& x : a) x = __float2bfloat16(dist(rng));
  for (auto& x : b) x = __float2bfloat16(dist(rng));

  DeviceArray<__nv_bfloat16> d_a(a), d_b(b), d_d(std::size_t(m) * n);
  DeviceArray<std::int32_t> d_offsets(offsets);  // the one host-to-device copy of the routing

  gemmlab::Context ctx;
  gemmlab::GroupedGemm g;
  g.groups = groups;
  g.offsets = d_offsets.ptr;
  g.m = m, g.n = n, g.k = k;
  g.a = {d_a.ptr, gemmlab::DataType::bf16};  // all groups' rows, stacked
  g.b = {d_b.ptr, gemmlab::DataType::bf16, gemmlab::Order::row_major, /*ld=*/0, /*batch_stride=*/std::int64_t(k) * n};
  g.d = {d_d.ptr, gemmlab::DataType::bf16};  // row-major, rows stacked like A's

  const gemmlab::Plan plan = gemmlab::plan(ctx, g);
  std::printf("plan: %s [%s] (%s)\n", plan.kernel.c_str(), plan.config.c_str(), plan.reason.c_str());
  gemmlab::gemm(ctx, g);
  const std::vector<__nv_bfloat16> d = d_d.to_host();

  // Every row against float64, with its group's weights. The BF16 output is rounded to 8 bits of
  // mantissa (a relative error up to 2^-9): allow 2^-8 of the value, plus FP32 accumulation.
  double max_error = 0.0;
  long bad = 0;
  for (int grp = 0, row = 0; grp < groups; ++grp) {
    const __nv_bfloat16* bg = b.data() + std::size_t(grp) * k * n;
    for (; row < offsets[grp]; ++row)
      for (int j = 0; j < n; ++j) {
        double want = 0.0, magnitude = 0.0;
        for (int p = 0; p < k; ++p) {
          const double x = double(__bfloat162float(a[std::size_t(row) * k + p])) * __bfloat162float(bg[std::size_t(p) * n + j]);
          want += x;
          magnitude += std::fabs(x);
        }
        const double got = __bfloat162float(d[std::size_t(row) * n + j]);
        const double error = std::fabs(got - want);
        max_error = std::max(max_error, error);
        if (error > std::ldexp(std::fabs(want), -8) + 1e-5 * magnitude && ++bad <= 5)
          std::printf("mismatch in group %d, row %d, column %d: %.5g, expected %.5g\n", grp, row, j, got, want);
      }
  }
  std::printf("%d groups of", groups);
  for (int t : tokens_per_expert) std::printf(" %d", t);
  std::printf(" rows, n = %d, k = %d: max |error| = %.3g\n", n, k, max_error);
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
