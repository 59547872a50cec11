// With the boundary prefetch (src/kernels/fp32/pipelined.cuh), which configurations are fastest?
// cuBLAS SGEMM, the 817de2a kernel in fp32.tuned's 4096/8192 configuration (old_pipelined.cuh), and
// the current template in several configurations, whole tiles only (no stream-K tail), alternating
// round by round in one process. Every output is compared with cuBLAS (relative Frobenius error).
// Round 2 (-DROUND2): other 64-row and 128-thread shapes. Round 3 (-DROUND3): a few shapes, built
// once per variant of the header (the FMA order inside a k step).
// Build: nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -I src -I <this dir> configs.cu -lcublas -o configs
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "kernels/fp32/pipelined.cuh"
#include "old_pipelined.cuh"

namespace gemmlab {
void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::fprintf(stderr, "%s:%d %s: %s\n", file, line, call, cudaGetErrorString(code));
  std::abort();
}
}  // namespace gemmlab

#define CK(x) do { auto e_ = (x); if (int(e_) != 0) { std::printf("%s failed: %d\n", #x, int(e_)); return 1; } } while (0)

using namespace gemmlab;

struct Variant {
  std::string name;
  std::function<void(int M, int N, int K, const float*, const float*, float*)> run;
};

template <class Cfg, bool kOld = false>
Variant make(const char* name) {
  if constexpr (kOld) {
    cudaFuncSetAttribute(fp32_old::pipelined_gemm<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::kSmemBytes));
  } else {
    cudaFuncSetAttribute(fp32::pipelined_gemm<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::kSmemBytes));
  }
  return {name, [](int M, int N, int K, const float* a, const float* b, float* c) {
            const int tiles = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
            const int kp = (K + Cfg::kBK - 1) / Cfg::kBK * Cfg::kBK;
            if constexpr (kOld) {
              fp32_old::PipelinedArgs p{M, N, K, 1.0f, 0.0f, a, b, c, kp, nullptr, 8, true, {}, nullptr, nullptr};
              fp32_old::pipelined_gemm<Cfg><<<tiles, Cfg::kThreads, Cfg::kSmemBytes>>>(p);
            } else {
              fp32::PipelinedArgs p{M, N, K, 1.0f, 0.0f, a, b, c, kp, nullptr, 8, true, {}, nullptr, nullptr};
              fp32::pipelined_gemm<Cfg><<<tiles, Cfg::kThreads, Cfg::kSmemBytes>>>(p);
            }
          }};
}

int main(int argc, char** argv) {
  cublasHandle_t h;
  CK(cublasCreate(&h));
  std::vector<Variant> vs;
  vs.push_back({"cuBLAS SGEMM", [h](int M, int N, int K, const float* a, const float* b, float* c) {
                  const float one = 1.0f, zero = 0.0f;
                  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, c, N);
                }});
  using namespace fp32;
  vs.push_back(make<fp32_old::PipelinedConfig<2, 4, 16, 3, true, 16>, true>("old 128x256 16x8 s3 (817de2a)"));
  vs.push_back(make<PipelinedConfig<2, 4, 16, 3, true, 16>>("new 128x256 16x8 s3"));
  vs.push_back(make<PipelinedConfig<2, 2, 16, 3, true, 8>>("new 64x128 8x8 s3"));
  vs.push_back(make<PipelinedConfig<2, 2, 16, 4, true, 8>>("new 64x128 8x8 s4"));
#if defined(ROUND3)
  vs.push_back(make<PipelinedConfig<2, 2, 16, 3, true, 8>>("new 64x128 8x8 s3"));
  vs.push_back(make<PipelinedConfig<1, 4, 16, 3, true, 16>>("new 64x256 16x8 s3"));
  vs.push_back(make<PipelinedConfig<2, 2, 16, 3, true, 16>>("new 128x128 16x8 s3"));
