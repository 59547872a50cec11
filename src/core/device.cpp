#include "core/device.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

int fp32_lanes_per_sm(int major, int minor) {
  switch (major) {
    case 1: return 8;
    case 2: return minor == 0 ? 32 : 48;
    case 3: return 192;
    case 5: return 128;
    case 6: return minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    case 9: return 128;
    default: return 128;
  }
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

void require_gpu() {
  int n = 0;
  const cudaError_t st = cudaGetDeviceCount(&n);
  if (st != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    throw Error(fmt::format(
        "no CUDA GPU is available ({}): this command needs an NVIDIA GPU and its driver",
        st == cudaSuccess ? "no device found" : cudaGetErrorString(st)));
  }
}

DeviceInfo query_device(int ordinal) {
  require_gpu();
  cudaDeviceProp p{};
  GEMMLAB_CUDA(cudaGetDeviceProperties(&p, ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.fp32_lanes_per_sm = fp32_lanes_per_sm(p.major, p.minor);
  GEMMLAB_CUDA(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, ordinal));
  GEMMLAB_CUDA(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  d.memory_bus_bits = p.memoryBusWidth;
  d.global_mem_bytes = p.totalGlobalMem;
  d.l2_bytes = p.l2CacheSize;
  d.smem_per_block = p.sharedMemPerBlock;
  d.smem_per_block_optin = p.sharedMemPerBlockOptin;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.warp_size = p.warpSize;
  for (int i = 0; i < 3; ++i) {
    d.max_block_dim[i] = p.maxThreadsDim[i];
    d.max_grid_dim[i] = p.maxGridSize[i];
  }
  d.ecc = p.ECCEnabled != 0;
  return d;
}

SoftwareVersions software_versions() {
  SoftwareVersions v;
  auto fmt_cuda = [](int x) { return fmt::format("{}.{}", x / 1000, (x % 1000) / 10); };
  int drv = 0, rt = 0;
  if (cudaDriverGetVersion(&drv) == cudaSuccess) v.driver = fmt_cuda(drv);
  if (cudaRuntimeGetVersion(&rt) == cudaSuccess) v.runtime = fmt_cuda(rt);
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
    v.cublas = fmt::format("{}.{}.{}", major, minor, patch);
  return v;
}

}  // namespace gemmlab
