// gemmlab lab: the default lab. Every kernel (default parameters) and cuBLAS at a few sizes,
// verified and timed, one table per size; with several shapes, a summary of every kernel's share
// of cuBLAS and its geometric mean over the shapes. By default cuBLAS is timed once per precision
// and size, after the kernels; with --interleave every kernel is timed alternately with a cuBLAS
// run of its own, so that both medians come from the same stretch of clocks and power.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/size_list.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"
#include "sweep/plan.hpp"
#include "sweep/shapes.hpp"

namespace gemmlab::cli {

namespace {

struct LabOptions {
  std::string sizes = "256,1024,4096";
  std::string shapes;  // MxNxK list: replaces the square sizes
  std::string kernels = "*";
  std::string output = "f32";
  int iters = 20;
  bool interleave = false;
  std::int64_t slow_limit = 1024;
  std::string json;
};

void run_lab(const LabOptions& o) {
  const std::vector<Shape> shapes = o.shapes.empty() ? square_shapes(parse_size_list(o.sizes)) : parse_shape_list(o.shapes);
  for (const Shape& s : shapes) validate_shape(s);
  if (o.output != "f32" && o.output != "same") throw Error(fmt::format("--output must be f32 or same, not '{}'", o.output));
  const Registry& reg = Registry::instance();
  std::vector<const Kernel*> kernels;
  for (const Kernel* k : select_kernels(split_commas(o.kernels), {}))
    if (k->info().family != "baseline") kernels.push_back(k);
  if (kernels.empty()) throw Error(fmt::format("no kernel matches '{}'", o.kernels));
  Lab lab;
  std::cout << fmt::format("gemmlab lab on {} ({} SMs, {} MHz max SM clock): {} runs after 3 warm-ups, hot L2, "
                           "uniform random inputs, C as {}, every result checked against float64{}\n",
                           lab.device().name, lab.device().sm_count, lab.device().clock_khz / 1000, o.iters,
                           o.output == "f32" ? "f32" : "the operand type",
                           o.interleave ? "; each kernel timed alternately with cuBLAS, run by run" : "");
  std::vector<nlohmann::json> all;
  bool all_passed = true;
  // Summary: kernel -> shape -> share of cuBLAS (cuBLAS median / kernel median).
  std::map<std::string, std::map<std::string, double>> share;
  std::vector<std::string> kernel_order;
  for (const Shape& shape : shapes) {
    RunSpec base;
    base.shape = shape;
    base.timing = TimingPlan{3, o.iters, 2.0, false};
    base.compare_cublas = false;
    // cuBLAS once per precision and size; every kernel of that precision is compared to it.
    std::map<Precision, RunResult> cublas;
    Table t = o.interleave ? Table({"kernel", "params", "median ms", "stddev ms", "GFLOPS", "cuBLAS ms", "vs cuBLAS", "check"})
                           : Table({"kernel", "params", "median ms", "stddev ms", "GFLOPS", "vs cuBLAS", "check"});
    auto output_for = [&](Precision p) { return o.output == "f32" ? DType::f32 : operand_type(p); };
    auto baseline = [&](Precision p) -> const RunResult& {
      auto it = cublas.find(p);
      if (it == cublas.end()) {
        RunSpec s = base;
        s.kernel = reg.baseline_for(p).info().id;
        s.output = output_for(p);
        it = cublas.emplace(p, run_gemm(lab, s)).first;
        all.push_back(to_json(it->second));
      }
      return it->second;
    };
    for (const Kernel* k : kernels) {
      const KernelInfo& info = k->info();
      const Params params = resolve_params(*k, {});
      // A kernel that cannot take this shape, device or output type gets a row that says why.
      auto not_run = [&](const std::string& why) {
        std::vector<std::string> row{info.id, params_to_string(params), "-", "-", "-"};
        if (o.interleave) row.push_back("-");
        row.push_back("-");
        row.push_back(why);
        t.add(row);
      };
      const DType out = output_for(info.precision);
      if (info.min_cc > lab.device().cc()) {
        not_run(fmt::format("rejected: needs compute capability {}.{}", info.min_cc / 10, info.min_cc % 10));
        continue;
      }
      if (const auto why = k->reject(shape, params, lab.device())) {
        not_run("rejected: " + *why);
        continue;
      }
      if (std::find(info.outputs.begin(), info.outputs.end(), out) == info.outputs.end()) {
        not_run(fmt::format("rejected: no {} output", dtype_name(out)));
        continue;
      }
      if (info.slow && std::max({shape.m, shape.n, shape.k}) > o.slow_limit) {
        not_run(fmt::format("skipped: slow by design above {}", o.slow_limit));
        continue;
      }
      RunSpec s = base;
      s.kernel = info.id;
      s.output = out;
      s.compare_cublas = o.interleave;  // its own cuBLAS runs, alternating with its runs
      s.timing.interleave = o.interleave;
      const RunResult r = run_gemm(lab, s);
      double ratio = 0;
      nlohmann::json j = to_json(r);  // with --interleave it carries the paired cuBLAS timing
      if (o.interleave) {
        ratio = r.ratio_to_cublas();
      } else {
        const RunResult& cb = baseline(info.precision);
        ratio = cb.kernel.timing->ms.median / r.kernel.timing->ms.median;
        j["ratio_to_cublas"] = ratio;
        j["cublas_kernel"] = cb.spec.kernel;
      }
      if (!share.count(info.id)) kernel_order.push_back(info.id);
      share[info.id][to_string(shape)] = ratio;
      all_passed = all_passed && r.passed();
      all.push_back(j);
      std::vector<std::string> row{info.id, params_to_string(r.spec.params), fmt_ms(r.kernel.timing->ms.median),
                                   fmt_ms(r.kernel.timing->ms.stddev), fmt_gflops(r.gflops())};
      if (o.interleave) {
        const KernelRun& cb = *r.cublas;
        row.push_back(cb.passed() ? fmt_ms(cb.timing->ms.median) : fmt_ms(cb.timing->ms.median) + " (" + check_cell(cb) + ")");
      }
      row.push_back(fmt_percent(ratio));
      row.push_back(check_cell(r.kernel));
      t.add(row);
    }
    for (const auto& [p, cb] : cublas) {
      all_passed = all_passed && cb.passed();
      t.add({cb.spec.kernel, "", fmt_ms(cb.kernel.timing->ms.median), fmt_ms(cb.kernel.timing->ms.stddev),
             fmt_gflops(cb.gflops()), "100.0%", check_cell(cb.kernel)});
    }
    if (shape.m == shape.n && shape.n == shape.k) std::cout << fmt::format("\nM = N = K = {}\n", shape.m);
    else std::cout << fmt::format("\nM x N x K = {}\n", to_string(shape));
    t.print(std::cout);
  }
  if (shapes.size() > 1 && !kernel_order.empty()) {
    // One row per kernel: its share of cuBLAS at every shape, and the geometric mean.
    std::vector<std::string> header{"kernel"};
    for (const Shape& s : shapes) header.push_back(to_string(s));
    header.push_back("geomean");
    Table t(header);
    for (const std::string& id : kernel_order) {
      std::vector<std::string> row{id};
      double log_sum = 0;
      int n = 0;
      for (const Shape& s : shapes) {
        auto it = share[id].find(to_string(s));
        if (it == share[id].end()) {
          row.push_back("-");
          continue;
        }
        row.push_back(fmt_percent(it->second));
        log_sum += std::log(it->second);
        ++n;
      }
      row.push_back(n == int(shapes.size()) ? fmt_percent(std::exp(log_sum / n)) : "-");
      t.add(row);
    }
    std::cout << fmt::format("\nshare of cuBLAS (cuBLAS median / kernel median, same precision and output, same run{})\n",
                             o.interleave ? ", timed alternately" : "");
    t.print(std::cout);
  }
  if (!o.json.empty()) write_json_file(o.json, run_context(lab.device(), command_line()), all);
  if (!all_passed) throw Error("at least one kernel failed verification (see the check column)");
}

}  // namespace

void add_lab_command(CLI::App& app) {
  static LabOptions o;
  auto* cmd = app.add_subcommand("lab", "the default lab: every kernel and cuBLAS at a few sizes");
  cmd->add_option("--sizes", o.sizes, "square sizes (list or range, e.g. 256,1024 or 256:4096:x2)");
  cmd->add_option("--shapes", o.shapes, "MxNxK shapes instead of square sizes, e.g. 4097x4095x4093,1000x1000x1000, suite (the shape suite) or heldout[:SEED] (its held-out shapes)");
  cmd->add_option("--output", o.output, "type of C: f32 (default) or same (the operand type)");
  cmd->add_option("--kernels", o.kernels, "kernel ids, globs or families, comma-separated (default: all)");
  cmd->add_option("--iters", o.iters, "timed runs per kernel and size")->check(CLI::Range(1, 100000));
  cmd->add_flag("--interleave", o.interleave,
                "time every kernel alternately with cuBLAS, run by run (default: cuBLAS once per precision and size, "
                "after the kernels)");
  cmd->add_option("--slow-limit", o.slow_limit, "largest size for kernels that are slow by design");
  cmd->add_option("--json", o.json, "write every result as JSON");
  cmd->callback([] { run_lab(o); });
}

}  // namespace gemmlab::cli
