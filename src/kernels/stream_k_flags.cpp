#include "kernels/stream_k_flags.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "core/error.hpp"

namespace gemmlab {

unsigned* stream_k_flags(cudaStream_t stream) {
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, unsigned*> buffers;  // for the process's lifetime
  int device = 0;
  GEMMLAB_CUDA(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mu);
  unsigned*& flags = buffers[{device, stream}];
  if (!flags) {
    GEMMLAB_CUDA(cudaMalloc(&flags, kStreamKFlags * sizeof(unsigned)));
    GEMMLAB_CUDA(cudaMemsetAsync(flags, 0, kStreamKFlags * sizeof(unsigned), stream));
  }
  return flags;
}

}  // namespace gemmlab
