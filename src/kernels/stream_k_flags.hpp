// What the stream-K tails of both kernel families share: when a tail is used (their `stream_k`
// parameter), and the zeroed per-stream counters their blocks signal each other with.
// The schedules themselves differ with the grids: src/kernels/tensor/stream_k.hpp (persistent
// clusters, owners wait for helpers) and src/kernels/fp32/stream_k_tail.hpp (one block per tile or
// range, the last piece to arrive finishes its tile).
#pragma once

#include <cuda_runtime.h>

#if defined(__CUDACC__)
#define GEMMLAB_HD __host__ __device__
#else
#define GEMMLAB_HD
#endif

namespace gemmlab {

// When a stream-K tail is used (the kernels' `stream_k` parameter takes these values).
enum class TailMode { off = 0, when_faster = 1, always = 2 };

// Flags or counters the kernels raise and clear: zeroed device memory that belongs to the calling
// device and stream, so that launches on other streams cannot interfere. Every launch leaves them
// zero again. Room for `kStreamKFlags` of them.
inline constexpr int kStreamKFlags = 4096;
unsigned* stream_k_flags(cudaStream_t stream);

}  // namespace gemmlab
