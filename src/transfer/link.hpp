// The host-device link, measured: bandwidth of plain copies host -> device and device -> host,
// from pinned (cudaMallocHost) and pageable (malloc) host memory, over a range of sizes.
// The best pinned median per direction is "the link's peak" every transfer figure is compared to.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/stats.hpp"
#include "harness/lab.hpp"
#include "transfer/host_memory.hpp"

namespace gemmlab::transfer {

enum class Direction { h2d, d2h };
std::string_view direction_name(Direction d);  // "H2D", "D2H"

struct LinkPlan {
  std::vector<std::size_t> sizes;  // bytes per copy
  int warmup = 2;
  int reps = 20;            // timed copies per point (median reported) ...
  double max_seconds = 1.0; // ... at most this much copying per point, at least 3 copies
};

// 64 KiB, 256 KiB, 1 MiB, ... (x4) up to and including max_bytes (which must be >= 64 KiB).
std::vector<std::size_t> default_link_sizes(std::size_t max_bytes = std::size_t(1) << 30);

struct LinkPoint {
  std::size_t bytes = 0;
  Direction direction = Direction::h2d;
  HostKind host = HostKind::pinned;
  Stats ms;        // per copy, CUDA events
  double gbs = 0;  // bytes / median time, 10^9 bytes per second
};

struct LinkPeak {
  double h2d_gbs = 0, d2h_gbs = 0;  // best pinned median over the sizes measured
  std::size_t h2d_bytes = 0, d2h_bytes = 0;  // the size where it was reached
  double peak(Direction d) const { return d == Direction::h2d ? h2d_gbs : d2h_gbs; }
};

struct LinkResult {
  std::vector<LinkPoint> points;
  LinkPeak peak;
  std::vector<std::string> skipped;  // sizes left out for lack of host or device memory, with the reason
};

LinkPeak peak_of(const std::vector<LinkPoint>& points);

// Every size x {pinned, pageable} x {H2D, D2H}. Sizes that do not fit are skipped, with a note.
LinkResult measure_link(Lab& lab, const LinkPlan& plan, bool pageable_too = true);

// A short pinned-only measurement (one size, both directions): the peak a transfer run compares to.
LinkPeak measure_link_peak(Lab& lab, std::size_t bytes = std::size_t(256) << 20);

}  // namespace gemmlab::transfer
