// One kernel launch through cudaLaunchKernelEx: grid, block, dynamic shared memory, stream, and the
// two launch attributes the project's kernels use: clusters of CTAs along x (the Hopper kernels
// that share operand tiles between the CTAs of a pair) and early launch (programmatic dependent
// launch: the kernel's blocks are placed on the SMs the kernel ahead of it on the stream frees as
// it drains, and wait there in dev::start_in_stream_order until its writes are visible).
#pragma once

#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

namespace gemmlab {

// Not copyable: the configuration points into the object's own attributes.
class LaunchConfig {
 public:
  LaunchConfig(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, unsigned cluster = 1, bool early = false) {
    cfg_.gridDim = grid;
    cfg_.blockDim = block;
    cfg_.dynamicSmemBytes = smem;
    cfg_.stream = stream;
    cfg_.attrs = attrs_;
    if (cluster > 1) {
      cudaLaunchAttribute& a = attrs_[cfg_.numAttrs++];
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = cluster, a.val.clusterDim.y = 1, a.val.clusterDim.z = 1;
    }
    if (early) {
      cudaLaunchAttribute& a = attrs_[cfg_.numAttrs++];
      a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      a.val.programmaticStreamSerializationAllowed = 1;
    }
  }
  LaunchConfig(const LaunchConfig&) = delete;
  LaunchConfig& operator=(const LaunchConfig&) = delete;

  // The configuration, for the occupancy queries that take one (cudaOccupancyMaxActiveClusters).
  const cudaLaunchConfig_t& config() const { return cfg_; }

  template <class... Params, class... Args>
  cudaError_t operator()(void (*kernel)(Params...), Args&&... args) const {
    return cudaLaunchKernelEx(&cfg_, kernel, std::forward<Args>(args)...);
  }

 private:
  cudaLaunchConfig_t cfg_{};
  cudaLaunchAttribute attrs_[2]{};
};

}  // namespace gemmlab
