#include "results/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/stats.hpp"
#include "results/identity.hpp"

namespace gemmlab {

namespace {

std::optional<double> number(const nlohmann::json& r, const char* key) {
  if (!r.is_object() || !r.contains(key) || !r[key].is_number()) return std::nullopt;
  const double v = r[key].get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

bool passed(const nlohmann::json& r) { return field_text(r, "status") == "ok"; }
// The record ran (its result was checked, whether it passed or not).
bool ran(const nlohmann::json& r) {
  const std::string status = field_text(r, "status");
  return status == "ok" || status == "verification-failed";
}

}  // namespace

const char* change_name(Change c) {
  switch (c) {
    case Change::within_noise: return "within noise";
    case Change::faster: return "faster";
    case Change::slower: return "SLOWER";
    case Change::now_failing: return "NOW FAILS VERIFICATION";
    case Change::now_passing: return "now passes verification";
    case Change::not_comparable: return "not comparable";
  }
  return "?";
}

std::optional<Spread> spread_of(const nlohmann::json& r) {
  const auto median = number(r, "time_median_ms");
  if (!median || *median <= 0) return std::nullopt;
  Spread s{*median, *median, *median, "none"};
  const auto p10 = number(r, "time_p10_ms"), p90 = number(r, "time_p90_ms"), sd = number(r, "time_stddev_ms");
  if (p10 && p90 && *p10 <= *median && *median <= *p90) {
    s.low = *p10;
    s.high = *p90;
    s.source = "p10..p90";
  } else if (sd) {
    s.low = *median - *sd;
    s.high = *median + *sd;
    s.source = "stddev";
  } else if (r.contains("samples_ms") && r["samples_ms"].is_array()) {
    std::vector<double> v;  // the finite numbers among the samples
    for (const auto& x : r["samples_ms"])
      if (x.is_number() && std::isfinite(x.get<double>())) v.push_back(x.get<double>());
    if (!v.empty()) {
      std::sort(v.begin(), v.end());
      s.low = std::min(*median, percentile_sorted(v, 0.10));
      s.high = std::max(*median, percentile_sorted(v, 0.90));
      s.source = "samples";
    }
  }
  return s;
}

std::size_t Comparison::count(Change c) const {
  return std::size_t(std::count_if(rows.begin(), rows.end(), [&](const ComparedConfig& r) { return r.change == c; }));
}

std::size_t Comparison::regressions() const {
  return std::size_t(std::count_if(rows.begin(), rows.end(), [](const ComparedConfig& r) { return r.regression(); }));
}

Comparison compare_results(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& options) {
  // Last record per key, keeping the order in which keys first appear.
  auto index = [](const nlohmann::json& file, std::vector<std::string>& order) {
    std::map<std::string, nlohmann::json> by_key;
    for (const auto& r : file.at("results")) {
      const std::string key = config_key(r);
      if (!by_key.count(key)) order.push_back(key);
      by_key[key] = r;
    }
    return by_key;
  };
  std::vector<std::string> a_order, b_order;
  const auto a_by = index(a, a_order);
  const auto b_by = index(b, b_order);

  Comparison out;
  for (const std::string& key : a_order) {
    auto bi = b_by.find(key);
    if (bi == b_by.end()) {
      out.only_a.push_back(a_by.at(key));
      continue;
    }
    ComparedConfig row;
    row.key = key;
    row.a = a_by.at(key);
    row.b = bi->second;
    row.a_spread = spread_of(row.a);
    row.b_spread = spread_of(row.b);
    const bool a_ok = passed(row.a), b_ok = passed(row.b);
    if (row.a_spread && row.b_spread) row.speedup = row.a_spread->median / row.b_spread->median;
    const bool a_ran = ran(row.a), b_ran = ran(row.b);
    if (a_ok && !b_ok && b_ran) {
      row.change = Change::now_failing;
    } else if (!a_ok && a_ran && b_ok) {
      row.change = Change::now_passing;
    } else if (!a_ok || !b_ok || !row.a_spread || !row.b_spread) {
      row.change = Change::not_comparable;
    } else {
      const Spread& sa = *row.a_spread;
      const Spread& sb = *row.b_spread;
      const bool disjoint = sb.high < sa.low || sb.low > sa.high;
      const bool large = std::fabs(sb.median - sa.median) > options.min_change * sa.median;
      if (!disjoint || !large)
        row.change = Change::within_noise;
      else
        row.change = sb.median < sa.median ? Change::faster : Change::slower;
    }
    out.rows.push_back(std::move(row));
  }
  for (const std::string& key : b_order)
    if (!a_by.count(key)) out.only_b.push_back(b_by.at(key));
  return out;
}

}  // namespace gemmlab
