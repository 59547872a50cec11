// The phases of one full multiplication as the host sees it (seed 001's table), their statistics
// over many runs, and seed 001's relative-gain comparison between two host-memory modes.
// Pure arithmetic: no CUDA here, so all of it is tested without a GPU.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/stats.hpp"

namespace gemmlab::transfer {

enum class Phase : int {
  host_alloc,    // malloc / cudaMallocHost of A, B and C
  device_alloc,  // cudaMalloc of A, B and C
  copy_ab,       // A and B to the device
  kernel,        // the multiplication
  copy_c,        // C back to the host
  sync,          // the final synchronisation
  device_free,   // cudaFree of A, B and C
  host_free,     // free / cudaFreeHost of A, B and C
  count
};
inline constexpr int kPhaseCount = int(Phase::count);

// Which clock measures a phase: host calls with std::chrono::steady_clock, work on the GPU with
// CUDA events recorded on its stream.
enum class Clock { steady, events };

std::string_view phase_label(Phase p);  // "Memcpy AB" (the seed's names where it had them)
std::string_view phase_key(Phase p);    // "copy_ab" (JSON and CSV keys)
Clock phase_clock(Phase p);
std::string_view clock_name(Clock c);   // "steady_clock", "CUDA events"

// One run of the pipeline, in milliseconds.
struct RunTimes {
  std::array<double, kPhaseCount> phase{};
  double total = 0;        // steady clock over every timed phase (untimed input fills and checks excluded)
  double window = 0;       // steady clock: first copy enqueued -> final synchronisation returned
  double gpu_window = 0;   // CUDA events: first upload starts -> last download ends
  double kernel_busy = 0;  // CUDA events: the kernel's time, summed over tiles in the overlapped mode
  double& operator[](Phase p) { return phase[std::size_t(p)]; }
  double operator[](Phase p) const { return phase[std::size_t(p)]; }
  double sum_of_phases() const;
};

// Statistics of many runs. GFLOPS are per run (2 M N K / that run's total), so their min goes with
// the slowest run, as in seed 001.
struct PhaseTable {
  int runs = 0;
  std::array<Stats, kPhaseCount> phase{};
  Stats total, window, gpu_window, kernel_busy, gflops;
  const Stats& operator[](Phase p) const { return phase[std::size_t(p)]; }
};

// Throws Error on an empty list or a non-finite or negative time.
PhaseTable summarize_runs(const std::vector<RunTimes>& runs, double flops);

// The rows of seed 001's table: every phase, then the total ("time*" in the seed) and GFLOPS.
struct TableRow {
  std::string label, key;
  Stats stats;
  bool higher_is_better = false;  // GFLOPS
};
std::vector<TableRow> seed_rows(const PhaseTable& t);

// Seed 001's comparison: (base - other) / base for one statistic; positive means `other` takes
// less time (or, for GFLOPS, has fewer GFLOPS: the seed used one formula for every row).
// nullopt where base is 0 and other is not (no meaningful ratio); 0 where both are 0.
std::optional<double> relative_gain(double base, double other);

// One row per seed row: gains for min, max, mean, median and standard deviation.
struct GainRow {
  std::string label, key;
  std::array<std::optional<double>, 5> gain;  // min, max, mean, median, stddev
};
inline constexpr std::array<std::string_view, 5> kStatNames = {"Min", "Max", "Avg", "Median", "StdDV"};
inline constexpr std::array<std::string_view, 5> kStatKeys = {"min", "max", "mean", "median", "stddev"};
std::vector<GainRow> relative_gains(const PhaseTable& base, const PhaseTable& other);
double stat_value(const Stats& s, std::size_t which);  // 0 min, 1 max, 2 mean, 3 median, 4 stddev

// Total length covered by a set of [begin, end] intervals (overlaps counted once): how long at
// least one of the overlapped pipeline's tile kernels was in flight.
double union_length(std::vector<std::pair<double, double>> intervals);

// Achieved bandwidth in GB/s (10^9 bytes per second); 0 for a zero time.
double gigabytes_per_second(double bytes, double ms);

// Does the overlapped pipeline hide the copies? Its GPU window (first upload starts -> last
// download ends, median) against the same kernel's separately measured copies and kernel (medians
// of the pinned mode: Memcpy AB + Memcpy C, and Kernel). Perfect overlap gives ratio 1; no overlap
// at all gives sum / max.
struct OverlapSummary {
  double pipeline_ms = 0;  // overlapped: median GPU window
  double copy_ms = 0;      // pinned: median Memcpy AB + median Memcpy C
  double kernel_ms = 0;    // pinned: median Kernel
  double sum_ms() const { return copy_ms + kernel_ms; }
  double max_ms() const { return copy_ms > kernel_ms ? copy_ms : kernel_ms; }
  double ratio() const { return max_ms() > 0 ? pipeline_ms / max_ms() : 0; }
};
inline constexpr double kOverlapTarget = 1.15;  // the pipeline should take at most this times max(copy, kernel)
OverlapSummary summarize_overlap(const PhaseTable& pinned, const PhaseTable& overlapped);

// How many timed runs: `requested`, but no more than fit in `max_seconds` at `estimate_ms` per
// run, and at least min(min_runs, requested). estimate_ms <= 0 means unknown: `requested`.
int plan_runs(int requested, double max_seconds, double estimate_ms, int min_runs = 3);
std::string run_rule(int requested, double max_seconds, int min_runs = 3);  // the rule in words

}  // namespace gemmlab::transfer
