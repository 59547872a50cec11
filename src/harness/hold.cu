#include "harness/hold.hpp"

#include "core/error.hpp"

namespace gemmlab {

namespace {

// One thread polls the flag in host memory; the globaltimer (nanoseconds) bounds the wait, so that
// a host that never releases it (a launch queue that filled up, a run that waits for its own
// stream) costs the timeout, not a hang.
// Holds are numbered: hold g waits until the host has released g (or a later one), so that a hold
// the GPU reaches only after the host has moved on to the next is not kept waiting.
__global__ void spin_until_released(const volatile int* released, int generation, int* gave_up,
                                    unsigned long long timeout_ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*released < generation) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *reinterpret_cast<volatile int*>(gave_up) = 1;
      return;
    }
  }
}

}  // namespace

StreamHold::StreamHold() {
  void* p = nullptr;
  GEMMLAB_CUDA(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped));
  host_ = static_cast<volatile int*>(p);
  host_[0] = 0;  // one store each: C++20 deprecates using a volatile assignment's value
  host_[1] = 0;
  void* d = nullptr;
  if (cudaHostGetDevicePointer(&d, p, 0) != cudaSuccess) {
    cudaFreeHost(p);
    throw Error("StreamHold: the GPU cannot address mapped host memory");
  }
  device_ = static_cast<int*>(d);
}

StreamHold::~StreamHold() {
  if (host_) cudaFreeHost(const_cast<int*>(host_));
}

void StreamHold::hold(cudaStream_t stream, double timeout_ms) {
  ++generation_;
  spin_until_released<<<1, 1, 0, stream>>>(device_, generation_, device_ + 1,
                                           static_cast<unsigned long long>(timeout_ms * 1e6));
  GEMMLAB_CUDA(cudaGetLastError());
}

void StreamHold::release() { host_[0] = generation_; }

bool StreamHold::gave_up() {
  const bool g = host_[1] != 0;
  host_[1] = 0;
  return g;
}

}  // namespace gemmlab
