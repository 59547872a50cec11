#include "transfer/report.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/table.hpp"

namespace gemmlab::transfer {

namespace {

double bytes_ab(const Shape& s) { return 4.0 * (double(s.m) * double(s.k) + double(s.k) * double(s.n)); }
double bytes_c(const Shape& s) { return 4.0 * double(s.m) * double(s.n); }

std::string format_gflops(double g) { return g >= 100 ? fmt::format("{:.0f}", g) : fmt::format("{:.2f}", g); }

std::string heading(const ModeResult& r) {
  std::string h = fmt::format("{} | {} ({}) | {} | host memory: {}", to_string(r.shape), r.kernel,
                              params_to_string(r.params), precision_name(r.precision), mode_name(r.mode));
  if (r.mode == HostMode::overlapped)
    h += fmt::format(" | {} x {} panels, 1 upload + {} compute streams", r.row_panels, r.col_panels, r.streams);
  return h;
}

std::string check_text(const Verification& v) {
  if (!v.checked) return "not checked";
  return v.passed ? fmt::format("ok (rel {:.1e}, worst element {:.1e})", v.rel_frobenius, v.max_elementwise)
                  : v.summary();
}

void put_stats(nlohmann::json& j, const std::string& key, const Stats& s, const char* unit = "_ms") {
  for (std::size_t i = 0; i < kStatKeys.size(); ++i) j[fmt::format("{}_{}{}", key, kStatKeys[i], unit)] = stat_value(s, i);
}

std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return v.dump();
}

}  // namespace

std::string format_ms(double ms) {
  if (ms == 0) return "0";
  const double a = std::fabs(ms);
  if (a >= 1000) return fmt::format("{:.1f}", ms);
  if (a >= 100) return fmt::format("{:.2f}", ms);
  if (a >= 10) return fmt::format("{:.3f}", ms);
  if (a >= 0.001) return fmt::format("{:.4f}", ms);
  return fmt::format("{:.2e}", ms);
}

std::string format_percent(std::optional<double> ratio) {
  return ratio ? fmt::format("{:.2f}%", 100 * *ratio) : std::string("-");
}

CopyRates copy_rates(const ModeResult& r, const LinkPeak& peak) {
  CopyRates c;
  if (r.skipped || r.table.runs == 0) return c;
  c.ab_gbs = gigabytes_per_second(bytes_ab(r.shape), r.table[Phase::copy_ab].median);
  c.c_gbs = gigabytes_per_second(bytes_c(r.shape), r.table[Phase::copy_c].median);
  if (peak.h2d_gbs > 0) c.ab_share = c.ab_gbs / peak.h2d_gbs;
  if (peak.d2h_gbs > 0) c.c_share = c.c_gbs / peak.d2h_gbs;
  return c;
}

