// gemmlab sweep: kernels x parameter values x shapes x precisions, each verified and timed like
// `gemmlab run`, cuBLAS once per shape for the ratios, every result written as it comes.
// The logic is in src/sweep/; this file turns options into a SweepSpec and runs it on the GPU.
#include <charconv>
#include <filesystem>
#include <set>
#include <iostream>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/size_list.hpp"
#include "kernels/registry.hpp"
#include "results/identity.hpp"
#include "results/record.hpp"
#include "results/table.hpp"
#include "sweep/shapes.hpp"
#include "sweep/sweep.hpp"

namespace gemmlab::cli {

namespace {

struct SweepCliOptions {
  std::string kernels = "*", precisions, block;
  std::vector<std::string> params;
  bool all_params = false;
  std::string sizes, ms, ns, ks, shapes;
  bool zip = false;
  std::string output = "f32", init = "uniform";
  std::uint64_t seed = 1;
  TimingOptions timing;
  std::int64_t slow_limit = 1024;
  bool no_cublas = false;
  std::string json, csv;
  bool resume = false, overwrite = false, dry_run = false;
};


// "8,16,32" or "all".
ParamChoice parse_param_values(const std::string& name, const std::string& text) {
  ParamChoice c;
  if (text == "all") {
    c.all = true;
    return c;
  }
  for (const std::string& v : split_commas(text)) {
    int x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size())
      throw Error(fmt::format("parameter {}: '{}' is not an integer (give a list like 8,16,32, or all)", name, v));
    c.values.push_back(x);
  }
  return c;
}

SweepSpec make_spec(const SweepCliOptions& o) {
  SweepSpec spec;
  if (!o.block.empty()) spec.params["block"] = parse_param_values("block", o.block);
  for (const std::string& kv : o.params) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
      throw Error(fmt::format("--param expects NAME=VALUES (e.g. outputs=2,4 or outputs=all), got '{}'", kv));
    const std::string name = kv.substr(0, eq);
    if (spec.params.count(name)) throw Error(fmt::format("parameter '{}' is given twice", name));
    spec.params[name] = parse_param_values(name, kv.substr(eq + 1));
  }
  spec.all_params = o.all_params;
  // Shapes: --sizes (square), -m/-n/-k (product, or --zip), --shapes; together, their union.
  if (!o.sizes.empty()) append_unique(spec.shapes, square_shapes(parse_size_list(o.sizes)));
  if (!o.ms.empty() || !o.ns.empty() || !o.ks.empty()) {
    if (o.ms.empty() || o.ns.empty() || o.ks.empty()) throw Error("give all of -m, -n and -k (each a list or range)");
    append_unique(spec.shapes, shapes_from_dimensions(parse_size_list(o.ms), parse_size_list(o.ns),
                                                      parse_size_list(o.ks), o.zip));
  } else if (o.zip) {
    throw Error("--zip pairs the -m, -n and -k lists: give them");
  }
  if (!o.shapes.empty()) append_unique(spec.shapes, parse_shape_list(o.shapes));
  if (spec.shapes.empty()) throw Error("give the sizes to sweep: --sizes 256:4096:x2, -m/-n/-k lists, or --shapes MxNxK");
  spec.output = o.output;
  spec.timing = o.timing.resolve();
  spec.init = o.init == "linear" ? Init::linear : Init::uniform;
  spec.seed = o.seed;
  spec.slow_limit = o.slow_limit;
  spec.compare_cublas = !o.no_cublas;
  return spec;
}

void print_plan(const std::vector<SweepItem>& plan, const std::vector<nlohmann::json>& done_records) {
  std::set<std::string> done;
  for (const auto& r : done_records) done.insert(config_key(r));
  Table t({"#", "kernel", "params", "precision", "C", "shape", "plan"});
  std::size_t n = 0, measure = 0;
  for (const SweepItem& item : plan) {
    std::string what = done.count(item.key) ? "already done" : item.skip_reason ? "skip: " + *item.skip_reason : "measure";
    if (what == "measure") ++measure;
    t.add({std::to_string(++n), item.kernel->info().id, params_to_string(item.params),
           std::string(precision_name(item.precision)), std::string(dtype_name(item.output)), to_string(item.shape),
           what});
  }
  t.print(std::cout);
  std::cout << fmt::format("{} items, {} to measure\n", plan.size(), measure);
}

