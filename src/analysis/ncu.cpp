#include "analysis/ncu.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

namespace {

// Splits one CSV record: fields separated by commas, optionally in double quotes ("" inside
// quotes is a quote). Returns nullopt for an unterminated quote.
std::optional<std::vector<std::string>> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"' && cur.empty() && !quoted) {
      in_quotes = quoted = true;
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
      quoted = false;
    } else if (c != '\r') {
      cur += c;
    }
  }
  if (in_quotes) return std::nullopt;
  fields.push_back(cur);
  return fields;
}

// "1,234,567.5" -> 1234567.5; nullopt for "n/a", "" and anything else that is not a number.
std::optional<double> parse_number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The factor that converts a value in `unit` to gemmlab's base unit of that quantity:
// bytes, nanoseconds, cycles, counts. ncu scales with decimal prefixes (K = 1e3).
double unit_scale(const std::string& unit) {
  static const std::vector<std::pair<std::string, double>> times = {
      {"nsecond", 1}, {"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}};
  for (const auto& [u, f] : times)
    if (unit == u) return f;
  if (unit.size() > 1 && unit.find('/') == std::string::npos) {
    const char p = unit[0];
    const std::string rest = unit.substr(1);
    const bool base_like = rest == "byte" || rest == "cycle" || rest == "inst" || rest == "sector" ||
                           rest == "request" || rest == "warp" || rest == "thread" || rest == "block";
    if (base_like) {
      if (p == 'K') return 1e3;
      if (p == 'M') return 1e6;
      if (p == 'G') return 1e9;
      if (p == 'T') return 1e12;
    }
  }
  return 1;
}

const std::vector<std::string> kFixedColumns = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name",
                                                "Context", "Stream", "Block Size", "Grid Size", "Device", "CC",
                                                "Section Name", "Metric Name", "Metric Unit", "Metric Value"};

bool is_fixed_column(const std::string& name) {
  return std::find(kFixedColumns.begin(), kFixedColumns.end(), name) != kFixedColumns.end() ||
         name == "Kernel Time" || name == "Kernel Invocations" || name == "Rule Name" || name == "Rule Type" ||
         name == "Rule Description" || name == "Estimated Speedup Type" || name == "Estimated Speedup";
}

int column_of(const std::vector<std::string>& header, const std::string& name) {
  auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : int(it - header.begin());
}

}  // namespace

std::optional<double> NcuLaunch::get(const std::string& metric) const {
  auto it = metrics.find(metric);
  if (it == metrics.end()) return std::nullopt;
  return it->second;
}

std::vector<NcuLaunch> parse_ncu_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  std::vector<std::string> header;
  // The table starts at the first CSV row whose first field is "ID"; anything before it (the
  // profiler's progress lines, the program's own output) is not part of it.
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] != '"') continue;
    auto fields = split_csv(line);
    if (fields && !fields->empty() && (*fields)[0] == "ID") {
      header = *fields;
      break;
    }
  }
  if (header.empty()) throw Error("no ncu CSV table found (expected a header row starting with \"ID\")");
  const int c_id = column_of(header, "ID"), c_name = column_of(header, "Kernel Name");
  if (c_name < 0) throw Error(fmt::format("ncu CSV, line {}: the header has no \"Kernel Name\" column", line_no));
  const int c_block = column_of(header, "Block Size"), c_grid = column_of(header, "Grid Size");
  const int c_metric = column_of(header, "Metric Name"), c_unit = column_of(header, "Metric Unit"),
            c_value = column_of(header, "Metric Value");
  const bool long_layout = c_metric >= 0 && c_value >= 0;

  std::vector<NcuLaunch> launches;
  std::vector<std::string> units(header.size());
  bool units_seen = false;
  auto launch_for = [&](const std::vector<std::string>& f) -> NcuLaunch& {
    const std::string id = c_id >= 0 ? f[std::size_t(c_id)] : std::to_string(launches.size());
    if (long_layout)
      for (auto& l : launches)
        if (l.id == id) return l;
    NcuLaunch l;
    l.id = id;
    l.kernel_name = f[std::size_t(c_name)];
    if (c_block >= 0) l.block_size = f[std::size_t(c_block)];
    if (c_grid >= 0) l.grid_size = f[std::size_t(c_grid)];
    launches.push_back(std::move(l));
    return launches.back();
  };

  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    if (line[0] != '"') continue;  // "==PROF==" lines and program output after the table
    auto fields = split_csv(line);
    if (!fields) throw Error(fmt::format("ncu CSV, line {}: unterminated quoted field", line_no));
    if (fields->size() != header.size())
      throw Error(fmt::format("ncu CSV, line {}: {} fields where the header has {}", line_no, fields->size(),
                              header.size()));
    const auto& f = *fields;
    if (long_layout) {
      const auto value = parse_number(f[std::size_t(c_value)]);
      NcuLaunch& l = launch_for(f);
      if (value) {
        const std::string unit = c_unit >= 0 ? f[std::size_t(c_unit)] : "";
        l.metrics[f[std::size_t(c_metric)]] = *value * unit_scale(unit);
      }
      continue;
    }
    // Wide layout: the row right after the header that has an empty ID holds the units.
    if (!units_seen && f[std::size_t(c_id >= 0 ? c_id : 0)].empty()) {
      units = f;
      units_seen = true;
      continue;
    }
    NcuLaunch& l = launch_for(f);
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (is_fixed_column(header[i])) continue;
      if (auto v = parse_number(f[i])) l.metrics[header[i]] = *v * unit_scale(units[i]);
    }
  }
  if (launches.empty()) throw Error("the ncu CSV table has no kernel launch (no kernel was profiled)");
  return launches;
}