void print_mode(std::ostream& os, const ModeResult& r, const LinkPeak& peak) {
  os << heading(r) << '\n';
  if (r.skipped) {
    os << "  skipped: " << r.skip_reason << "\n\n";
    return;
  }
  os << fmt::format("  {} timed runs after {} warm-ups{}; {}\n", r.table.runs, r.warmup,
                    r.capped() ? fmt::format(" ({} wanted; fewer fit in the {} s budget)", r.requested_runs, r.max_seconds)
                               : std::string(),
                    mode_description(r.mode));
  const CopyRates rates = copy_rates(r, peak);
  Table t({"phase", "clock", "Min", "Max", "Avg", "Median", "StdDV", "GB/s", "of link peak"});
  for (const TableRow& row : seed_rows(r.table)) {
    std::vector<std::string> cells = {row.label};
    std::string clock = "steady_clock";
    for (int p = 0; p < kPhaseCount; ++p)
      if (row.key == phase_key(Phase(p))) clock = std::string(clock_name(phase_clock(Phase(p))));
    if (row.higher_is_better) clock = "per run";
    cells.push_back(clock);
    for (std::size_t i = 0; i < kStatNames.size(); ++i)
      cells.push_back(row.higher_is_better ? format_gflops(stat_value(row.stats, i)) : format_ms(stat_value(row.stats, i)));
    if (row.key == "copy_ab") {
      cells.push_back(fmt::format("{:.1f}", rates.ab_gbs));
      cells.push_back(rates.ab_share > 0 ? fmt::format("{:.0f}%", 100 * rates.ab_share) : "-");
    } else if (row.key == "copy_c") {
      cells.push_back(fmt::format("{:.1f}", rates.c_gbs));
      cells.push_back(rates.c_share > 0 ? fmt::format("{:.0f}%", 100 * rates.c_share) : "-");
    }
    t.add(cells);
  }
  t.add_separator();
  auto extra = [&](const char* label, const char* clock, const Stats& s) {
    std::vector<std::string> cells = {label, clock};
    for (std::size_t i = 0; i < kStatNames.size(); ++i) cells.push_back(format_ms(stat_value(s, i)));
    t.add(cells);
  };
  extra("(window)", "steady_clock", r.table.window);
  extra("(GPU window)", "CUDA events", r.table.gpu_window);
  extra("(kernel busy)", "CUDA events", r.table.kernel_busy);
  t.print(os);
  os << "  times in ms. Total: host alloc + device alloc + window + frees (refilling A and B and the checks are "
        "not timed). (window): first copy enqueued -> final sync returned.\n";
  if (r.mode == HostMode::overlapped)
    os << "  overlapped: Memcpy AB, Kernel and Memcpy C are spans on one GPU timeline that overlap each other; "
          "(kernel busy) is the time at least one tile kernel was in flight.\n";
  os << fmt::format("  check against float64: first run {}; after the timed runs {}\n\n", check_text(r.first),
                    check_text(r.last));
}

void print_gains(std::ostream& os, const ModeResult& base, const ModeResult& other) {
  if (base.skipped || other.skipped) return;
  os << fmt::format("relative gain ({} - {}) / {} at {}, {} (seed 001's formula: positive = {} takes less time; "
                    "for GFLOPS negative = {} is faster)\n",
                    mode_name(base.mode), mode_name(other.mode), mode_name(base.mode), to_string(base.shape),
                    base.kernel, mode_name(other.mode), mode_name(other.mode));
  Table t({"", "Min", "Max", "Avg", "Median", "StdDV"});
  for (const GainRow& g : relative_gains(base.table, other.table)) {
    std::vector<std::string> cells = {g.label};
    for (const auto& x : g.gain) cells.push_back(format_percent(x));
    t.add(cells);
  }
  t.print(os);
  os << '\n';
}

void print_overlap(std::ostream& os, const ModeResult& pinned, const ModeResult& overlapped) {
  if (pinned.skipped || overlapped.skipped) return;
  const OverlapSummary o = summarize_overlap(pinned.table, overlapped.table);
  os << fmt::format(
      "overlap at {}, {} (medians, ms): pipeline (GPU window) {} | copies alone {} (pinned: Memcpy AB {} + Memcpy C "
      "{}) | kernel alone {} | sum {} | max {} | pipeline / max = {:.3f} (target <= {:.2f}: {})\n\n",
      to_string(overlapped.shape), overlapped.kernel, format_ms(o.pipeline_ms), format_ms(o.copy_ms),
      format_ms(pinned.table[Phase::copy_ab].median), format_ms(pinned.table[Phase::copy_c].median),
      format_ms(o.kernel_ms), format_ms(o.sum_ms()), format_ms(o.max_ms()), o.ratio(), kOverlapTarget,
      o.ratio() <= kOverlapTarget ? "met" : "missed");
}

void print_link(std::ostream& os, const LinkResult& r) {
  Table t({"size", "host memory", "direction", "median ms", "min ms", "max ms", "runs", "GB/s", "of pinned peak"});
  for (const LinkPoint& p : r.points) {
    const double peak = r.peak.peak(p.direction);
    t.add({format_bytes(double(p.bytes)), p.host == HostKind::pinned ? "pinned" : "pageable",
           std::string(direction_name(p.direction)), format_ms(p.ms.median), format_ms(p.ms.min), format_ms(p.ms.max),
           std::to_string(p.ms.count), fmt::format("{:.2f}", p.gbs),
           peak > 0 ? fmt::format("{:.0f}%", 100 * p.gbs / peak) : "-"});
  }
  t.print(os);
  os << fmt::format("link peak (best pinned median): H2D {:.2f} GB/s at {}, D2H {:.2f} GB/s at {} (GB = 10^9 bytes; "
                    "each copy between its own CUDA events)\n",
                    r.peak.h2d_gbs, format_bytes(double(r.peak.h2d_bytes)), r.peak.d2h_gbs,
                    format_bytes(double(r.peak.d2h_bytes)));
  for (const auto& s : r.skipped) os << "skipped " << s << '\n';
}

