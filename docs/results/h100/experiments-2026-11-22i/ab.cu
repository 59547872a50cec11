// A/B (round 2) of the FP32 pipelined kernel before and after the boundary prefetch (the barrier of tile t + 1
// before the last k of tile t, and tile t + 1's first fragments loaded during that k's FMAs): v1
// starts the copies right after that barrier, v2 after the last k's FMAs, both only where a next tile
// exists; src (src/kernels/fp32/pipelined.cuh) is v1 with the barrier after the last tile too (no branch).
// old_pipelined.cuh is pipelined.cuh of 817de2a in its own namespace. Variants alternate round by
// round with cuBLAS SGEMM (default math: strict FP32) in the same process; outputs are compared with
// the old kernel's (C is poisoned with NaN first) and with cuBLAS.
// Build: nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -I src -I <this dir> ab.cu -lcublas -o ab
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cublas_v2.h>

#include "kernels/fp32/pipelined.cuh"
#include "old_pipelined.cuh"
#include "v1_pipelined.cuh"
#include "v2_pipelined.cuh"

namespace gemmlab {
void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::fprintf(stderr, "%s:%d %s: %s\n", file, line, call, cudaGetErrorString(code));
  std::abort();
}
}  // namespace gemmlab

#define CK(x) do { auto e_ = (x); if (int(e_) != 0) { std::printf("%s failed: %d\n", #x, int(e_)); return 1; } } while (0)

using namespace gemmlab;
using Big = fp32::PipelinedConfig<2, 4, 16, 3, true, 16>;      // fp32.tuned at 4096 / 8192
using BigOld = fp32_old::PipelinedConfig<2, 4, 16, 3, true, 16>;
using BigV1 = fp32_v1::PipelinedConfig<2, 4, 16, 3, true, 16>;
using BigV2 = fp32_v2::PipelinedConfig<2, 4, 16, 3, true, 16>;
using Small = fp32::PipelinedConfig<2, 2, 16, 3, true, 8>;     // 64 x 128, 8 x 8
using SmallOld = fp32_old::PipelinedConfig<2, 2, 16, 3, true, 8>;
using SmallV1 = fp32_v1::PipelinedConfig<2, 2, 16, 3, true, 8>;

template <class Cfg, auto Kernel>
int smem_attr() { return int(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::kSmemBytes))); }

