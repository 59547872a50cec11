#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace gemmlab {

double percentile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw Error("percentile of an empty sample");
  const double pos = q * double(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - double(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Stats summarize(std::span<const double> samples) {
  if (samples.empty()) throw Error("cannot summarize an empty sample");
  for (double x : samples)
    if (!std::isfinite(x)) throw Error("non-finite value in timing samples");
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  Stats st;
  st.count = static_cast<int>(s.size());
  st.min = s.front();
  st.max = s.back();
  st.mean = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
  st.median = percentile_sorted(s, 0.5);
  st.p10 = percentile_sorted(s, 0.1);
  st.p90 = percentile_sorted(s, 0.9);
  if (s.size() > 1) {
    double acc = 0;
    for (double x : s) acc += (x - st.mean) * (x - st.mean);
    st.stddev = std::sqrt(acc / double(s.size() - 1));
  }
  return st;
}

}  // namespace gemmlab
