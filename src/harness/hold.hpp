// Holding a stream while the timed runs are enqueued (the blocking kernel of nvbench).
//
// Each timed run sits between its own pair of CUDA events. Enqueued one by one on an idle GPU,
// a run of a few microseconds starts as soon as the host reaches it: its start event is recorded
// at once, its kernel waits for the host's launch work (argument checks, dispatch, descriptors),
// and the time between the events is the host's as much as the GPU's. For cuBLAS and gemmlab alike
// that host work measured 6 to 12 us a call on an H100 machine, as long as the kernels of the
// smaller shapes. So the runs are enqueued behind a kernel that spins until the host has enqueued
// them (or gives up after a timeout), and then reach the GPU back to back.
#pragma once

#include <cuda_runtime.h>

namespace gemmlab {

class StreamHold {
 public:
  StreamHold();  // pinned, mapped host memory for the flag; throws Error when CUDA refuses it
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  // Enqueues the spinning kernel on `stream`: work enqueued after it waits until release(), or
  // until `timeout_ms` has passed on the GPU's clock.
  void hold(cudaStream_t stream, double timeout_ms = 1000);
  void release();
  // After the stream has finished: whether any hold since the last call gave up waiting (the host
  // did not release it in time: it blocked in a launch, say, or waited for the stream itself).
  // Clears the record.
  bool gave_up();

 private:
  volatile int* host_ = nullptr;  // [0] the last hold released, [1] a hold gave up
  int* device_ = nullptr;         // the same two values as the GPU addresses them
  int generation_ = 0;            // holds enqueued so far
};

}  // namespace gemmlab
