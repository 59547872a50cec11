#include "harness/timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace gemmlab {

namespace {

// Owns a list of events and destroys them on every path.
class Events {
 public:
  explicit Events(std::size_t n) : ev_(n, nullptr) {
    for (auto& e : ev_) GEMMLAB_CUDA(cudaEventCreate(&e));
  }
  ~Events() {
    for (auto e : ev_)
      if (e) cudaEventDestroy(e);
  }
  cudaEvent_t operator[](std::size_t i) const { return ev_[i]; }

 private:
  std::vector<cudaEvent_t> ev_;
};

double elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  GEMMLAB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

double time_once(Lab& lab, const std::function<void()>& run) {
  Events e(2);
  GEMMLAB_CUDA(cudaEventRecord(e[0], lab.stream()));
  run();
  GEMMLAB_CUDA(cudaEventRecord(e[1], lab.stream()));
  GEMMLAB_CUDA(cudaEventSynchronize(e[1]));
  return elapsed_ms(e[0], e[1]);
}

Timing time_runs(Lab& lab, const TimingPlan& plan, const std::function<void()>& run,
                 const std::function<void()>& prepare) {
  return time_interleaved(lab, plan, {run}, {prepare}).front();
}

std::vector<Timing> time_interleaved(Lab& lab, const TimingPlan& plan, const std::vector<std::function<void()>>& runs,
                                     const std::vector<std::function<void()>>& prepares) {
  const cudaStream_t s = lab.stream();
  const std::size_t n = runs.size();
  if (n == 0 || prepares.size() != n) throw Error("time_interleaved needs one prepare (or none) per run");
  auto once = [&](std::size_t j, cudaEvent_t start, cudaEvent_t stop, bool flush) {
    if (prepares[j]) prepares[j]();
    if (flush) lab.flush_l2();
    GEMMLAB_CUDA(cudaEventRecord(start, s));
    runs[j]();
    GEMMLAB_CUDA(cudaEventRecord(stop, s));
  };
  // Warm-up rounds, each run timed too: the fastest round predicts how long a timed round takes.
  double estimate_ms = 0;
  if (plan.warmup > 0) {
    const std::size_t w_runs = n * std::size_t(plan.warmup);
    Events w(2 * w_runs);
    for (std::size_t i = 0; i < w_runs; ++i) once(i % n, w[2 * i], w[2 * i + 1], false);
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
    for (std::size_t j = 0; j < n; ++j) {
      double best = std::numeric_limits<double>::infinity();
      for (int r = 0; r < plan.warmup; ++r) {
        const std::size_t i = std::size_t(r) * n + j;
        best = std::min(best, elapsed_ms(w[2 * i], w[2 * i + 1]));
      }
      estimate_ms += best;
    }
  }
  int iters = plan.iters;
  bool capped = false;
  if (estimate_ms > 0 && estimate_ms * plan.iters > plan.max_seconds * 1e3) {
    iters = std::max(std::min(plan.iters, 3), int(plan.max_seconds * 1e3 / estimate_ms));
    capped = iters < plan.iters;
  }
  if (iters <= 0) throw Error("the number of timed runs must be at least 1");
  const std::size_t total = n * std::size_t(iters);
  Events ev(2 * total);
  // Behind a hold, a chunk at a time: the host enqueues the chunk, then lets the GPU run it back
  // to back. The chunks keep the launch queue short of its limit, where the host would block in a
  // launch with the hold still on.
  auto enqueue = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) once(i % n, ev[2 * i], ev[2 * i + 1], plan.flush_l2);
  };
  // The first flush makes the flush buffer: an allocation, which must not wait behind a hold.
  if (plan.flush_l2) lab.flush_l2();
  StreamHold* hold = plan.hold ? lab.hold() : nullptr;
  bool held = hold != nullptr;
  if (held) {
    (void)hold->gave_up();
    for (std::size_t i = 0; i < total; i += std::size_t(kHoldChunk)) {
      hold->hold(s, kHoldTimeoutMs);
      enqueue(i, std::min(total, i + std::size_t(kHoldChunk)));
      hold->release();
    }
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
    held = !hold->gave_up();
    if (!held) lab.holds_failed();  // what made it give up would again: no more holds in this Lab
  }
  if (!held) {
    enqueue(0, total);
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
  }
  std::vector<Timing> out(n);
  for (std::size_t j = 0; j < n; ++j) {
    Timing& t = out[j];
    t.iters = iters;
    t.capped = capped;
    t.held = held;
    t.samples.reserve(std::size_t(iters));
    for (int r = 0; r < iters; ++r) {
      const std::size_t i = std::size_t(r) * n + j;
      t.samples.push_back(elapsed_ms(ev[2 * i], ev[2 * i + 1]));
    }
    t.ms = summarize(t.samples);
  }
  return out;
}

}  // namespace gemmlab
