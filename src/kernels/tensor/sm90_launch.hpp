// Host side of the persistent sm_90a kernels' launches (hopper.sm90a.cu, the library's sm90 and
// tf32 families): how many clusters fit on the GPU at once.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/launch_config.hpp"

namespace gemmlab::tc {

// How many clusters of `cluster` CTAs of `kernel` (one CTA per SM: its shared memory, already
// opted into with cudaFuncSetAttribute) can be resident at once on a GPU with `sms` SMs. A
// persistent grid must not be larger: clusters that do not fit wait for a whole wave to finish and
// double the run time. Two CTAs of a cluster must sit in one GPC, and the H100's GPCs do not all
// hold an even number of SMs, so this is fewer than sms / 2. If the query fails: sms / cluster.
inline int resident_clusters(const void* kernel, unsigned threads, std::size_t smem, int cluster, int sms) {
  if (cluster == 1) return sms;
  const LaunchConfig launch(dim3(unsigned(sms / cluster * cluster)), dim3(threads), smem, nullptr, unsigned(cluster));
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config()) != cudaSuccess || clusters <= 0) {
    (void)cudaGetLastError();
    return sms / cluster;
  }
  return clusters;
}

}  // namespace gemmlab::tc
