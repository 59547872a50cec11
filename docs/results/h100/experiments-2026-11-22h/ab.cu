// A/B of the FP32 pipelined kernel before and after the stream-K tail (128 x 256 tiles, 16 x 8
// thread tiles, 3 stages, raster group 8, 16-byte B copies): the kernel of HEAD before the change
// (old_pipelined.cuh, a copy in its own namespace), the new whole-tile kernel alone, and the new
// whole-tile kernel followed by the tail kernel, launched plainly and as a programmatic dependent
// launch (measured while pipelined_gemm began with cudaTriggerProgrammaticLaunchCompletion(), which
// was removed after: no gain), the tail kernel alone, and the tail kernel doing every tile whole. Timed with CUDA events, the variants alternating
// round by round; outputs compared with the old kernel's (and checked for NaN: C is poisoned).
// Build: nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -I src -I <this dir> ab.cu -o ab
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels/fp32/pipelined.cuh"
#include "old_pipelined.cuh"

namespace gemmlab {
void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::fprintf(stderr, "%s:%d %s: %s\n", file, line, call, cudaGetErrorString(code));
  std::abort();
}
}  // namespace gemmlab

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

using namespace gemmlab;
using NewCfg = fp32::PipelinedConfig<2, 4, 16, 3, true, 16>;
using OldCfg = fp32_old::PipelinedConfig<2, 4, 16, 3, true, 16>;

