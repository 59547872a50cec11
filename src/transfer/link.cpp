#include "transfer/link.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/buffer.hpp"
#include "core/error.hpp"
#include "transfer/phases.hpp"

namespace gemmlab::transfer {

namespace {

double elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  GEMMLAB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

class EventPair {
 public:
  EventPair() {
    GEMMLAB_CUDA(cudaEventCreate(&start_));
    const cudaError_t e = cudaEventCreate(&stop_);
    if (e != cudaSuccess) {
      cudaEventDestroy(start_);
      throw_cuda_error(e, "cudaEventCreate", __FILE__, __LINE__);
    }
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// One point: `bytes` in one direction between `host` and `dev`. Each copy between its own pair of
// events and waited for, so that no copy queues behind another.
LinkPoint time_copies(Lab& lab, const LinkPlan& plan, void* host, HostKind kind, void* dev, std::size_t bytes,
                      Direction d) {
  const cudaStream_t s = lab.stream();
  EventPair ev;
  auto one = [&] {
    GEMMLAB_CUDA(cudaEventRecord(ev.start(), s));
    if (d == Direction::h2d)
      GEMMLAB_CUDA(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    else
      GEMMLAB_CUDA(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
    GEMMLAB_CUDA(cudaEventRecord(ev.stop(), s));
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
    return elapsed_ms(ev.start(), ev.stop());
  };
  double fastest = 0;
  for (int i = 0; i < plan.warmup; ++i) {
    const double ms = one();
    fastest = i == 0 ? ms : std::min(fastest, ms);
  }
  const int reps = plan_runs(plan.reps, plan.max_seconds, fastest, 3);
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) samples.push_back(one());
  LinkPoint p;
  p.bytes = bytes;
  p.direction = d;
  p.host = kind;
  p.ms = summarize(samples);
  p.gbs = gigabytes_per_second(double(bytes), p.ms.median);
  return p;
}

}  // namespace

std::string_view direction_name(Direction d) { return d == Direction::h2d ? "H2D" : "D2H"; }

std::vector<std::size_t> default_link_sizes(std::size_t max_bytes) {
  constexpr std::size_t smallest = std::size_t(64) << 10;
  if (max_bytes < smallest) throw Error(fmt::format("the largest link size must be at least 64 KiB (got {} bytes)", max_bytes));
  std::vector<std::size_t> out;
  for (std::size_t b = smallest; b <= max_bytes; b *= 4) out.push_back(b);
  if (out.back() != max_bytes) out.push_back(max_bytes);
  return out;
}

LinkPeak peak_of(const std::vector<LinkPoint>& points) {
  LinkPeak p;
  for (const LinkPoint& x : points) {
    if (x.host != HostKind::pinned) continue;
    if (x.direction == Direction::h2d && x.gbs > p.h2d_gbs) {
      p.h2d_gbs = x.gbs;
      p.h2d_bytes = x.bytes;
    }
    if (x.direction == Direction::d2h && x.gbs > p.d2h_gbs) {
      p.d2h_gbs = x.gbs;
      p.d2h_bytes = x.bytes;
    }
  }
  return p;
}

LinkResult measure_link(Lab& lab, const LinkPlan& plan, bool pageable_too) {
  if (plan.sizes.empty()) throw Error("no link sizes to measure");
  if (plan.reps < 1) throw Error(fmt::format("the number of repetitions must be at least 1 (got {})", plan.reps));
  if (plan.warmup < 0) throw Error(fmt::format("warm-up copies must be 0 or more (got {})", plan.warmup));
  LinkResult r;
  for (std::size_t bytes : plan.sizes) {
    const std::size_t host_need = bytes * (pageable_too ? 2 : 1);
    if (auto why = host_memory_shortfall(host_need, host_memory_available())) {
      r.skipped.push_back(fmt::format("{}: {}", format_bytes(double(bytes)), *why));
      continue;
    }
    if (double(bytes) > 0.9 * double(lab.free_memory())) {
      r.skipped.push_back(fmt::format("{}: not enough free device memory", format_bytes(double(bytes))));
      continue;
    }
    try {
      DeviceBuffer dev(bytes);
      std::vector<HostKind> kinds = {HostKind::pinned};
      if (pageable_too) kinds.push_back(HostKind::pageable);
      for (HostKind kind : kinds) {
        HostBuffer host(bytes, kind);
        // Touch every page once: first-touch page faults are not part of the link's bandwidth.
        std::memset(host.get(), 1, bytes);
        for (Direction d : {Direction::h2d, Direction::d2h})
          r.points.push_back(time_copies(lab, plan, host.get(), kind, dev.get(), bytes, d));
      }
    } catch (const ResourceShortage& e) {
      r.skipped.push_back(fmt::format("{}: {}", format_bytes(double(bytes)), e.what()));
    }
  }
  r.peak = peak_of(r.points);
  return r;
}

LinkPeak measure_link_peak(Lab& lab, std::size_t bytes) {
  LinkPlan plan;
  plan.sizes = {bytes};
  plan.reps = 10;
  plan.max_seconds = 0.5;
  return measure_link(lab, plan, false).peak;
}

}  // namespace gemmlab::transfer
