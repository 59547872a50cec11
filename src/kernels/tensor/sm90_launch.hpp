// Host side of the persistent sm_90a kernels' launches (hopper.sm90a.cu, hopper_tf32.sm90a.cu): a
// launch configuration with clusters, and how many clusters fit on the GPU at once.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace gemmlab::tc {

// cudaLaunchKernelEx's configuration, with a cluster of `cluster` CTAs along x when cluster > 1.
// Not copyable: cfg points at attr.
struct ClusterLaunch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1]{};

  ClusterLaunch(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, int cluster) {
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    if (cluster > 1) {
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = unsigned(cluster);
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
      cfg.attrs = attr;
      cfg.numAttrs = 1;
    }
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// How many clusters of `cluster` CTAs of `kernel` (one CTA per SM: its shared memory, already
// opted into with cudaFuncSetAttribute) can be resident at once on a GPU with `sms` SMs. A
// persistent grid must not be larger: clusters that do not fit wait for a whole wave to finish and
// double the run time. Two CTAs of a cluster must sit in one GPC, and the H100's GPCs do not all
// hold an even number of SMs, so this is fewer than sms / 2. If the query fails: sms / cluster.
inline int resident_clusters(const void* kernel, unsigned threads, std::size_t smem, int cluster, int sms) {
  if (cluster == 1) return sms;
  const ClusterLaunch launch(dim3(unsigned(sms / cluster * cluster)), dim3(threads), smem, nullptr, cluster);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.cfg) != cudaSuccess || clusters <= 0) {
    (void)cudaGetLastError();
    return sms / cluster;
  }
  return clusters;
}

}  // namespace gemmlab::tc
