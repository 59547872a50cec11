#include "harness/timing.hpp"

#include <algorithm>
#include <cmath>

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

Timing time_runs(Lab& lab, const TimingPlan& plan, const std::function<void()>& run,
                 const std::function<void()>& prepare) {
  const cudaStream_t s = lab.stream();
  // Warm-up, each run timed too: the fastest one predicts how long a timed run takes.
  double estimate_ms = 0;
  if (plan.warmup > 0) {
    Events w(2 * std::size_t(plan.warmup));
    for (int i = 0; i < plan.warmup; ++i) {
      if (prepare) prepare();
      GEMMLAB_CUDA(cudaEventRecord(w[2 * i], s));
      run();
      GEMMLAB_CUDA(cudaEventRecord(w[2 * i + 1], s));
    }
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
    estimate_ms = elapsed_ms(w[0], w[1]);
    for (int i = 1; i < plan.warmup; ++i) estimate_ms = std::min(estimate_ms, elapsed_ms(w[2 * i], w[2 * i + 1]));
  }
  Timing t;
  t.iters = plan.iters;
  if (estimate_ms > 0 && estimate_ms * plan.iters > plan.max_seconds * 1e3) {
    t.iters = std::max(std::min(plan.iters, 3), int(plan.max_seconds * 1e3 / estimate_ms));
    t.capped = t.iters < plan.iters;
  }
  if (t.iters <= 0) throw Error("the number of timed runs must be at least 1");
  Events ev(2 * std::size_t(t.iters));
  for (int i = 0; i < t.iters; ++i) {
    if (prepare) prepare();
    if (plan.flush_l2) lab.flush_l2();
    GEMMLAB_CUDA(cudaEventRecord(ev[2 * i], s));
    run();
    GEMMLAB_CUDA(cudaEventRecord(ev[2 * i + 1], s));
  }
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  t.samples.reserve(std::size_t(t.iters));
  for (int i = 0; i < t.iters; ++i) t.samples.push_back(elapsed_ms(ev[2 * i], ev[2 * i + 1]));
  t.ms = summarize(t.samples);
  return t;
}

}  // namespace gemmlab
