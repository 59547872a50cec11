// A/B of the stream-K tail of the FP32 pipelined kernel (variant.cu, one object per tail FMA order),
// each launched with the tail after the whole tiles (early 0) and overlapping them (early 1, programmatic
// dependent launch), against cuBLAS SGEMM (strict FP32), interleaved round by round in one process. C is
// poisoned (NaN) before the first run; every run's output is compared bitwise with the first variant's
// and by relative Frobenius error with cuBLAS. Build: see build.sh. Usage: abt SIZE...
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
#define V(n) int launch_v##n(int, int, int, const float*, const float*, float*, float*, unsigned*, int);
V(0) V(1) V(2) V(3)
#undef V
}
using Launch = int (*)(int, int, int, const float*, const float*, float*, float*, unsigned*, int);
const Launch kLaunch[] = {launch_v0, launch_v1, launch_v2, launch_v3};
constexpr int NV = sizeof(kLaunch) / sizeof(kLaunch[0]);
constexpr int NR = 2 * NV + 1;  // run r: 0 cuBLAS; r > 0: variant (r - 1) / 2, early (r - 1) % 2

int main(int argc, char** argv) {
  cublasHandle_t h;
  CK(cublasCreate(&h));
  for (int arg = 1; arg < argc; ++arg) {
    const int n = std::atoi(argv[arg]), M = n, N = n, K = n;
    std::vector<float> ha(std::size_t(M) * K), hb(std::size_t(K) * N);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : ha) x = u(rng);
    for (auto& x : hb) x = u(rng);
    float *a, *b, *ws, *c[NR];
    unsigned* flags;
    CK(cudaMalloc(&a, ha.size() * 4));
    CK(cudaMalloc(&b, hb.size() * 4));
    CK(cudaMalloc(&ws, std::size_t(132 + 132) * 128 * 256 * 4));
    CK(cudaMalloc(&flags, 4096 * 4));
    CK(cudaMemset(flags, 0, 4096 * 4));
    for (auto& p : c) { CK(cudaMalloc(&p, std::size_t(M) * N * 4)); CK(cudaMemset(p, 0xff, std::size_t(M) * N * 4)); }
    CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    auto run = [&](int r) -> int {
      if (r == 0) return int(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, c[0], N));
      return kLaunch[(r - 1) / 2](M, N, K, a, b, c[r], ws, flags, (r - 1) % 2);
    };
    for (int r = 0; r < NR; ++r) CK(run(r));
    CK(cudaDeviceSynchronize());
    std::vector<std::vector<float>> out(NR, std::vector<float>(std::size_t(M) * N));
    for (int r = 0; r < NR; ++r) CK(cudaMemcpy(out[r].data(), c[r], out[r].size() * 4, cudaMemcpyDeviceToHost));
    std::printf("%d^3\n", n);
    auto name = [](int r) { return r == 0 ? std::string("cuBLAS") : "v" + std::to_string((r - 1) / 2) + "e" + std::to_string((r - 1) % 2); };
    for (int r = 1; r < NR; ++r) {
      long bad = 0, differ = 0;
      double e2 = 0, r2 = 0;
      for (std::size_t i = 0; i < out[r].size(); ++i) {
        if (!std::isfinite(out[r][i])) { ++bad; continue; }
        differ += out[r][i] != out[1][i];
        const double d = double(out[r][i]) - out[0][i];
        e2 += d * d, r2 += double(out[0][i]) * out[0][i];
      }
      std::printf("  %s: %ld non-finite, %ld differ from v0e0, rel. Frobenius vs cuBLAS %.2e\n", name(r).c_str(), bad,
                  differ, std::sqrt(e2 / r2));
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<std::vector<float>> ms(NR);
    const int rounds = n >= 8192 ? 15 : 35;
    for (int round = 0; round < rounds; ++round)
      for (int r = 0; r < NR; ++r) {
        CK(cudaEventRecord(e0));
        CK(run(r));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (round >= 3) ms[r].push_back(t);
      }
    auto median = [](std::vector<float> x) { std::sort(x.begin(), x.end()); return x[x.size() / 2]; };
    const float base = median(ms[0]);
    for (int r = 0; r < NR; ++r) {
      auto x = ms[r];
      std::sort(x.begin(), x.end());
      std::printf("  %-6s median %.4f ms  min %.4f  max %.4f  %.1f TFLOPS  %.1f%% of cuBLAS\n", name(r).c_str(),
                  x[x.size() / 2], x.front(), x.back(), 2.0 * M * N * K / (x[x.size() / 2] * 1e9),
                  100.0 * base / x[x.size() / 2]);
    }
    for (auto& p : c) cudaFree(p);
    cudaFree(a), cudaFree(b), cudaFree(ws), cudaFree(flags);
  }
  cublasDestroy(h);
  return 0;
}
