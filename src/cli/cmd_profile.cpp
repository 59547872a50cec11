// gemmlab profile: one kernel launch under Nsight Compute, reported as seed 000's Table 1 (static
// shared memory, global load / store efficiency, requested throughputs, multiprocessor activity,
// achieved occupancy) plus seed 003's instructions per second, the FLOP count and the measured
// CGMA. --ncu-csv reads a recorded `ncu --csv --page raw` output instead of running ncu.
//
// Also the hidden `gemmlab profile-launch` command: the process ncu profiles.
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/profiling.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

namespace {

struct ProfileOptions {
  std::string kernel, ncu_csv, save_csv, json;
  ShapeOptions shape;
  ParamOptions params;
};

std::string gbs(double v) { return fmt::format("{:.2f}", v); }
std::string pct(double v) { return fmt::format("{:.2f}%", v); }
std::string count(double v) { return v >= 1e6 ? fmt::format("{:.4g}", v) : fmt::format("{:.0f}", v); }

void print_profile(const ProfileMetrics& m, const Kernel* k, const Params& params, const std::optional<Shape>& shape) {
  std::cout << fmt::format("profiled kernel{}: {}\n", m.kernel_names.size() > 1 ? "s" : "",
                           fmt::join(m.kernel_names, "; "));
  if (m.launches > 1) std::cout << fmt::format("{} launches, counters summed\n", m.launches);
  std::cout << "\n";
  // Seed 000, Table 1, on today's metrics.
  Table t({"kernel", "params", "size", "static smem (B)", "GMLE", "GMSE", "RGLT (GB/s)", "RGST (GB/s)",
           "SM activity", "achieved occupancy"});
  t.add({k ? k->info().id : std::string("-"), k ? params_to_string(params) : std::string("-"),
         shape ? to_string(*shape) : std::string("-"), fmt::format("{:.0f}", m.static_smem_bytes),
         pct(m.load_efficiency_pct), pct(m.store_efficiency_pct), gbs(m.requested_load_gbs),
         gbs(m.requested_store_gbs), pct(m.sm_activity_pct), pct(m.achieved_occupancy_pct)});
  t.print(std::cout);
  std::cout << "GMLE/GMSE: global load/store efficiency = requested bytes / (32-byte sectors x 32); RGLT/RGST: "
               "requested global load/store throughput (bytes the threads asked for / duration)\n\n";

  Table d({"quantity", "value", "note"});
  const double seconds = m.duration_ns * 1e-9;
  d.add({"duration", fmt::format("{:.4g} ms", m.duration_ns * 1e-6), "gpu__time_duration (one launch under ncu)"});
  d.add({"registers per thread", fmt::format("{:.0f}", m.registers_per_thread), ""});
  d.add({"dynamic shared memory per block", fmt::format("{:.0f} B", m.dynamic_smem_bytes), ""});
  d.add({"warp instructions executed", count(m.warp_instructions), "smsp__inst_executed"});
  d.add({"GIPS", fmt::format("{:.4g}", m.gips), "warp instructions per second / 1e9 (seed 003)"});
  const double model_flops = shape ? shape->flops() : 0;
  d.add({"FP32 flops counted", count(m.flops),
         model_flops > 0 ? fmt::format("2 x FFMA + FADD + FMUL = {:.4f} x 2MNK", m.flops / model_flops)
                         : std::string("2 x FFMA + FADD + FMUL")});
  if (seconds > 0 && model_flops > 0)
    d.add({"GFLOPS (2MNK / duration)", fmt_gflops(model_flops / seconds / 1e9), ""});
  d.add({"global load requests / sectors", fmt::format("{} / {}", count(m.load_requests), count(m.load_sectors)),
         "warp-level requests; 32-byte sectors"});
  d.add({"global store requests / sectors", fmt::format("{} / {}", count(m.store_requests), count(m.store_sectors)), ""});
  d.add({"DRAM read / written", fmt::format("{:.4g} / {:.4g} MB", m.dram_read_bytes / 1e6, m.dram_write_bytes / 1e6),
         seconds > 0 ? fmt::format("{:.1f} GB/s", m.dram_bytes() / seconds / 1e9) : std::string()});
  double element_bytes = 4;
  if (k && shape) {
    const TrafficModel tm = k->traffic(*shape, params);
    element_bytes = tm.element_bytes;
    d.add({"CGMA, kernel model", fmt::format("{:.4g}", tm.cgma()), "flops / elements loaded or stored (declared)"});
  }
  d.add({"CGMA, measured", fmt::format("{:.4g}", m.measured_cgma(element_bytes)),
         std::string("flops counted / (32 x warp-level requests): per thread-level access")});
  d.add({"flops per global request", fmt::format("{:.4g}", m.flops_per_request()), "per warp-level load/store request"});
  if (shape && m.dram_bytes() > 0 && model_flops > 0)
    d.add({"arithmetic intensity (DRAM)", fmt::format("{:.4g} flop/B", model_flops / m.dram_bytes()),
           "2MNK / DRAM bytes measured"});
  d.print(std::cout);
  if (!m.missing.empty())
    std::cout << fmt::format("note: the profile lacks {} (values derived from them are 0)\n", fmt::join(m.missing, ", "));
}

nlohmann::json to_json(const ProfileMetrics& m) {
  return {{"kernel_names", m.kernel_names},
          {"launches", m.launches},
          {"duration_ns", m.duration_ns},
          {"static_smem_bytes", m.static_smem_bytes},
          {"dynamic_smem_bytes", m.dynamic_smem_bytes},
          {"registers_per_thread", m.registers_per_thread},
          {"load_efficiency_pct", m.load_efficiency_pct},
          {"store_efficiency_pct", m.store_efficiency_pct},
          {"requested_load_gbs", m.requested_load_gbs},
          {"requested_store_gbs", m.requested_store_gbs},
          {"load_requests", m.load_requests},
          {"store_requests", m.store_requests},
          {"load_sectors", m.load_sectors},
          {"store_sectors", m.store_sectors},
          {"sm_activity_pct", m.sm_activity_pct},
          {"achieved_occupancy_pct", m.achieved_occupancy_pct},
          {"warp_instructions", m.warp_instructions},
          {"gips", m.gips},
          {"flops", m.flops},
          {"dram_read_bytes", m.dram_read_bytes},
          {"dram_write_bytes", m.dram_write_bytes},
          {"measured_cgma", m.measured_cgma()},
          {"missing_metrics", m.missing}};
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error(fmt::format("cannot open {}", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void profile(const ProfileOptions& o) {
  const Kernel* k = o.kernel.empty() ? nullptr : &Registry::instance().get(o.kernel);
  Params params;
  if (k) params = resolve_params(*k, o.params.resolve());
  std::optional<Shape> shape;
  if (o.shape.given()) shape = o.shape.resolve();

  ProfileMetrics m;
  if (!o.ncu_csv.empty()) {
    // A recorded profile: the kernel's launches if a kernel is named, all launches otherwise.
    const std::vector<NcuLaunch> all = parse_ncu_csv(read_text(o.ncu_csv));
    const std::string fn = k ? kernel_function_identifier(*k, shape.value_or(Shape{1024, 1024, 1024}), params) : "";
    m = derive_profile(select_launches(all, fn));
  } else {
    if (!k) throw Error("give --kernel ID (or --ncu-csv FILE to read a recorded profile)");
    if (!shape) throw Error("give a problem size: --size N, or -m M -n N -k K");
    const ProfileOutcome out = profile_with_ncu(*k, *shape, params);
    if (!o.save_csv.empty()) {
      std::ofstream f(o.save_csv);
      if (!f) throw Error(fmt::format("cannot write {}", o.save_csv));
      f << out.raw;
    }
    m = out.metrics;
  }
  print_profile(m, k, params, shape);
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    if (!f) throw Error(fmt::format("cannot write {}", o.json));
    nlohmann::json j = to_json(m);
    if (k) j["kernel"] = k->info().id;
    if (k) j["params"] = params_to_string(params);
    if (shape) j["shape"] = to_string(*shape);
    if (k && shape) j["model_cgma"] = k->traffic(*shape, params).cgma();
    j["command_line"] = command_line();
    f << j.dump(2) << "\n";
  }
}

struct LaunchOptions {
  std::string kernel;
  ShapeOptions shape;
  ParamOptions params;
};

}  // namespace

void add_profile_command(CLI::App& app) {
  static ProfileOptions o;
  auto* cmd = app.add_subcommand("profile", "profile one kernel launch with Nsight Compute (seed 000, Table 1)");
  cmd->add_option("--kernel", o.kernel, "kernel id (see 'gemmlab list')");
  o.shape.add_to(*cmd);
  o.params.add_to(*cmd);
  cmd->add_option("--ncu-csv", o.ncu_csv, "parse this recorded 'ncu --csv --page raw' output instead of running ncu");
  cmd->add_option("--save-csv", o.save_csv, "also write ncu's raw output to this file");
  cmd->add_option("--json", o.json, "write the metrics as JSON");
  cmd->callback([] { profile(o); });

  // The process ncu profiles. Hidden: an empty group keeps it out of --help.
  static LaunchOptions l;
  auto* launch = app.add_subcommand("profile-launch", "one launch between cudaProfilerStart/Stop (used by 'profile')");
  launch->group("");
  launch->add_option("--kernel", l.kernel, "kernel id")->required();
  l.shape.add_to(*launch);
  l.params.add_to(*launch);
  launch->callback([] {
    const Kernel& k = Registry::instance().get(l.kernel);
    const Params p = resolve_params(k, l.params.resolve());
    const Shape s = l.shape.resolve();
    Lab lab;
    launch_for_profiler(lab, k, s, p);
  });
}

}  // namespace gemmlab::cli
