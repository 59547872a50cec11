// Timing on the GPU: every run between its own pair of CUDA events, after warm-up; the timed runs
// enqueued behind a hold (harness/hold.hpp), so that they reach the GPU back to back and their
// events measure the GPU rather than the host's launch work.
#pragma once

#include <functional>
#include <vector>

#include "core/stats.hpp"
#include "harness/lab.hpp"

namespace gemmlab {

struct TimingPlan {
  int warmup = 3;           // untimed runs first (module load, clocks, caches)
  int iters = 100;          // timed runs wanted
  double max_seconds = 5;   // ... but no more timed time than this: fewer runs (at least 3) for slow kernels
  bool flush_l2 = false;    // cold L2: flush before every timed run (outside the events)
  // Time a kernel and its cuBLAS baseline alternately, run by run, instead of one after the other,
  // so that both medians come from the same stretch of clocks, power and temperature.
  bool interleave = false;
  // Enqueue the timed runs behind a hold, in chunks of kHoldChunk runs. Where a hold gives up (a
  // run that waits for the stream, a launch queue that fills), the runs are timed again without,
  // and the Lab holds no more (Lab::hold says where else it does not).
  bool hold = true;
};

// Enqueueing a chunk takes the host well under a millisecond a run; a hold still waiting after
// kHoldTimeoutMs has been forgotten.
inline constexpr int kHoldChunk = 32;
inline constexpr double kHoldTimeoutMs = 100;

struct Timing {
  Stats ms;                  // per-run times in milliseconds
  std::vector<double> samples;
  int iters = 0;             // runs actually timed
  bool capped = false;       // fewer than asked, because of max_seconds
  bool held = false;         // the runs were enqueued behind a hold (TimingPlan::hold)
};

// `prepare` runs before every run outside the events (e.g. restoring C when beta != 0).
Timing time_runs(Lab& lab, const TimingPlan& plan, const std::function<void()>& run,
                 const std::function<void()>& prepare = {});

// One run between two events, synchronised: its time in ms (a quick estimate, not a measurement).
double time_once(Lab& lab, const std::function<void()>& run);

// Several runs timed alternately: warm-up rounds, then `iters` rounds of run 0, run 1, ..., each
// run between its own events. max_seconds caps the timed time of a whole round. prepares[i] (may
// be empty) runs before every run i, outside the events. Returns one Timing per run.
std::vector<Timing> time_interleaved(Lab& lab, const TimingPlan& plan, const std::vector<std::function<void()>>& runs,
                                     const std::vector<std::function<void()>>& prepares);

}  // namespace gemmlab
