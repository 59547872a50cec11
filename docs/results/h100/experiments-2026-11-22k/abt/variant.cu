// One variant of the FP32 pipelined kernel (pipelined_var.cuh with its V_ macros), in its
// own namespace (-DGLNS=...), exported as a plain launcher (-DLAUNCH=...): 128x256 tiles, 16x8 per
// thread, 3 stages, raster group 8, with the stream-K tail of step 8 whenever the last wave is partial,
// launched early (programmatic dependent launch) or not. Used by main.cu.
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
#ifndef V_GROUP
#define V_GROUP 8  // raster group of the tiles (round 5)
#endif
// workspace: (132 + tail tiles) x 128 KB; flags: 4096 zeroed unsigned.
extern "C" int LAUNCH(int M, int N, int K, const float* A, const float* B, float* C, float* workspace, unsigned* flags,
                      int early) {
  GLNS::fp32::PipelinedArgs p{};
  p.M = M, p.N = N, p.K = K, p.alpha = 1.0f, p.beta = 0.0f, p.A = A, p.B = B, p.C = C;
  p.k_per_split = (K + 15) / 16 * 16, p.partial = nullptr, p.group_m = V_GROUP, p.c_vec = true;
  const int tiles = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
  p.tail = GLNS::fp32::plan_stream_k_tail(tiles, 132, (K + 15) / 16, GLNS::TailMode::always);
  p.tail_partials = workspace, p.tail_arrivals = flags;
  GLNS::fp32::launch_pipelined<Cfg>(p, unsigned(tiles - p.tail.tiles), 1, early != 0, nullptr);
  return int(cudaGetLastError());
}
