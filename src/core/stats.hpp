// Summary statistics of repeated timings, as the seeds report them (min, max, mean, median,
// standard deviation), computed from the raw samples.
#pragma once

#include <span>
#include <vector>

namespace gemmlab {

struct Stats {
  int count = 0;
  double min = 0, max = 0, mean = 0, median = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for a single sample
  double p10 = 0, p90 = 0;  // the spread around the median that reports show
};

// Throws gemmlab::Error on an empty sample or a non-finite value.
Stats summarize(std::span<const double> samples);

// Percentile by linear interpolation between order statistics, q in [0, 1].
double percentile_sorted(std::span<const double> sorted, double q);

}  // namespace gemmlab
