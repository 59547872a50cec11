#include "analysis/device_occupancy.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

std::size_t reserved_smem_per_block(int device) {
  int bytes = 0;
  GEMMLAB_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrReservedSharedMemoryPerBlock, device));
  return std::size_t(bytes);
}

KernelOccupancy occupancy_on_device(const Kernel& k, const Shape& shape, const Params& params, const DeviceInfo& dev) {
  KernelOccupancy r;
  r.plan = k.plan(shape, params);
  if (!r.plan.function)
    throw Error(fmt::format("kernel {} is a library call: its launches are not visible to gemmlab's occupancy analysis",
                            k.info().id));
  GEMMLAB_CUDA(cudaSetDevice(dev.ordinal));
  const int threads = int(r.plan.block.x * r.plan.block.y * r.plan.block.z);
  cudaFuncAttributes attr{};
  GEMMLAB_CUDA(cudaFuncGetAttributes(&attr, r.plan.function));
  // Beyond the default 48 KB per block a kernel must opt in; its launch() does, so do it here too.
  if (attr.sharedSizeBytes + r.plan.dynamic_smem > dev.smem_per_block &&
      attr.sharedSizeBytes + r.plan.dynamic_smem <= dev.smem_per_block_optin &&
      int(r.plan.dynamic_smem) > attr.maxDynamicSharedSizeBytes) {
    GEMMLAB_CUDA(cudaFuncSetAttribute(r.plan.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(r.plan.dynamic_smem)));
    GEMMLAB_CUDA(cudaFuncGetAttributes(&attr, r.plan.function));
  }
  r.resources.threads_per_block = threads;
  r.resources.regs_per_thread = attr.numRegs;
  r.resources.static_smem = attr.sharedSizeBytes;
  r.resources.dynamic_smem = r.plan.dynamic_smem;
  r.resources.carveout_percent = attr.preferredShmemCarveout;
  r.local_bytes = attr.localSizeBytes;
  r.kernel_max_threads = attr.maxThreadsPerBlock;
  const char* name = nullptr;
  if (cudaFuncGetName(&name, r.plan.function) == cudaSuccess && name) r.function_name = name;
  else (void)cudaGetLastError();

  r.limits = limits_of(dev, reserved_smem_per_block(dev.ordinal));
  r.model = theoretical_occupancy(r.limits, r.resources);
  GEMMLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.driver_blocks, r.plan.function, threads,
                                                             r.plan.dynamic_smem));
  return r;
}

}  // namespace gemmlab
