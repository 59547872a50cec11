// Evicting the operands of a timed run from L2 without leaving the L2 dirty.
//
// A cold run should move its own bytes and no others. Flushing by writing a buffer twice the size
// of L2 (cudaMemset, as nvbench and torch's benchmarks do) evicts the operands but leaves the L2
// full of written lines: the timed run that follows evicts them as it reads, and DRAM then carries
// their write-backs beside the run's own reads, up to the size of L2 more bytes. For a GEMM whose
// operands are a few times the size of L2 that is a large share of its traffic, and no kernel could
// reach the DRAM roof that counts A, B and D once. So the flush reads a buffer twice the size of L2
// instead: what was dirty (the previous run's D) is written back during the flush, outside the
// timed events, and the run starts with an L2 of clean lines that hold none of its operands.
// GEMMLAB_L2_FLUSH=write in the environment flushes by writing, as the lab did before, so that a
// run can be compared with results measured that way.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "core/buffer.hpp"

namespace gemmlab {

class L2Flush {
 public:
  enum class Mode { read, write };
  static Mode mode_from_environment();  // GEMMLAB_L2_FLUSH: read (default) or write
  static const char* name(Mode mode) { return mode == Mode::read ? "read" : "write"; }  // as the records write it

  L2Flush() = default;
  // Allocates the buffer (twice `l2_bytes`) and the sink, initialises them on `stream` (so that
  // the reads read written memory: compute-sanitizer's initcheck), and leaves the L2 clean.
  L2Flush(std::size_t l2_bytes, int sms, cudaStream_t stream, Mode mode = Mode::read);
  bool ready() const { return buffer_.get() != nullptr; }
  Mode mode() const { return mode_; }
  // Enqueues the read (or the write) over the whole buffer on `stream`.
  void enqueue(cudaStream_t stream);

 private:
  DeviceBuffer buffer_;
  DeviceBuffer sink_;  // written only if the reads add up to a key they never reach (keeps them)
  int blocks_ = 0;
  Mode mode_ = Mode::read;
  unsigned char written_ = 0;  // the write flush's byte, a new one each time
};

}  // namespace gemmlab
