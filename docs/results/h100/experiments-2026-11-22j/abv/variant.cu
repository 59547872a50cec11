// One variant of the FP32 pipelined kernel (pipelined_var.cuh with -DV_... flags), compiled in its own
// namespace (-DGLNS=...) and exported as a plain launcher (-DLAUNCH=...): whole 128x256 tiles, 16x8 per
// thread, 3 stages, no stream-K tail. Used by main.cu.
#include <cstdio>
#include <cstdlib>
#define gemmlab GLNS
#include "pipelined_var.cuh"
namespace GLNS {
void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::fprintf(stderr, "%s:%d %s: %s\n", file, line, call, cudaGetErrorString(code));
  std::abort();
}
}  // namespace GLNS
using Cfg = GLNS::fp32::PipelinedConfig<2, 4, 16, 3, true, 16>;
extern "C" int LAUNCH(int M, int N, int K, const float* A, const float* B, float* C) {
  static const int attr = int(cudaFuncSetAttribute(GLNS::fp32::pipelined_gemm<Cfg>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::kSmemBytes)));
  if (attr) return attr;
  GLNS::fp32::PipelinedArgs p{};
  p.M = M, p.N = N, p.K = K, p.alpha = 1.0f, p.beta = 0.0f, p.A = A, p.B = B, p.C = C;
  p.k_per_split = (K + 15) / 16 * 16, p.partial = nullptr, p.group_m = 8, p.c_vec = true;
  const unsigned tiles = unsigned((M + Cfg::BM - 1) / Cfg::BM) * unsigned((N + Cfg::BN - 1) / Cfg::BN);
  GLNS::fp32::pipelined_gemm<Cfg><<<tiles, Cfg::kThreads, Cfg::kSmemBytes>>>(p);
  return int(cudaGetLastError());
}
