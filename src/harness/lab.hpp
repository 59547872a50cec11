// A Lab is one measurement session on one GPU: the stream, the cuBLAS handle, the buffer that
// flushes L2 between timed runs, the hold timed runs are enqueued behind, and the description of
// the device. Every command that touches
// the GPU opens one Lab and runs everything through it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>

#include "core/buffer.hpp"
#include "core/device.hpp"
#include "harness/hold.hpp"
#include "harness/l2_flush.hpp"
#include "kernels/kernel.hpp"

namespace gemmlab {

class Lab {
 public:
  explicit Lab(int device = 0);  // throws Error when no GPU is usable
  ~Lab();
  Lab(const Lab&) = delete;
  Lab& operator=(const Lab&) = delete;

  const DeviceInfo& device() const { return device_; }
  // The library's context on this device: `auto` and the production kernels run through it.
  const Context& library() const { return *library_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }
  ExecContext context(void* workspace = nullptr, std::size_t workspace_bytes = 0) const;

  // Enqueue a read over a buffer twice the size of L2, evicting A, B and C from it and leaving no
  // dirty line behind (harness/l2_flush.hpp).
  void flush_l2();
  // The hold the timed runs are enqueued behind (harness/hold.hpp), made on first use; null where
  // holds are off: under a tool that serialises launches (ncu, compute-sanitizer: a launch returns
  // only when its kernel has run, so the hold could never be released in time), with
  // CUDA_LAUNCH_BLOCKING=1, or after a hold of this Lab gave up once.
  StreamHold* hold();
  void holds_failed() { holds_off_ = true; }
  std::size_t free_memory() const;  // bytes free on the device now

 private:
  DeviceInfo device_;
  std::unique_ptr<Context> library_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  L2Flush flush_;
  std::unique_ptr<StreamHold> hold_;
  bool holds_off_ = false;
};

}  // namespace gemmlab