const std::vector<std::string>& ncu_metric_names() {
  static const std::vector<std::string> names = {
      "gpu__time_duration.sum",
      "launch__shared_mem_per_block_static",
      "launch__shared_mem_per_block_dynamic",
      "launch__registers_per_thread",
      "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
      "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "smsp__sass_inst_executed_op_global_ld.sum",
      "smsp__sass_inst_executed_op_global_st.sum",
      "sm__cycles_active.avg",
      "sm__cycles_elapsed.avg",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "smsp__inst_executed.sum",
      "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
      "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
      "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
  };
  return names;
}

double ProfileMetrics::measured_cgma(double) const {
  // Thread-level global accesses: 32 per warp-level request (every lane of a full warp accesses
  // once; a float4 counts as one access, lanes predicated off at the edges are counted too).
  const double accesses = 32.0 * (load_requests + store_requests);
  return accesses > 0 ? flops / accesses : 0;
}

double ProfileMetrics::flops_per_request() const {
  const double requests = load_requests + store_requests;
  return requests > 0 ? flops / requests : 0;
}

ProfileMetrics derive_profile(const std::vector<NcuLaunch>& launches) {
  if (launches.empty()) throw Error("no kernel launch to derive metrics from");
  ProfileMetrics p;
  p.launches = int(launches.size());
  std::vector<std::string> missing;
  auto sum = [&](const std::string& m) {
    double s = 0;
    bool any = false;
    for (const auto& l : launches)
      if (auto v = l.get(m)) {
        s += *v;
        any = true;
      }
    if (!any && std::find(missing.begin(), missing.end(), m) == missing.end()) missing.push_back(m);
    return s;
  };
  auto largest = [&](const std::string& m) {
    double best = 0;
    bool any = false;
    for (const auto& l : launches)
      if (auto v = l.get(m)) {
        best = std::max(best, *v);
        any = true;
      }
    if (!any) missing.push_back(m);
    return best;
  };
  // Percentages of one launch weigh by its duration (a 1 us helper kernel must not dilute a 10 ms GEMM).
  auto weighted = [&](const std::string& m) {
    double num = 0, den = 0;
    bool any = false;
    for (const auto& l : launches)
      if (auto v = l.get(m)) {
        const double w = l.get("gpu__time_duration.sum").value_or(1.0);
        num += *v * w;
        den += w;
        any = true;
      }
    if (!any) missing.push_back(m);
    return den > 0 ? num / den : 0;
  };
  for (const auto& l : launches)
    if (std::find(p.kernel_names.begin(), p.kernel_names.end(), l.kernel_name) == p.kernel_names.end())
      p.kernel_names.push_back(l.kernel_name);

  p.duration_ns = sum("gpu__time_duration.sum");
  p.static_smem_bytes = largest("launch__shared_mem_per_block_static");
  p.dynamic_smem_bytes = largest("launch__shared_mem_per_block_dynamic");
  p.registers_per_thread = largest("launch__registers_per_thread");
  p.load_sectors = sum("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  p.store_sectors = sum("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
  p.load_requests = sum("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  p.store_requests = sum("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
  // Requested bytes per launch from that launch's efficiency and sectors, then summed; the
  // efficiency of the whole is requested / (sectors x 32).
  for (const auto& l : launches) {
    const auto ld_pct = l.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
    const auto st_pct = l.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct");
    const auto ld_sec = l.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    const auto st_sec = l.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    if (ld_pct && ld_sec) p.requested_load_bytes += *ld_pct / 100.0 * 32.0 * *ld_sec;
    if (st_pct && st_sec) p.requested_store_bytes += *st_pct / 100.0 * 32.0 * *st_sec;
  }
  if (p.load_sectors > 0) p.load_efficiency_pct = 100.0 * p.requested_load_bytes / (32.0 * p.load_sectors);
  else weighted("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");  // records it if missing
  if (p.store_sectors > 0) p.store_efficiency_pct = 100.0 * p.requested_store_bytes / (32.0 * p.store_sectors);
  else weighted("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct");
  if (p.duration_ns > 0) {
    p.requested_load_gbs = p.requested_load_bytes / p.duration_ns;  // bytes per ns = GB/s
    p.requested_store_gbs = p.requested_store_bytes / p.duration_ns;
  }
  // Multiprocessor activity per launch (active / elapsed cycles, averaged over SMs), weighted by duration.
  {
    double num = 0, den = 0;
    for (const auto& l : launches) {
      const auto act = l.get("sm__cycles_active.avg"), el = l.get("sm__cycles_elapsed.avg");
      if (act && el && *el > 0) {
        const double w = l.get("gpu__time_duration.sum").value_or(1.0);
        num += 100.0 * *act / *el * w;
        den += w;
      }
    }
    if (den > 0) p.sm_activity_pct = num / den;
    else
      for (const char* m : {"sm__cycles_active.avg", "sm__cycles_elapsed.avg"})
        if (std::find(missing.begin(), missing.end(), m) == missing.end()) missing.push_back(m);
  }
  p.achieved_occupancy_pct = weighted("sm__warps_active.avg.pct_of_peak_sustained_active");
  p.warp_instructions = sum("smsp__inst_executed.sum");
  if (p.duration_ns > 0) p.gips = p.warp_instructions / p.duration_ns;  // per ns = G per s
  p.ffma = sum("sm__sass_thread_inst_executed_op_ffma_pred_on.sum");
  p.fadd = sum("sm__sass_thread_inst_executed_op_fadd_pred_on.sum");
  p.fmul = sum("sm__sass_thread_inst_executed_op_fmul_pred_on.sum");
  p.flops = 2.0 * p.ffma + p.fadd + p.fmul;
  p.dram_read_bytes = sum("dram__bytes_read.sum");
  p.dram_write_bytes = sum("dram__bytes_write.sum");
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  p.missing = missing;
  return p;
}

std::vector<NcuLaunch> select_launches(const std::vector<NcuLaunch>& all, const std::string& function) {
  if (function.empty()) return all;
  std::vector<NcuLaunch> out;
  // A whole identifier: "tiled" matches "void ns::tiled<16>(float *)" but not "tiled_double(...)".
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (const auto& l : all) {
    const std::string& n = l.kernel_name;
    for (std::size_t at = n.find(function); at != std::string::npos; at = n.find(function, at + 1)) {
      const std::size_t end = at + function.size();
      if ((at == 0 || !ident(n[at - 1])) && (end == n.size() || !ident(n[end]))) {
        out.push_back(l);
        break;
      }
    }
  }
  if (out.empty()) {
    std::vector<std::string> names;
    for (const auto& l : all)
      if (std::find(names.begin(), names.end(), l.kernel_name) == names.end()) names.push_back(l.kernel_name);
    throw Error(fmt::format("kernel '{}' not found in the profiler's output (it profiled: {})", function,
                            fmt::join(names, "; ")));
  }
  return out;
}

void check_ncu_output(const std::string& text, int exit_status) {
  auto has = [&](const char* s) { return text.find(s) != std::string::npos; };
  if (has("ERR_NVGPUCTRPERM"))
    throw Error("ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or allow "
                "profiling for all users (NVreg_RestrictProfilingToAdminUsers=0, see NVIDIA's ERR_NVGPUCTRPERM page)");
  if (has("LibraryNotLoaded") || has("Failed to load the CUDA driver"))
    throw Error("ncu could not load the CUDA driver or its profiling library (LibraryNotLoaded): is this a machine "
                "with an NVIDIA GPU and driver?");
  if (has("no CUDA GPU is available") || has("cudaErrorNoDevice") || has("no CUDA-capable device"))
    throw Error("ncu: the profiled program found no CUDA GPU");
  if (has("Failed to find metric") || has("Invalid metric") || has("unknown metric")) {
    // Quote ncu's own line: it names the metric.
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
      if (line.find("metric") != std::string::npos && line.find("==ERROR==") != std::string::npos)
        throw Error("ncu rejected a metric: " + line.substr(line.find("==ERROR==") + 9));
    throw Error("ncu rejected one of gemmlab's metrics (see 'ncu --query-metrics')");
  }
  if (has("No kernels were profiled"))
    throw Error("ncu profiled no kernel (the kernel was not launched between cudaProfilerStart and cudaProfilerStop)");
  // The profiled program's own error line, if it failed.
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("gemmlab: error: ", 0) == 0) throw Error("the profiled run failed: " + line.substr(16));
  if (exit_status != 0 && text.find("\"ID\"") == std::string::npos) {
    std::string last;
    std::istringstream again(text);
    while (std::getline(again, line))
      if (line.find("==ERROR==") != std::string::npos) last = line;
    throw Error(fmt::format("ncu failed (exit {}){}", exit_status, last.empty() ? std::string() : ": " + last));
  }
}

}  // namespace gemmlab
