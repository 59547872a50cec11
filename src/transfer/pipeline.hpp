// The whole multiplication as a program sees it (seed 001): allocate A, B, C on the host and the
// device, copy A and B over, run the kernel, copy C back, synchronise, free everything; every
// phase timed, many times, in each host-memory mode, and the final C checked against float64.
//
// A TransferBench holds one problem size: its inputs on the host (a master copy that refills the
// freshly allocated A and B of every run, untimed), their float64 reference on the device and a
// device buffer to check C with. Any number of kernels and modes are measured against it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "harness/lab.hpp"
#include "kernels/kernel.hpp"
#include "reference/device_reference.hpp"
#include "reference/verify.hpp"
#include "transfer/host_memory.hpp"
#include "transfer/panels.hpp"
#include "transfer/phases.hpp"

namespace gemmlab::transfer {

struct PipelinePlan {
  int warmup = 3;            // untimed runs first (the seed ran its program three times); fewer when
                             // they alone take longer than max_seconds
  int runs = 1000;           // timed runs wanted (the seed's count) ...
  double max_seconds = 10;   // ... but only as many as fit in this many seconds of runs
  int min_runs = 3;          // ... and never fewer than this (or `runs`, if smaller)
  int streams = 2;           // overlapped: compute streams (tile kernels + C downloads), plus one upload stream
  int panels = 0;            // overlapped: panels per dimension; 0: auto_panels(shape)
};

// Throws Error when the plan's numbers make no sense (runs < 1, streams < 1, ...).
void validate_plan(const PipelinePlan& p);

struct ModeResult {
  HostMode mode = HostMode::pageable;
  std::string kernel;
  Params params;
  Shape shape;
  Precision precision = Precision::fp32;
  bool skipped = false;
  std::string skip_reason;   // why the size or mode could not run (memory); the rest is empty then
  int warmup = 0;            // warm-up runs done
  int requested_runs = 0;
  double max_seconds = 0;
  int min_runs = 0;
  PhaseTable table;
  std::vector<RunTimes> samples;
  // Checked runs are untimed: the first warm-up (or an extra run when there is none) and one
  // extra run after the timed runs. C is poisoned with NaN on both sides before a checked run.
  Verification first, last;
  int streams = 0;           // overlapped only
  int row_panels = 0, col_panels = 0;
  bool passed() const { return skipped || (first.checked && first.passed && last.checked && last.passed); }
  bool capped() const { return table.runs < requested_runs; }
};

// Memory one measurement needs, for the checks made before anything is allocated.
std::size_t host_bytes_needed(const Shape& s);     // master A and B, plus A, B and C of a run
std::size_t device_bytes_needed(const Shape& s);   // the peak: reference, check buffer, A, B and C of a run
// Why a size must be skipped (host: MemAvailable, device: cudaMemGetInfo's free bytes); nullopt: it fits.
std::optional<std::string> size_skip_reason(const Shape& s, std::optional<std::size_t> host_available,
                                            std::size_t device_free);

// Can `k` with `p` run this whole pipeline (FP32 operands and C, the shape, and in the overlapped
// mode every tile shape)? Throws Error with the reason.
void check_kernel_for_mode(const Kernel& k, const Params& p, const Shape& s, HostMode mode, const PipelinePlan& plan,
                           const DeviceInfo& dev);

class TransferBench {
 public:
  // Throws ResourceShortage when the size does not fit in host or device memory.
  TransferBench(Lab& lab, const Shape& shape, std::uint64_t seed = 1);
  const Shape& shape() const { return shape_; }

  // Measures one kernel in one mode. Throws Error for a kernel that cannot run; a shortage of
  // memory comes back as a skipped result.
  ModeResult measure(const Kernel& k, const Params& params, HostMode mode, const PipelinePlan& plan);

 private:
  Lab& lab_;
  Shape shape_;
  std::vector<float> master_a_, master_b_;  // the inputs, refilled into every run's host A and B
  DeviceReference ref_;
  DeviceBuffer check_;  // C uploaded from the host for comparison with the reference
};

}  // namespace gemmlab::transfer
