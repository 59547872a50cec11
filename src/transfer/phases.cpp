#include "transfer/phases.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab::transfer {

namespace {

struct PhaseText {
  std::string_view label, key;
  Clock clock;
};

constexpr std::array<PhaseText, kPhaseCount> kPhases = {{
    {"Host alloc", "host_alloc", Clock::steady},
    {"Device alloc", "device_alloc", Clock::steady},
    {"Memcpy AB", "copy_ab", Clock::events},
    {"Kernel", "kernel", Clock::events},
    {"Memcpy C", "copy_c", Clock::events},
    {"Sync", "sync", Clock::steady},
    {"Device free", "device_free", Clock::steady},
    {"Host free", "host_free", Clock::steady},
}};

void check_time(double ms, std::string_view what) {
  if (!std::isfinite(ms) || ms < 0) throw Error(fmt::format("invalid time {} ms for {}", ms, what));
}

}  // namespace

std::string_view phase_label(Phase p) { return kPhases[std::size_t(p)].label; }
std::string_view phase_key(Phase p) { return kPhases[std::size_t(p)].key; }
Clock phase_clock(Phase p) { return kPhases[std::size_t(p)].clock; }
std::string_view clock_name(Clock c) { return c == Clock::steady ? "steady_clock" : "CUDA events"; }

double RunTimes::sum_of_phases() const {
  double s = 0;
  for (double x : phase) s += x;
  return s;
}

PhaseTable summarize_runs(const std::vector<RunTimes>& runs, double flops) {
  if (runs.empty()) throw Error("no runs to summarize");
  PhaseTable t;
  t.runs = int(runs.size());
  std::vector<double> v(runs.size());
  auto column = [&](auto get, std::string_view what) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      v[i] = get(runs[i]);
      check_time(v[i], what);
    }
    return summarize(v);
  };
  for (int p = 0; p < kPhaseCount; ++p)
    t.phase[std::size_t(p)] = column([p](const RunTimes& r) { return r.phase[std::size_t(p)]; }, phase_key(Phase(p)));
  t.total = column([](const RunTimes& r) { return r.total; }, "total");
  t.window = column([](const RunTimes& r) { return r.window; }, "window");
  t.gpu_window = column([](const RunTimes& r) { return r.gpu_window; }, "gpu_window");
  t.kernel_busy = column([](const RunTimes& r) { return r.kernel_busy; }, "kernel_busy");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].total <= 0) throw Error("a run's total time is zero: cannot compute GFLOPS");
    v[i] = flops / (runs[i].total * 1e-3) / 1e9;
  }
  t.gflops = summarize(v);
  return t;
}

std::vector<TableRow> seed_rows(const PhaseTable& t) {
  std::vector<TableRow> rows;
  for (int p = 0; p < kPhaseCount; ++p)
    rows.push_back({std::string(phase_label(Phase(p))), std::string(phase_key(Phase(p))), t.phase[std::size_t(p)]});
  rows.push_back({"Total", "total", t.total});
  rows.push_back({"GFLOPS", "gflops", t.gflops, true});
  return rows;
}

std::optional<double> relative_gain(double base, double other) {
  if (base == 0) return other == 0 ? std::optional<double>(0.0) : std::nullopt;
  return (base - other) / base;
}

double stat_value(const Stats& s, std::size_t which) {
  switch (which) {
    case 0: return s.min;
    case 1: return s.max;
    case 2: return s.mean;
    case 3: return s.median;
    case 4: return s.stddev;
  }
  throw Error(fmt::format("statistic index {} out of range", which));
}

std::vector<GainRow> relative_gains(const PhaseTable& base, const PhaseTable& other) {
  const std::vector<TableRow> a = seed_rows(base), b = seed_rows(other);
  std::vector<GainRow> out;
  for (std::size_t r = 0; r < a.size(); ++r) {
    GainRow g{a[r].label, a[r].key, {}};
    for (std::size_t s = 0; s < g.gain.size(); ++s)
      g.gain[s] = relative_gain(stat_value(a[r].stats, s), stat_value(b[r].stats, s));
    out.push_back(std::move(g));
  }
  return out;
}

double union_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, cur_begin = 0, cur_end = 0;
  bool open = false;
  for (const auto& [b, e] : intervals) {
    if (e < b) throw Error(fmt::format("interval [{}, {}] ends before it begins", b, e));
    if (open && b <= cur_end) {
      cur_end = std::max(cur_end, e);
      continue;
    }
    if (open) total += cur_end - cur_begin;
    cur_begin = b;
    cur_end = e;
    open = true;
  }
  if (open) total += cur_end - cur_begin;
  return total;
}

double gigabytes_per_second(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

OverlapSummary summarize_overlap(const PhaseTable& pinned, const PhaseTable& overlapped) {
  OverlapSummary o;
  o.pipeline_ms = overlapped.gpu_window.median;
  o.copy_ms = pinned[Phase::copy_ab].median + pinned[Phase::copy_c].median;
  o.kernel_ms = pinned[Phase::kernel].median;
  return o;
}

int plan_runs(int requested, double max_seconds, double estimate_ms, int min_runs) {
  if (requested < 1) throw Error("the number of runs must be at least 1");
  if (estimate_ms <= 0 || !std::isfinite(estimate_ms)) return requested;
  const double fit = std::floor(max_seconds * 1e3 / estimate_ms);
  const int floor_runs = std::min(min_runs, requested);
  if (fit >= double(requested)) return requested;
  return std::max(floor_runs, int(fit));
}

std::string run_rule(int requested, double max_seconds, int min_runs) {
  return fmt::format("up to {} timed runs, as many as fit in {} s at the pace of the fastest warm-up (or of the "
                     "first run when there is none), at least {}; warm-ups stop early once they alone took {} s",
                     requested, max_seconds, std::min(min_runs, requested), max_seconds);
}

}  // namespace gemmlab::transfer
