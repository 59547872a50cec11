// The late writer of late_writer.hpp.
#include "api/late_writer.hpp"

#include <cstdint>

#include "core/error.hpp"

namespace gemmlab::apitest {

namespace {

__global__ void late_copy(unsigned char* dst, const unsigned char* src, std::size_t bytes, std::uint64_t delay_ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  std::uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < delay_ns);
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < bytes; i += std::size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

}  // namespace

void launch_late_copy(void* dst, const void* src, std::size_t bytes, double delay_us, cudaStream_t stream) {
  // A few blocks: most SMs stay free for the kernel behind it.
  late_copy<<<4, 256, 0, stream>>>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), bytes,
                                   std::uint64_t(delay_us * 1000.0));
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace gemmlab::apitest