int main(int argc, char** argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK((smem_attr<Big, fp32::pipelined_gemm<Big>>()));
  CK((smem_attr<Big, fp32::pipelined_tail_gemm<Big>>()));
  CK((smem_attr<BigOld, fp32_old::pipelined_gemm<BigOld>>()));
  CK((smem_attr<BigOld, fp32_old::pipelined_tail_gemm<BigOld>>()));
  CK((smem_attr<BigV2, fp32_v2::pipelined_gemm<BigV2>>()));
  CK((smem_attr<BigV1, fp32_v1::pipelined_gemm<BigV1>>()));
  CK((smem_attr<SmallV1, fp32_v1::pipelined_gemm<SmallV1>>()));
  CK((smem_attr<Small, fp32::pipelined_gemm<Small>>()));
  CK((smem_attr<SmallOld, fp32_old::pipelined_gemm<SmallOld>>()));
  cublasHandle_t h;
  CK(cublasCreate(&h));
  for (int arg = 1; arg < argc; ++arg) {
    const int n = std::atoi(argv[arg]);
    const int M = n, N = n, K = n;
    std::vector<float> ha(std::size_t(M) * K), hb(std::size_t(K) * N);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : ha) x = u(rng);
    for (auto& x : hb) x = u(rng);
    constexpr int V = 10;
    float *a, *b, *c[V], *ws;
    unsigned* flags;
    const int tiles = ((M + 127) / 128) * ((N + 255) / 256), kt = (K + 15) / 16;
    const fp32::StreamKTail tail = fp32::plan_stream_k_tail(tiles, sms, kt, TailMode::when_faster);
    CK(cudaMalloc(&a, ha.size() * 4)); CK(cudaMalloc(&b, hb.size() * 4));
    for (auto& p : c) CK(cudaMalloc(&p, std::size_t(M) * N * 4));
    CK(cudaMalloc(&ws, std::size_t(std::max(1, tail.slots())) * 128 * 256 * 4));
    CK(cudaMalloc(&flags, 4096 * 4)); CK(cudaMemset(flags, 0, 4096 * 4));
    CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    for (auto& p : c) CK(cudaMemset(p, 0xff, std::size_t(M) * N * 4));  // NaN
    std::printf("%d^3: %d tiles of 128x256, tail %d tiles on %d blocks after %d whole\n", n, tiles, tail.tiles,
                tail.blocks, tail.whole);
    auto args_of = [&]<class Args>(Args p, float* C, bool with_tail) {
      p = Args{M, N, K, 1.0f, 0.0f, a, b, C, kt * 16, nullptr, 8, true, {}, nullptr, nullptr};
      if (with_tail) p.tail = tail, p.tail_partials = ws, p.tail_arrivals = flags;
      return p;
    };
    const auto p1 = args_of(fp32_old::PipelinedArgs{}, c[1], false), p5 = args_of(fp32_old::PipelinedArgs{}, c[5], true),
               p7 = args_of(fp32_old::PipelinedArgs{}, c[7], false);
    const auto p2 = args_of(fp32::PipelinedArgs{}, c[2], false), p6 = args_of(fp32::PipelinedArgs{}, c[6], true),
               p8 = args_of(fp32::PipelinedArgs{}, c[8], false);
    const auto p3 = args_of(fp32_v1::PipelinedArgs{}, c[3], false), p9 = args_of(fp32_v1::PipelinedArgs{}, c[9], false);
    const auto p4 = args_of(fp32_v2::PipelinedArgs{}, c[4], false);
    const int small_tiles = ((M + 63) / 64) * ((N + 127) / 128);
    const float one = 1.0f, zero = 0.0f;
    auto run = [&](int v) -> int {
      switch (v) {
        case 0: return int(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, c[0], N));
        case 1: fp32_old::pipelined_gemm<BigOld><<<tiles, 256, BigOld::kSmemBytes>>>(p1); break;
        case 2: fp32::pipelined_gemm<Big><<<tiles, 256, Big::kSmemBytes>>>(p2); break;
        case 3: fp32_v1::pipelined_gemm<BigV1><<<tiles, 256, BigV1::kSmemBytes>>>(p3); break;
        case 4: fp32_v2::pipelined_gemm<BigV2><<<tiles, 256, BigV2::kSmemBytes>>>(p4); break;
        case 5:
          fp32_old::pipelined_gemm<BigOld><<<tail.whole, 256, BigOld::kSmemBytes>>>(p5);
          if (tail.tiles) fp32_old::pipelined_tail_gemm<BigOld><<<tail.blocks, 256, BigOld::kSmemBytes>>>(p5);
          break;
        case 6:
          fp32::pipelined_gemm<Big><<<tail.whole, 256, Big::kSmemBytes>>>(p6);
          if (tail.tiles) fp32::pipelined_tail_gemm<Big><<<tail.blocks, 256, Big::kSmemBytes>>>(p6);
          break;
        case 7: fp32_old::pipelined_gemm<SmallOld><<<small_tiles, 128, SmallOld::kSmemBytes>>>(p7); break;
        case 8: fp32::pipelined_gemm<Small><<<small_tiles, 128, Small::kSmemBytes>>>(p8); break;
        case 9: fp32_v1::pipelined_gemm<SmallV1><<<small_tiles, 128, SmallV1::kSmemBytes>>>(p9); break;
      }
      return int(cudaGetLastError());
    };
    for (int v = 0; v < V; ++v) CK(run(v));
    CK(cudaDeviceSynchronize());
    std::vector<float> out[V];
    for (int v = 0; v < V; ++v) {
      out[v].resize(std::size_t(M) * N);
      CK(cudaMemcpy(out[v].data(), c[v], out[v].size() * 4, cudaMemcpyDeviceToHost));
    }
    const int ref_of[V] = {0, 0, 1, 1, 1, 1, 5, 1, 7, 7};  // bitwise reference for each variant (0: cuBLAS)
    for (int v = 1; v < V; ++v) {
      double worst = 0, scale = 0, err2 = 0, ref2 = 0;
      long nan = 0, differ = 0;
      const auto& r = out[ref_of[v]];
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (!std::isfinite(out[v][i])) { ++nan; continue; }
        worst = std::max(worst, double(std::fabs(out[v][i] - r[i])));
        scale = std::max(scale, double(std::fabs(r[i])));
        differ += out[v][i] != r[i];
        const double d = double(out[v][i]) - out[0][i];
        err2 += d * d, ref2 += double(out[0][i]) * out[0][i];
      }
      std::printf("  variant %d vs %d: %ld non-finite, %ld differ, max |diff| %.3g (max |C| %.3g); rel. Frobenius vs cuBLAS %.2e\n",
                  v, ref_of[v], nan, differ, worst, scale, std::sqrt(err2 / ref2));
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> ms[V];
    const int rounds = n >= 8192 ? 13 : 33;
    for (int round = 0; round < rounds; ++round)
      for (int v = 0; v < V; ++v) {
        CK(cudaEventRecord(e0));
        CK(run(v));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (round >= 3) ms[v].push_back(t);
      }
    const char* names[V] = {"cuBLAS SGEMM",
                            "old 128x256 whole tiles",
                            "src 128x256 whole tiles",
                            "v1 128x256 whole tiles",
                            "v2 128x256 whole tiles",
                            "old 128x256 + stream-K tail",
                            "src 128x256 + stream-K tail",
                            "old 64x128 8x8",
                            "src 64x128 8x8",
                            "v1 64x128 8x8"};
    const float base = [&] { auto x = ms[0]; std::sort(x.begin(), x.end()); return x[x.size() / 2]; }();
    for (int v = 0; v < V; ++v) {
      std::sort(ms[v].begin(), ms[v].end());
      const float med = ms[v][ms[v].size() / 2];
      std::printf("  %-30s median %.4f ms  min %.4f  max %.4f  %.1f TFLOPS  %.1f%% of cuBLAS\n", names[v], med,
                  ms[v].front(), ms[v].back(), 2.0 * M * N * K / (med * 1e9), 100.0 * base / med);
    }
    cudaFree(a); cudaFree(b); for (auto& p : c) cudaFree(p); cudaFree(ws); cudaFree(flags);
  }
  cublasDestroy(h);
  return 0;
}
