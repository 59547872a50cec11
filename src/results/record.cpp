#include "results/record.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "harness/l2_flush.hpp"
#include "kernels/registry.hpp"
#include "results/csv_input.hpp"


namespace gemmlab {

std::string iso_date_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string git_commit() { return build_commit(); }

nlohmann::json run_context(const DeviceInfo& dev, const std::string& command_line) {
  const SoftwareVersions v = software_versions();
  return {
      {"device", dev.name},
      {"compute_capability", fmt::format("{}.{}", dev.cc_major, dev.cc_minor)},
      {"sm_count", dev.sm_count},
      {"max_sm_clock_mhz", dev.clock_khz / 1000},
      {"memory_clock_mhz", dev.memory_clock_khz / 1000},
      {"theoretical_fp32_tflops", dev.peak_fp32_tflops()},
      {"theoretical_dram_gbs", dev.peak_dram_gbs()},
      {"l2_bytes", dev.l2_bytes},
      // How a cold run's L2 was flushed (harness/l2_flush.hpp): by a read, or by a write as before.
      {"l2_flush", L2Flush::name(L2Flush::mode_from_environment())},
      {"driver", v.driver},
      {"cuda_runtime", v.runtime},
      {"cublas", v.cublas},
      {"gemmlab_commit", git_commit()},
      {"date", iso_date_now()},
      {"command", command_line},
  };
}

namespace {

void put_stats(nlohmann::json& j, const std::string& prefix, const Stats& s) {
  j[prefix + "_min_ms"] = s.min;
  j[prefix + "_max_ms"] = s.max;
  j[prefix + "_mean_ms"] = s.mean;
  j[prefix + "_median_ms"] = s.median;
  j[prefix + "_stddev_ms"] = s.stddev;
  j[prefix + "_p10_ms"] = s.p10;
  j[prefix + "_p90_ms"] = s.p90;
}

void put_verification(nlohmann::json& j, const std::string& prefix, const KernelRun& k) {
  // The worse of the two checks (first run, last timed run) is what we report.
  const Verification& a = k.first;
  const Verification& b = k.last.checked ? k.last : k.first;
  j[prefix + "_verified"] = a.checked;
  j[prefix + "_passed"] = k.passed();
  j[prefix + "_rel_error"] = std::max(a.rel_frobenius, b.rel_frobenius);
  j[prefix + "_max_abs_error"] = std::max(a.max_abs_error, b.max_abs_error);
  j[prefix + "_elementwise_error"] = std::max(a.max_elementwise, b.max_elementwise);
  j[prefix + "_nonfinite"] = std::max(a.nonfinite, b.nonfinite);
}

}  // namespace

nlohmann::json to_json(const RunResult& r) {
  nlohmann::json j;
  j["kernel"] = r.spec.kernel;
  j["family"] = r.family;
  j["title"] = r.title;
  j["params"] = params_to_string(r.spec.params);
  for (const auto& [name, value] : r.spec.params) j["param_" + name] = value;
  j["precision"] = std::string(precision_name(r.precision));
  j["output"] = std::string(dtype_name(r.spec.output));
  j["m"] = r.spec.shape.m;
  j["n"] = r.spec.shape.n;
  j["k"] = r.spec.shape.k;
  j["alpha"] = r.spec.alpha;
  j["beta"] = r.spec.beta;
  j["l2"] = r.spec.timing.flush_l2 ? "cold" : "hot";
  j["warmup"] = r.spec.timing.warmup;
  j["init"] = r.spec.inputs.init == Init::uniform ? "uniform" : "linear";
  j["seed"] = r.spec.inputs.seed;
  j["flops"] = r.traffic.flops;
  j["model_global_loads"] = r.traffic.global_loads;
  j["model_global_stores"] = r.traffic.global_stores;
  j["model_cgma"] = r.traffic.cgma();
  if (r.kernel.timing) {
    j["iters"] = r.kernel.timing->iters;
    j["timing_held"] = r.kernel.timing->held;
    put_stats(j, "time", r.kernel.timing->ms);
    j["gflops"] = r.gflops();
    j["samples_ms"] = r.kernel.timing->samples;
  }
  put_verification(j, "kernel", r.kernel);
  if (r.cublas) {
    j["cublas_kernel"] = r.cublas->id;
    if (r.cublas->timing) {
      put_stats(j, "cublas_time", r.cublas->timing->ms);
      j["cublas_gflops"] = r.cublas_gflops();
      j["ratio_to_cublas"] = r.ratio_to_cublas();
      j["timing_order"] = r.spec.timing.interleave ? "interleaved" : "kernel then cublas";
    }
    put_verification(j, "cublas", *r.cublas);
  }
  if (r.conversion_ms) put_stats(j, "conversion", *r.conversion_ms);
  j["status"] = r.passed() ? "ok" : "verification-failed";
  return j;
}

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> cols = {
      "kernel", "family", "params", "precision", "output", "m", "n", "k", "alpha", "beta", "l2", "init",
      "iters", "time_min_ms", "time_max_ms", "time_mean_ms", "time_median_ms", "time_stddev_ms", "time_p10_ms",
      "time_p90_ms", "gflops", "cublas_kernel", "cublas_time_median_ms", "cublas_gflops", "ratio_to_cublas",
      "kernel_passed", "kernel_rel_error", "kernel_elementwise_error", "kernel_nonfinite", "cublas_passed",
      "model_cgma", "conversion_median_ms", "status", "reason"};
  return cols;
}

std::string csv_header() { return fmt::format("{}\n", fmt::join(csv_columns(), ",")); }

namespace {
std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") != std::string::npos) {
      std::string q = "\"";
      for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
      return q + "\"";
    }
    return s;
  }
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return v.dump();
}
}  // namespace

std::string csv_row(const nlohmann::json& flat) {
  std::vector<std::string> cells;
  for (const auto& c : csv_columns()) cells.push_back(flat.contains(c) ? csv_cell(flat[c]) : "");
  return fmt::format("{}\n", fmt::join(cells, ","));
}

void write_json_file(const std::string& path, const nlohmann::json& context, const std::vector<nlohmann::json>& results) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw Error(fmt::format("{}: cannot open for writing", path));
    out << nlohmann::json{{"context", context}, {"results", results}}.dump(1) << '\n';
    if (!out) throw Error(fmt::format("{}: write error", path));
  }
  std::filesystem::rename(tmp, path);  // atomic: the file is always complete
}

void write_csv_file(const std::string& path, const std::vector<nlohmann::json>& results) {
  std::ofstream out(path);
  if (!out) throw Error(fmt::format("{}: cannot open for writing", path));
  out << csv_header();
  for (const auto& r : results) out << csv_row(r);
  if (!out) throw Error(fmt::format("{}: write error", path));
}

void append_csv_row(const std::string& path, const nlohmann::json& flat) {
  const bool fresh = !std::filesystem::exists(path) || std::filesystem::file_size(path) == 0;
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error(fmt::format("{}: cannot open for writing", path));
  if (fresh) out << csv_header();
  out << csv_row(flat);
  out.flush();
  if (!out) throw Error(fmt::format("{}: write error", path));
}

nlohmann::json read_results_file(const std::string& path) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0) return read_csv_results(path);
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    nlohmann::json j = nlohmann::json::parse(ss.str());
    if (!j.contains("results") || !j["results"].is_array())
      throw Error(fmt::format("{}: not a gemmlab results file (no \"results\" array)", path));
    return j;
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
    throw Error(fmt::format("{}: not valid JSON ({})", path, e.what()));
  }
}

}  // namespace gemmlab