int main(int argc, char** argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaFuncSetAttribute(fp32::pipelined_gemm<NewCfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(NewCfg::kSmemBytes)));
  CK(cudaFuncSetAttribute(fp32::pipelined_tail_gemm<NewCfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(NewCfg::kSmemBytes)));
  CK(cudaFuncSetAttribute(fp32_old::pipelined_gemm<OldCfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(OldCfg::kSmemBytes)));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fp32::pipelined_gemm<NewCfg>, NewCfg::kThreads, NewCfg::kSmemBytes));
  for (int arg = 1; arg < argc; ++arg) {
    const int n = std::atoi(argv[arg]);
    const int M = n, N = n, K = n;
    std::vector<float> ha(std::size_t(M) * K), hb(std::size_t(K) * N);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : ha) x = u(rng);
    for (auto& x : hb) x = u(rng);
    float *a, *b, *c[6], *ws;
    unsigned* flags;
    const int tiles = ((M + 127) / 128) * ((N + 255) / 256), kt = (K + 15) / 16;
    const fp32::StreamKTail tail = fp32::plan_stream_k_tail(tiles, per_sm * sms, kt, TailMode::when_faster);
    CK(cudaMalloc(&a, ha.size() * 4)); CK(cudaMalloc(&b, hb.size() * 4));
    for (auto& p : c) CK(cudaMalloc(&p, std::size_t(M) * N * 4));
    CK(cudaMalloc(&ws, std::size_t(std::max(1, tail.slots())) * 128 * 256 * 4));
    CK(cudaMalloc(&flags, 4096 * 4)); CK(cudaMemset(flags, 0, 4096 * 4));
    CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    for (auto& p : c) CK(cudaMemset(p, 0xff, std::size_t(M) * N * 4));  // NaN
    std::printf("%d^3: %d tiles, %d resident, tail %d tiles on %d blocks after %d whole\n", n, tiles, per_sm * sms,
                tail.tiles, tail.blocks, tail.whole);
    fp32_old::PipelinedArgs old_args{M, N, K, 1.0f, 0.0f, a, b, c[0], kt * 16, nullptr, 8, true};
    fp32::PipelinedArgs new_args{M, N, K, 1.0f, 0.0f, a, b, c[1], kt * 16, nullptr, 8, true, {}, nullptr, nullptr};
    fp32::PipelinedArgs tail_args = new_args;
    tail_args.C = c[2];
    tail_args.tail = tail;
    tail_args.tail_partials = ws;
    tail_args.tail_arrivals = flags;
    fp32::PipelinedArgs all_args = new_args;
    all_args.C = c[5];
    all_args.tail = fp32::StreamKTail{0, tiles, kt, tiles};
    all_args.tail_partials = ws;
    all_args.tail_arrivals = flags;
    auto run = [&](int v) {
      if (v == 0) fp32_old::pipelined_gemm<OldCfg><<<tiles, OldCfg::kThreads, OldCfg::kSmemBytes>>>(old_args);
      if (v == 1) fp32::pipelined_gemm<NewCfg><<<tiles, NewCfg::kThreads, NewCfg::kSmemBytes>>>(new_args);
      if (v >= 2) fp32::pipelined_gemm<NewCfg><<<tail.whole, NewCfg::kThreads, NewCfg::kSmemBytes>>>(tail_args);
      if (v == 2) fp32::pipelined_tail_gemm<NewCfg><<<tail.blocks, NewCfg::kThreads, NewCfg::kSmemBytes>>>(tail_args);
      if (v == 3) {  // programmatic dependent launch: the tail may start before the whole tiles end
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(tail.blocks);
        cfg.blockDim = dim3(NewCfg::kThreads);
        cfg.dynamicSmemBytes = NewCfg::kSmemBytes;
        cudaLaunchAttribute attr{};
        attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr.val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        if (cudaLaunchKernelEx(&cfg, fp32::pipelined_tail_gemm<NewCfg>, tail_args) != cudaSuccess) std::abort();
      }
      // The tail kernel alone (timing only: the whole tiles stay unwritten).
      if (v == 4) fp32::pipelined_tail_gemm<NewCfg><<<tail.blocks, NewCfg::kThreads, NewCfg::kSmemBytes>>>(tail_args);
      // The tail kernel doing every tile whole, one block each: its main loop against variant 1's.
      if (v == 5) fp32::pipelined_tail_gemm<NewCfg><<<tiles, NewCfg::kThreads, NewCfg::kSmemBytes>>>(all_args);
    };
    for (int v = 0; v < 6; ++v) { if (v == 3) tail_args.C = c[3]; if (v == 4) tail_args.C = c[4]; run(v); }
    CK(cudaDeviceSynchronize());
    std::vector<float> out[6];
    for (int v = 0; v < 6; ++v) {
      out[v].resize(std::size_t(M) * N);
      CK(cudaMemcpy(out[v].data(), c[v], out[v].size() * 4, cudaMemcpyDeviceToHost));
    }
    for (int v = 1; v < 6; ++v) {
      if (v == 4) continue;
      double worst = 0, scale = 0;
      long nan = 0, differ = 0;
      for (std::size_t i = 0; i < out[0].size(); ++i) {
        if (!std::isfinite(out[v][i])) { ++nan; continue; }
        worst = std::max(worst, double(std::fabs(out[v][i] - out[0][i])));
        scale = std::max(scale, double(std::fabs(out[0][i])));
        differ += out[v][i] != out[0][i];
      }
      std::printf("  variant %d vs old: %ld non-finite, %ld elements differ, max |diff| %.3g (max |C| %.3g)\n", v, nan,
                  differ, worst, scale);
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> ms[6];
    for (int round = 0; round < 23; ++round)
      for (int v = 0; v < 6; ++v) {
        CK(cudaEventRecord(e0));
        run(v);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (round >= 3) ms[v].push_back(t);
      }
    const char* names[6] = {"old kernel (HEAD)", "new whole-tile kernel", "new whole + stream-K tail",
                            "the same, tail launched by PDL", "tail kernel alone", "tail kernel, every tile whole"};
    for (int v = 0; v < 6; ++v) {
      std::sort(ms[v].begin(), ms[v].end());
      std::printf("  %-30s median %.4f ms  min %.4f  max %.4f  %.1f TFLOPS\n", names[v], ms[v][ms[v].size() / 2],
                  ms[v].front(), ms[v].back(), 2.0 * M * N * K / (ms[v][ms[v].size() / 2] * 1e9));
    }
    cudaFree(a); cudaFree(b); for (auto& p : c) cudaFree(p); cudaFree(ws); cudaFree(flags);
  }
  return 0;
}