#elif defined(ROUND2)
  vs.push_back(make<PipelinedConfig<2, 2, 32, 3, true, 8>>("new 64x128 8x8 BK32 s3"));
  vs.push_back(make<PipelinedConfig<2, 2, 32, 2, true, 8>>("new 64x128 8x8 BK32 s2"));
  vs.push_back(make<PipelinedConfig<2, 2, 16, 2, true, 8>>("new 64x128 8x8 s2"));
  vs.push_back(make<PipelinedConfig<2, 1, 16, 3, true, 8>>("new 64x64 8x8 s3"));
  vs.push_back(make<PipelinedConfig<1, 2, 16, 3, true, 8>>("new 32x128 8x8 s3"));
  vs.push_back(make<PipelinedConfig<1, 2, 16, 3, true, 16>>("new 64x128 16x8 s3"));
  vs.push_back(make<PipelinedConfig<1, 4, 16, 3, true, 16>>("new 64x256 16x8 s3"));
#else
  vs.push_back(make<PipelinedConfig<4, 2, 16, 3, true, 8>>("new 128x128 8x8 s3"));
  vs.push_back(make<PipelinedConfig<4, 2, 16, 4, true, 8>>("new 128x128 8x8 s4"));
  vs.push_back(make<PipelinedConfig<2, 4, 16, 3, true, 8>>("new 64x256 8x8 s3"));
  vs.push_back(make<PipelinedConfig<4, 4, 16, 3, true, 8>>("new 128x256 8x8 s3"));
  vs.push_back(make<PipelinedConfig<8, 2, 16, 3, true, 8>>("new 256x128 8x8 s3"));
  vs.push_back(make<PipelinedConfig<2, 2, 16, 3, true, 16>>("new 128x128 16x8 s3"));
  vs.push_back(make<PipelinedConfig<4, 2, 16, 3, true, 16>>("new 256x128 16x8 s3"));
  vs.push_back(make<PipelinedConfig<2, 2, 8, 4, true, 8>>("new 64x128 8x8 BK8 s4"));
#endif
  const int V = int(vs.size());
  for (int arg = 1; arg < argc; ++arg) {
    const int n = std::atoi(argv[arg]);
    const int M = n, N = n, K = n;
    std::vector<float> ha(std::size_t(M) * K), hb(std::size_t(K) * N);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : ha) x = u(rng);
    for (auto& x : hb) x = u(rng);
    float *a, *b;
    std::vector<float*> c(V);
    CK(cudaMalloc(&a, ha.size() * 4)); CK(cudaMalloc(&b, hb.size() * 4));
    for (auto& p : c) { CK(cudaMalloc(&p, std::size_t(M) * N * 4)); CK(cudaMemset(p, 0xff, std::size_t(M) * N * 4)); }
    CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    for (int v = 0; v < V; ++v) vs[v].run(M, N, K, a, b, c[v]);
    CK(cudaDeviceSynchronize());
    std::vector<float> ref(std::size_t(M) * N), out(ref.size());
    CK(cudaMemcpy(ref.data(), c[0], ref.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<double> err(V);
    for (int v = 1; v < V; ++v) {
      CK(cudaMemcpy(out.data(), c[v], out.size() * 4, cudaMemcpyDeviceToHost));
      double e2 = 0, r2 = 0;
      for (std::size_t i = 0; i < out.size(); ++i) {
        const double d = double(out[i]) - ref[i];
        e2 += std::isfinite(out[i]) ? d * d : 1e30;
        r2 += double(ref[i]) * ref[i];
      }
      err[v] = std::sqrt(e2 / r2);
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<std::vector<float>> ms(V);
    const int rounds = n >= 8192 ? 8 : 23;
    for (int round = 0; round < rounds; ++round)
      for (int v = 0; v < V; ++v) {
        CK(cudaEventRecord(e0));
        vs[v].run(M, N, K, a, b, c[v]);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (round >= 3) ms[v].push_back(t);
      }
    std::printf("%d^3\n", n);
    auto med = [](std::vector<float> x) { std::sort(x.begin(), x.end()); return x[x.size() / 2]; };
    const float base = med(ms[0]);
    for (int v = 0; v < V; ++v) {
      const float m = med(ms[v]);
      std::printf("  %-32s median %.4f ms  min %.4f  max %.4f  %5.1f TFLOPS  %5.1f%% of cuBLAS  err %.1e\n",
                  vs[v].name.c_str(), m, *std::min_element(ms[v].begin(), ms[v].end()),
                  *std::max_element(ms[v].begin(), ms[v].end()), 2.0 * M * N * K / (m * 1e9), 100.0 * base / m, err[v]);
    }
    cudaFree(a); cudaFree(b); for (auto& p : c) cudaFree(p);
  }
  cublasDestroy(h);
  return 0;
}
