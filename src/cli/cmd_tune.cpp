// gemmlab tune: the autotuner. Every parameter combination a kernel allows, on one shape,
// verified and timed; ranked fastest first, with cuBLAS from the same run.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"

namespace gemmlab::cli {

namespace {

struct TuneOptions {
  std::string kernel, json;
  ShapeOptions shape;
  TimingOptions timing;
  int top = 0;
};

void tune(const TuneOptions& o) {
  const Kernel& k = Registry::instance().get(o.kernel);
  const Shape shape = o.shape.resolve();
  std::vector<Params> combos = all_param_combinations(k);
  if (combos.size() <= 1 && k.info().params.empty())
    throw Error(fmt::format("kernel {} has no parameters to tune", k.info().id));
  Lab lab;
  TimingPlan plan = o.timing.resolve();
  RunSpec base;
  base.kernel = k.info().id;
  base.shape = shape;
  base.timing = plan;
  base.compare_cublas = false;

  RunSpec cb = base;
  cb.kernel = Registry::instance().baseline_for(k.info().precision).info().id;
  const RunResult cublas = run_gemm(lab, cb);
  const double cublas_ms = cublas.kernel.timing->ms.median;

  std::vector<RunResult> results;
  std::vector<nlohmann::json> records{to_json(cublas)};
  int rejected = 0;
  for (const Params& p : combos) {
    if (k.reject(shape, p, lab.device())) {
      ++rejected;
      continue;
    }
    RunSpec s = base;
    s.params = p;
    results.push_back(run_gemm(lab, s));
    nlohmann::json j = to_json(results.back());
    j["ratio_to_cublas"] = cublas_ms / results.back().kernel.timing->ms.median;
    j["cublas_kernel"] = cb.kernel;
    records.push_back(j);
    std::cerr << fmt::format("\r{}/{} configurations", results.size() + rejected, combos.size()) << std::flush;
  }
  std::cerr << "\n";
  std::sort(results.begin(), results.end(), [](const RunResult& a, const RunResult& b) {
    return a.kernel.timing->ms.median < b.kernel.timing->ms.median;
  });
  std::cout << fmt::format("tuning {} on {} ({}), {} configurations ({} not allowed for this shape)\n\n", k.info().id,
                           to_string(shape), lab.device().name, results.size(), rejected);
  Table t({"rank", "params", "median ms", "p10-p90 ms", "GFLOPS", "vs cuBLAS", "check"});
  int rank = 0;
  for (const RunResult& r : results) {
    if (o.top > 0 && rank >= o.top) break;
    const Stats& s = r.kernel.timing->ms;
    t.add({std::to_string(++rank), params_to_string(r.spec.params), fmt_ms(s.median),
           fmt::format("{}-{}", fmt_ms(s.p10), fmt_ms(s.p90)), fmt_gflops(r.gflops()),
           fmt_percent(cublas_ms / s.median), check_cell(r.kernel)});
  }
  t.add_separator();
  t.add({"", cb.kernel, fmt_ms(cublas_ms), "", fmt_gflops(cublas.gflops()), "100.0%", check_cell(cublas.kernel)});
  t.print(std::cout);
  if (!o.json.empty()) write_json_file(o.json, run_context(lab.device(), command_line()), records);
  for (const RunResult& r : results)
    if (!r.passed()) throw Error(fmt::format("{} failed verification", params_to_string(r.spec.params)));
}

}  // namespace

void add_tune_command(CLI::App& app) {
  static TuneOptions o;
  auto* cmd = app.add_subcommand("tune", "autotune: time every parameter combination of a kernel on one shape");
  cmd->add_option("--kernel", o.kernel, "kernel id")->required();
  o.shape.add_to(*cmd);
  o.timing.add_to(*cmd);
  cmd->add_option("--top", o.top, "show only the N fastest");
  cmd->add_option("--json", o.json, "write every measurement as JSON");
  cmd->callback([] { tune(o); });
}

}  // namespace gemmlab::cli
