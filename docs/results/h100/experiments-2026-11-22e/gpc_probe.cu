// Round 7 probe, part 2: which SMs share a GPC. The CTAs of one cluster always sit in one GPC, so
// a launch of clusters of 16 (non-portable size) groups the SM ids by GPC, one line per cluster.
// Build: nvcc -arch=sm_90a -o gpc_probe gpc_probe.cu
#include <cstdio>
#include <cuda_runtime.h>

__global__ void probe(unsigned* smid_of_block) {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  if (threadIdx.x == 0) smid_of_block[blockIdx.x] = s;
}

int main() {
  unsigned* d = nullptr;
  cudaMalloc(&d, 1024 * sizeof(unsigned));
  cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
  for (int size : {16, 8}) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = size, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cfg.blockDim = dim3(384);
    cfg.dynamicSmemBytes = 200 * 1024;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    cfg.gridDim = dim3(size);
    if (cudaOccupancyMaxActiveClusters(&clusters, probe, &cfg) != cudaSuccess) { printf("size %d: occupancy query failed\n", size); cudaGetLastError(); continue; }
    cfg.gridDim = dim3(clusters * size);
    printf("clusters of %d: %d resident at once\n", size, clusters);
    if (cudaLaunchKernelEx(&cfg, probe, d) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) { printf("launch failed\n"); cudaGetLastError(); continue; }
    unsigned h[1024];
    cudaMemcpy(h, d, clusters * size * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (int c = 0; c < clusters; ++c) {
      printf("  cluster %2d:", c);
      for (int i = 0; i < size; ++i) printf(" %3u", h[c * size + i]);
      printf("\n");
    }
  }
  // Clusters of 2 and 4 at one CTA per SM: how many fit (the 2 x 2 experiment's suspect).
  for (int size : {2, 4}) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = size, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cfg.blockDim = dim3(384);
    cfg.dynamicSmemBytes = 200 * 1024;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(size);
    int clusters = 0;
    cudaOccupancyMaxActiveClusters(&clusters, probe, &cfg);
    printf("clusters of %d: %d resident at once (%d SMs)\n", size, clusters, clusters * size);
  }
  return 0;
}
