#include "harness/l2_flush.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"

namespace gemmlab {

namespace {

constexpr int kThreads = 512;

// Reads every 16 bytes of the buffer once, through L2 only (ld.global.cg). Every byte of the buffer
// is the same, so each 16 bytes XOR to 0, the sum is 0, and the sink is never written; the
// compiler cannot know that, so the loads stay.
__global__ void read_through_l2(const uint4* p, std::size_t n, unsigned key, unsigned* sink) {
  unsigned acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 v = __ldcg(p + i);
    acc += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == key) *sink = acc;
}

}  // namespace

L2Flush::Mode L2Flush::mode_from_environment() {
  const char* v = std::getenv("GEMMLAB_L2_FLUSH");
  if (!v || !*v || std::string_view(v) == "read") return Mode::read;
  if (std::string_view(v) == "write") return Mode::write;
  throw Error(std::string("GEMMLAB_L2_FLUSH must be read or write, not '") + v + "'");
}

L2Flush::L2Flush(std::size_t l2_bytes, int sms, cudaStream_t stream, Mode mode)
    : buffer_((std::max<std::size_t>(l2_bytes, std::size_t(1) << 20) * 2 + 15) / 16 * 16),
      sink_(sizeof(unsigned)),
      blocks_(std::max(sms, 1) * 4),
      mode_(mode) {
  GEMMLAB_CUDA(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
  GEMMLAB_CUDA(cudaMemsetAsync(sink_.get(), 0, sink_.bytes(), stream));
  // The memset leaves the buffer's last lines dirty in L2, and a read that finds them there keeps
  // them dirty: the first read evicts them (the buffer is twice L2), the second finds none.
  if (mode_ == Mode::read) {
    enqueue(stream);
    enqueue(stream);
  }
}

void L2Flush::enqueue(cudaStream_t stream) {
  if (mode_ == Mode::write) {
    GEMMLAB_CUDA(cudaMemsetAsync(buffer_.get(), ++written_, buffer_.bytes(), stream));
    return;
  }
  read_through_l2<<<blocks_, kThreads, 0, stream>>>(buffer_.as<const uint4>(), buffer_.bytes() / 16, 1u,
                                                    sink_.as<unsigned>());
  GEMMLAB_CUDA(cudaGetLastError());
}

}  // namespace gemmlab
