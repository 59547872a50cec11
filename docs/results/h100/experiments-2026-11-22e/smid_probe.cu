// Round 7 probe: which SM each CTA of a persistent, cluster-of-2 launch lands on (the launch shape
// of tc.tma_epilogue: 132 CTAs of 384 threads, ~200 KB of shared memory, one CTA per SM).
// Prints blockIdx.x -> %smid, so that one can see whether consecutive clusters share a TPC/GPC.
// Build: nvcc -arch=sm_90a -o smid_probe smid_probe.cu
#include <cstdio>
#include <cuda_runtime.h>

__global__ void __cluster_dims__(2, 1, 1) probe(unsigned* smid_of_block) {
  extern __shared__ unsigned char smem[];
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  if (threadIdx.x == 0) {
    smem[0] = 1;
    smid_of_block[blockIdx.x] = s;
  }
}

int main() {
  const int grid = 132, smem = 200 * 1024;
  unsigned* d = nullptr;
  cudaMalloc(&d, grid * sizeof(unsigned));
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  for (int rep = 0; rep < 3; ++rep) {
    probe<<<grid, 384, smem>>>(d);
    if (cudaDeviceSynchronize() != cudaSuccess) { printf("launch failed\n"); return 1; }
    unsigned h[grid];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("launch %d: blockIdx.x -> smid\n", rep);
    for (int b = 0; b < grid; ++b) printf("%3u%s", h[b], b % 22 == 21 ? "\n" : " ");
  }
  return 0;
}