nlohmann::json to_json(const ModeResult& r, const LinkPeak& peak, const ModeResult* pinned, const ModeResult* base) {
  nlohmann::json j;
  j["record"] = "transfer";
  j["kernel"] = r.kernel;
  j["params"] = params_to_string(r.params);
  for (const auto& [name, value] : r.params) j["param_" + name] = value;
  j["precision"] = std::string(precision_name(r.precision));
  j["host_mode"] = std::string(mode_name(r.mode));
  j["m"] = r.shape.m;
  j["n"] = r.shape.n;
  j["k"] = r.shape.k;
  j["warmup"] = r.warmup;
  j["requested_runs"] = r.requested_runs;
  j["max_seconds"] = r.max_seconds;
  j["link_h2d_peak_gbs"] = peak.h2d_gbs;
  j["link_d2h_peak_gbs"] = peak.d2h_gbs;
  if (r.mode == HostMode::overlapped) {
    j["streams"] = r.streams;
    j["row_panels"] = r.row_panels;
    j["col_panels"] = r.col_panels;
  }
  if (r.skipped) {
    j["status"] = "skipped";
    j["reason"] = r.skip_reason;
    return j;
  }
  j["iters"] = r.table.runs;
  nlohmann::json clocks;
  for (int p = 0; p < kPhaseCount; ++p)
    clocks[std::string(phase_key(Phase(p)))] = std::string(clock_name(phase_clock(Phase(p))));
  clocks["total"] = clocks["window"] = "steady_clock";
  clocks["gpu_window"] = clocks["kernel_busy"] = "CUDA events";
  j["clocks"] = clocks;
  for (const TableRow& row : seed_rows(r.table)) put_stats(j, row.key, row.stats, row.higher_is_better ? "" : "_ms");
  put_stats(j, "window", r.table.window);
  put_stats(j, "gpu_window", r.table.gpu_window);
  put_stats(j, "kernel_busy", r.table.kernel_busy);
  j["time_median_ms"] = r.table.total.median;  // the keys generic result tools look for
  j["gflops"] = r.table.gflops.median;
  const CopyRates rates = copy_rates(r, peak);
  j["copy_ab_bytes"] = bytes_ab(r.shape);
  j["copy_c_bytes"] = bytes_c(r.shape);
  j["copy_ab_gbs"] = rates.ab_gbs;
  j["copy_c_gbs"] = rates.c_gbs;
  j["copy_ab_share_of_peak"] = rates.ab_share;
  j["copy_c_share_of_peak"] = rates.c_share;
  const Verification& worst = (r.last.checked && r.last.rel_frobenius > r.first.rel_frobenius) ? r.last : r.first;
  j["kernel_verified"] = r.first.checked && r.last.checked;
  j["kernel_passed"] = r.passed();
  j["kernel_rel_error"] = worst.rel_frobenius;
  j["kernel_elementwise_error"] = std::max(r.first.max_elementwise, r.last.max_elementwise);
  j["kernel_nonfinite"] = std::max(r.first.nonfinite, r.last.nonfinite);
  if (pinned && !pinned->skipped && r.mode == HostMode::overlapped) {
    const OverlapSummary o = summarize_overlap(pinned->table, r.table);
    j["overlap_pipeline_ms"] = o.pipeline_ms;
    j["overlap_copy_ms"] = o.copy_ms;
    j["overlap_kernel_ms"] = o.kernel_ms;
    j["overlap_sum_ms"] = o.sum_ms();
    j["overlap_max_ms"] = o.max_ms();
    j["overlap_ratio"] = o.ratio();
    j["overlap_target"] = kOverlapTarget;
  }
  if (base && !base->skipped && base != &r) {
    nlohmann::json g;
    for (const GainRow& row : relative_gains(base->table, r.table)) {
      nlohmann::json x;
      for (std::size_t i = 0; i < kStatKeys.size(); ++i)
        x[std::string(kStatKeys[i])] = row.gain[i] ? nlohmann::json(*row.gain[i]) : nlohmann::json();
      g[row.key] = x;
    }
    j["gain_vs_" + std::string(mode_name(base->mode))] = g;
  }
  nlohmann::json samples;
  for (int p = 0; p < kPhaseCount; ++p) {
    std::vector<double> v;
    for (const RunTimes& t : r.samples) v.push_back(t[Phase(p)]);
    samples[std::string(phase_key(Phase(p)))] = v;
  }
  std::vector<double> total, window, gpu_window;
  for (const RunTimes& t : r.samples) {
    total.push_back(t.total);
    window.push_back(t.window);
    gpu_window.push_back(t.gpu_window);
  }
  samples["total"] = total;
  samples["window"] = window;
  samples["gpu_window"] = gpu_window;
  j["samples_ms"] = samples;
  j["status"] = r.passed() ? "ok" : "verification-failed";
  return j;
}

