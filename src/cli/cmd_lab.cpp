// gemmlab lab: the default lab. Every kernel (default parameters) and cuBLAS at a few sizes,
// verified and timed, one table per size.
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

namespace gemmlab::cli {

namespace {

struct LabOptions {
  std::string sizes = "256,1024,4096";
  std::string kernels = "*";
  int iters = 20;
  std::int64_t slow_limit = 1024;
  std::string json;
};

void run_lab(const LabOptions& o) {
  const std::vector<std::int64_t> sizes = parse_size_list(o.sizes);
  const Registry& reg = Registry::instance();
  std::vector<const Kernel*> kernels;
  for (const Kernel* k : reg.select(o.kernels))
    if (k->info().family != "baseline") kernels.push_back(k);
  if (kernels.empty()) throw Error(fmt::format("no kernel matches '{}'", o.kernels));
  Lab lab;
  std::cout << fmt::format("gemmlab lab on {} ({} SMs, {} MHz max SM clock): {} runs after 3 warm-ups, hot L2, "
                           "uniform random inputs, every result checked against float64\n",
                           lab.device().name, lab.device().sm_count, lab.device().clock_khz / 1000, o.iters);
  std::vector<nlohmann::json> all;
  bool all_passed = true;
  for (std::int64_t n : sizes) {
    const Shape shape{n, n, n};
    RunSpec base;
    base.shape = shape;
    base.timing = TimingPlan{3, o.iters, 2.0, false};
    base.compare_cublas = false;
    // cuBLAS once per precision and size; every kernel of that precision is compared to it.
    std::map<Precision, RunResult> cublas;
    Table t({"kernel", "params", "median ms", "stddev ms", "GFLOPS", "vs cuBLAS", "check"});
    auto baseline = [&](Precision p) -> const RunResult& {
      auto it = cublas.find(p);
      if (it == cublas.end()) {
        RunSpec s = base;
        s.kernel = reg.baseline_for(p).info().id;
        it = cublas.emplace(p, run_gemm(lab, s)).first;
        all.push_back(to_json(it->second));
      }
      return it->second;
    };
    for (const Kernel* k : kernels) {
      const KernelInfo& info = k->info();
      const Params params = resolve_params(*k, {});
      if (info.min_cc > lab.device().cc() || k->reject(shape, params, lab.device())) continue;
      if (info.slow && n > o.slow_limit) {
        t.add({info.id, params_to_string(params), "-", "-", "-", "-", fmt::format("skipped: slow by design above {}", o.slow_limit)});
        continue;
      }
      RunSpec s = base;
      s.kernel = info.id;
      const RunResult r = run_gemm(lab, s);
      const RunResult& cb = baseline(info.precision);
      const double ratio = cb.kernel.timing->ms.median / r.kernel.timing->ms.median;
      all_passed = all_passed && r.passed();
      nlohmann::json j = to_json(r);
      j["ratio_to_cublas"] = ratio;
      j["cublas_kernel"] = cb.spec.kernel;
      all.push_back(j);
      t.add({info.id, params_to_string(r.spec.params), fmt_ms(r.kernel.timing->ms.median),
             fmt_ms(r.kernel.timing->ms.stddev), fmt_gflops(r.gflops()), fmt_percent(ratio), check_cell(r.kernel)});
    }
    for (const auto& [p, cb] : cublas) {
      all_passed = all_passed && cb.passed();
      t.add({cb.spec.kernel, "", fmt_ms(cb.kernel.timing->ms.median), fmt_ms(cb.kernel.timing->ms.stddev),
             fmt_gflops(cb.gflops()), "100.0%", check_cell(cb.kernel)});
    }
    std::cout << fmt::format("\nM = N = K = {}\n", n);
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
  cmd->add_option("--kernels", o.kernels, "kernel ids, glob or family (default: all)");
  cmd->add_option("--iters", o.iters, "timed runs per kernel and size")->check(CLI::Range(1, 100000));
  cmd->add_option("--slow-limit", o.slow_limit, "largest size for kernels that are slow by design");
  cmd->add_option("--json", o.json, "write every result as JSON");
  cmd->callback([] { run_lab(o); });
}

}  // namespace gemmlab::cli
