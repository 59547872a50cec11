// Comparing two results files (two commits, two GPUs, two settings): the configurations both
// measured, matched by config_key (kernel, params, precision, output, shape, L2 mode, init), the
// ratio of their speeds, and whether the change is larger than the noise the measurements show.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gemmlab {

struct CompareOptions {
  // A change counts only when the runs' spreads do not overlap AND the medians differ by more
  // than this fraction (spreads of a few tenths of a percent would otherwise flag clock jitter).
  double min_change = 0.03;
};

// The spread of one measurement: [p10, p90] of its timed runs when the record has them, else
// median +- stddev, else the samples' p10..p90, else just the median.
struct Spread {
  double median = 0, low = 0, high = 0;
  std::string source;  // "p10..p90", "stddev", "samples", "none"
};
std::optional<Spread> spread_of(const nlohmann::json& record);  // nullopt: no time in the record

enum class Change {
  within_noise,    // the spreads overlap, or the difference is below min_change
  faster,          // B is faster than A beyond the noise
  slower,          // B is slower than A beyond the noise: a regression
  now_failing,     // A passed verification, B fails it: a regression
  now_passing,     // A failed verification, B passes
  not_comparable,  // one side has no time (skipped, error) or both failed
};
const char* change_name(Change c);

struct ComparedConfig {
  std::string key;
  nlohmann::json a, b;  // the two records
  std::optional<Spread> a_spread, b_spread;
  double speedup = 0;  // A median time / B median time = B GFLOPS / A GFLOPS; > 1: B is faster; 0 if unknown
  Change change = Change::not_comparable;
  bool regression() const { return change == Change::slower || change == Change::now_failing; }
};

struct Comparison {
  std::vector<ComparedConfig> rows;     // configurations in both files, in A's order
  std::vector<nlohmann::json> only_a;   // in A only
  std::vector<nlohmann::json> only_b;   // in B only
  std::size_t count(Change c) const;
  std::size_t regressions() const;
};

// a and b are results files as read_results_file returns them. When a file holds the same
// configuration twice, its last record counts.
Comparison compare_results(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& options = {});

}  // namespace gemmlab