void run_sweep_command(const SweepCliOptions& o) {
  // Everything that needs no GPU is checked first.
  const SweepSpec spec = make_spec(o);
  std::vector<Precision> precisions;
  if (!o.precisions.empty())
    for (const std::string& p : split_commas(o.precisions)) precisions.push_back(parse_precision_option(p));
  const std::vector<const Kernel*> kernels = select_kernels(split_commas(o.kernels), precisions);
  validate_sweep(spec, kernels);
  if (o.resume && o.overwrite) throw Error("--resume continues the files, --overwrite replaces them: choose one");
  if (!o.dry_run && o.json.empty() && o.csv.empty())
    throw Error("a sweep writes its results as it goes: give --json FILE and/or --csv FILE");

  Lab lab;
  const std::vector<SweepItem> plan = plan_sweep(spec, kernels, lab.device());
  if (o.dry_run) {
    std::vector<nlohmann::json> done;
    for (const std::string& f : {o.json, o.csv})
      if (o.resume && done.empty() && !f.empty() && std::filesystem::exists(f))
        done = read_results_file(f)["results"].get<std::vector<nlohmann::json>>();
    print_plan(plan, done);
    return;
  }
  SweepOutput output(o.json, o.csv, run_context(lab.device(), command_line()));
  output.open(o.resume, o.overwrite);
  if (output.resumed_count() > 0)
    std::cerr << fmt::format("resuming: {} records already in the results file\n", output.resumed_count());

  const SweepRunner runner = [&lab](const RunSpec& s) {
    try {
      return run_gemm(lab, s);
    } catch (const Error& e) {
      // A kernel that faults leaves the CUDA context unusable: every later item would fail the
      // same way, so stop (the results so far are in the files; --resume continues later).
      if (const cudaError_t bad = cudaDeviceSynchronize(); bad != cudaSuccess)
        throw SweepAbort(fmt::format("{}; the GPU context is lost ({}), stopping the sweep: fix the kernel, "
                                     "then rerun with --resume",
                                     e.what(), cudaGetErrorString(bad)));
      (void)cudaGetLastError();  // clear a non-sticky error before the next item
      throw;
    }
  };
  SweepProgress progress(std::cerr, isatty(fileno(stderr)) != 0);
  const SweepOutcome r = run_sweep(plan, spec, runner, output, progress);

  std::cout << fmt::format("sweep on {}: {} measured and verified, {} failed verification, {} errors, {} skipped, "
                           "{} already done\n",
                           lab.device().name, r.measured, r.failed, r.errors, r.skipped, r.resumed);
  // Records resumed from a file are read as text, whatever the types of their fields.
  for (const auto& rec : output.records()) {
    const std::string status = field_text(rec, "status");
    if (status == "verification-failed" || status == "error")
      std::cout << fmt::format("  {}: {} {} {}x{}x{}{}\n", status, field_text(rec, "kernel"), field_text(rec, "params"),
                               field_text(rec, "m"), field_text(rec, "n"), field_text(rec, "k"),
                               rec.contains("reason") ? ": " + field_text(rec, "reason") : std::string());
  }
  std::vector<std::string> files;
  for (const std::string& f : {o.json, o.csv})
    if (!f.empty()) files.push_back(f);
  std::cout << fmt::format("results: {} (draw them: gemmlab report {} -o report)\n", fmt::join(files, ", "),
                           files.front());
  if (!r.ok())
    throw Error(fmt::format("{} configurations failed verification and {} could not be measured (status column)",
                            r.failed, r.errors));
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  static SweepCliOptions o;
  o.timing.iters = 50;  // a sweep measures many configurations: fewer runs each than `run`
  o.timing.max_seconds = 2.0;
  auto* cmd = app.add_subcommand("sweep", "kernels x parameters x sizes x precisions, verified and timed, "
                                          "written as they come (resumable)");
  cmd->add_option("--kernels", o.kernels, "kernel ids, families or globs, comma-separated (default: all)");
  cmd->add_option("--precision", o.precisions, "only kernels of these precisions, e.g. fp32,bf16");
  cmd->add_option("-b,--block", o.block, "block sizes to sweep, e.g. 8,16,32 (or all)");
  cmd->add_option("-p,--param", o.params, "NAME=VALUES to sweep, e.g. outputs=2,4 or outputs=all (repeatable)");
  cmd->add_flag("--all-params", o.all_params, "parameters not given: every allowed value (default: the default)");
  cmd->add_option("--sizes", o.sizes, "square sizes: list or range, e.g. 256,512 or 256:8192:x2 or 1000:5000:+1000");
  cmd->add_option("-m", o.ms, "rows of A and C: list or range (with -n, -k: their product, or --zip)");
  cmd->add_option("-n", o.ns, "columns of B and C: list or range");
  cmd->add_option("-k", o.ks, "columns of A, rows of B: list or range");
  cmd->add_flag("--zip", o.zip, "pair the -m, -n, -k lists element by element instead of their product");
  cmd->add_option("--shapes", o.shapes, "explicit shapes MxNxK, comma-separated, suite (the shape suite) or heldout[:SEED] (its held-out shapes)");
  o.timing.add_to(*cmd);
  cmd->add_option("--output", o.output, "type of C: f32 (default), same (the operand type), bf16, f16");
  cmd->add_option("--init", o.init, "input values: uniform in [-1,1) or the seeds' LinearInit")
      ->check(CLI::IsMember({"uniform", "linear"}));
  cmd->add_option("--seed", o.seed, "random seed for uniform inputs");
  cmd->add_option("--slow-limit", o.slow_limit, "largest size for kernels that are slow by design (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-cublas", o.no_cublas, "do not measure cuBLAS for the ratios");
  cmd->add_option("--json", o.json, "results file, rewritten (atomically) after every result");
  cmd->add_option("--csv", o.csv, "results file, one row appended per result");
  cmd->add_flag("--resume", o.resume, "continue the sweep in the results file: skip what it already holds");
  cmd->add_flag("--overwrite", o.overwrite, "replace existing results files");
  cmd->add_flag("--dry-run", o.dry_run, "print the plan (what runs, what is skipped and why) and stop");
  cmd->callback([] { run_sweep_command(o); });
}

}  // namespace gemmlab::cli
