// Occupancy on the GPU gemmlab runs on: the kernel's real resources (cudaFuncGetAttributes),
// the model of occupancy.hpp applied to them with the device's limits, and the driver's own
// answer (cudaOccupancyMaxActiveBlocksPerMultiprocessor) beside it. The two must agree; a GPU
// test checks it for every registered kernel and parameter combination.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/gpu_specs.hpp"
#include "analysis/occupancy.hpp"
#include "kernels/kernel.hpp"

namespace gemmlab {

struct KernelOccupancy {
  LaunchPlan plan;
  KernelResources resources;  // from cudaFuncGetAttributes and the plan
  std::size_t local_bytes = 0;  // per thread; > 0 means register spills or local arrays
  int kernel_max_threads = 0;   // the most threads per block this kernel can be launched with
  std::string function_name;    // the kernel's (mangled) name, from the driver
  ArchLimits limits;            // the device's
  Occupancy model;
  int driver_blocks = 0;        // cudaOccupancyMaxActiveBlocksPerMultiprocessor
};

// Throws Error when the kernel is a library call (no __global__ function in its plan) or a CUDA
// call fails. A kernel that needs more than 48 KB of shared memory per block is opted in first
// (cudaFuncSetAttribute MaxDynamicSharedMemorySize), as its own launch does.
KernelOccupancy occupancy_on_device(const Kernel& k, const Shape& shape, const Params& params, const DeviceInfo& dev);

// The shared memory the driver reserves per block on this device (1 KB from CC 8.0 on).
std::size_t reserved_smem_per_block(int device);

}  // namespace gemmlab
