// A/B of inner-loop variants of the FP32 pipelined kernel (variant.cu, one object per variant) against
// cuBLAS SGEMM (strict FP32), interleaved round by round in one process. C is poisoned (NaN) before the
// first run; every variant is compared bitwise with variant 0 (the loop as in src/) and by relative
// Frobenius error with cuBLAS. Build: see build.sh.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x) do { auto e_ = (x); if (int(e_) != 0) { std::printf("%s failed: %d\n", #x, int(e_)); return 1; } } while (0)
extern "C" {
#define V(n) int launch_v##n(int, int, int, const float*, const float*, float*);
V(0) V(1) V(2) V(3) V(4) V(5) V(6) V(7)
#undef V
}
using Launch = int (*)(int, int, int, const float*, const float*, float*);
const Launch kLaunch[] = {launch_v0, launch_v1, launch_v2, launch_v3, launch_v4, launch_v5, launch_v6, launch_v7};
constexpr int NV = sizeof(kLaunch) / sizeof(kLaunch[0]);

int main(int argc, char** argv) {
  const char* names = std::getenv("VARIANT_NAMES");
  cublasHandle_t h;
  CK(cublasCreate(&h));
  for (int arg = 1; arg < argc; ++arg) {
    const int n = std::atoi(argv[arg]), M = n, N = n, K = n;
    std::vector<float> ha(std::size_t(M) * K), hb(std::size_t(K) * N);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : ha) x = u(rng);
    for (auto& x : hb) x = u(rng);
    float *a, *b, *c[NV + 1];
    CK(cudaMalloc(&a, ha.size() * 4));
    CK(cudaMalloc(&b, hb.size() * 4));
    for (auto& p : c) { CK(cudaMalloc(&p, std::size_t(M) * N * 4)); CK(cudaMemset(p, 0xff, std::size_t(M) * N * 4)); }
    CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    auto run = [&](int v) -> int {  // v == 0: cuBLAS; v > 0: variant v - 1
      if (v == 0) return int(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, c[0], N));
      return kLaunch[v - 1](M, N, K, a, b, c[v]);
    };
    for (int v = 0; v <= NV; ++v) CK(run(v));
    CK(cudaDeviceSynchronize());
    std::vector<std::vector<float>> out(NV + 1, std::vector<float>(std::size_t(M) * N));
    for (int v = 0; v <= NV; ++v) CK(cudaMemcpy(out[v].data(), c[v], out[v].size() * 4, cudaMemcpyDeviceToHost));
    std::printf("%d^3\n", n);
    for (int v = 1; v <= NV; ++v) {
      long bad = 0, differ = 0;
      double e2 = 0, r2 = 0;
      for (std::size_t i = 0; i < out[v].size(); ++i) {
        if (!std::isfinite(out[v][i])) { ++bad; continue; }
        differ += out[v][i] != out[1][i];
        const double d = double(out[v][i]) - out[0][i];
        e2 += d * d, r2 += double(out[0][i]) * out[0][i];
      }
      std::printf("  v%d: %ld non-finite, %ld differ from v0, rel. Frobenius vs cuBLAS %.2e\n", v - 1, bad, differ,
                  std::sqrt(e2 / r2));
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<std::vector<float>> ms(NV + 1);
    const int rounds = n >= 8192 ? 13 : 33;
    for (int round = 0; round < rounds; ++round)
      for (int v = 0; v <= NV; ++v) {
        CK(cudaEventRecord(e0));
        CK(run(v));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (round >= 3) ms[v].push_back(t);
      }
    auto median = [](std::vector<float> x) { std::sort(x.begin(), x.end()); return x[x.size() / 2]; };
    const float base = median(ms[0]);
    for (int v = 0; v <= NV; ++v) {
      auto x = ms[v];
      std::sort(x.begin(), x.end());
      std::printf("  %-4s median %.4f ms  min %.4f  max %.4f  %.1f TFLOPS  %.1f%% of cuBLAS\n",
                  v == 0 ? "cuBLAS" : ("v" + std::to_string(v - 1)).c_str(), x[x.size() / 2], x.front(), x.back(),
                  2.0 * M * N * K / (x[x.size() / 2] * 1e9), 100.0 * base / x[x.size() / 2]);
    }
    for (auto& p : c) cudaFree(p);
    cudaFree(a);
    cudaFree(b);
  }
  cublasDestroy(h);
  return 0;
}