nlohmann::json to_json(const LinkResult& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const LinkPoint& p : r.points) {
    nlohmann::json x;
    x["record"] = "link";
    x["bytes"] = p.bytes;
    x["host_memory"] = p.host == HostKind::pinned ? "pinned" : "pageable";
    x["direction"] = std::string(direction_name(p.direction));
    x["runs"] = p.ms.count;
    put_stats(x, "time", p.ms);
    x["gbs"] = p.gbs;
    points.push_back(x);
  }
  return {{"points", points},
          {"peak",
           {{"h2d_gbs", r.peak.h2d_gbs},
            {"h2d_bytes", r.peak.h2d_bytes},
            {"d2h_gbs", r.peak.d2h_gbs},
            {"d2h_bytes", r.peak.d2h_bytes}}},
          {"skipped", r.skipped}};
}

const std::vector<std::string>& transfer_csv_columns() {
  static const std::vector<std::string> cols = [] {
    std::vector<std::string> c = {"kernel", "params", "precision", "host_mode", "m", "n", "k", "warmup", "iters",
                                  "status", "reason"};
    std::vector<std::string> rows;
    for (int p = 0; p < kPhaseCount; ++p) rows.emplace_back(phase_key(Phase(p)));
    for (const char* r : {"total", "window", "gpu_window", "kernel_busy"}) rows.emplace_back(r);
    for (const auto& r : rows)
      for (const auto& s : kStatKeys) c.push_back(fmt::format("{}_{}_ms", r, s));
    for (const auto& s : kStatKeys) c.push_back(fmt::format("gflops_{}", s));
    for (const char* x : {"copy_ab_gbs", "copy_c_gbs", "link_h2d_peak_gbs", "link_d2h_peak_gbs",
                          "copy_ab_share_of_peak", "copy_c_share_of_peak", "kernel_passed", "kernel_rel_error",
                          "streams", "row_panels", "col_panels", "overlap_pipeline_ms", "overlap_copy_ms",
                          "overlap_kernel_ms", "overlap_sum_ms", "overlap_max_ms", "overlap_ratio"})
      c.emplace_back(x);
    return c;
  }();
  return cols;
}

void write_transfer_csv(const std::string& path, const std::vector<nlohmann::json>& records) {
  std::ofstream out(path);
  if (!out) throw Error(fmt::format("{}: cannot open for writing", path));
  out << fmt::format("{}\n", fmt::join(transfer_csv_columns(), ","));
  for (const auto& r : records) {
    std::vector<std::string> cells;
    for (const auto& c : transfer_csv_columns()) cells.push_back(r.contains(c) ? csv_cell(r[c]) : "");
    out << fmt::format("{}\n", fmt::join(cells, ","));
  }
  if (!out) throw Error(fmt::format("{}: write error", path));
}

}  // namespace gemmlab::transfer
