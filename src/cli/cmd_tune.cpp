// gemmlab tune: the autotuner. Every parameter combination a kernel allows, on one shape,
// verified and timed; ranked fastest first, with cuBLAS from the same run.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "api/problem.hpp"
#include "cli/api_options.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "dispatch/dispatch.hpp"
#include "gemmlab/gemmlab.hpp"
#include "harness/anchors.hpp"
#include "harness/timing.hpp"
#include "kernels/registry.hpp"
#include "reference/api_reference.hpp"
#include "results/record.hpp"

namespace gemmlab::cli {

namespace {

struct TuneOptions {
  std::string kernel, json, table;
  std::string precisions = "bf16,fp16,tf32,fp32";
  std::string layout = "NN";  // with auto.<precision>: op(A) op(B) of row-major operands
  // With auto.<precision>: a fused epilogue (ApiOptions' values), whose candidates dispatch may
  // differ from the plain call's.
  std::string bias = "none", activation = "none";
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

// ---- gemmlab tune --table: the library's dispatch table for this GPU -----------------------------

// The grid a table is measured on: squares, and the flat, tall and deep shapes a model call makes.
// Entries serve shapes within a factor of 1.5 in every dimension (Table::nearest); the model
// serves the rest.
struct GridShape {
  std::int64_t m, n, k;
};
constexpr GridShape kTableGrid[] = {
    {256, 256, 256},    {512, 512, 512},     {1024, 1024, 1024}, {2048, 2048, 2048}, {3072, 3072, 3072},
    {4096, 4096, 4096}, {6144, 6144, 6144},  {8192, 8192, 8192}, {128, 4096, 4096},  {4096, 4096, 1024},
    {768, 3072, 768},   {8192, 8192, 1024},  {1024, 1024, 8192}, {16384, 4096, 4096},
};

// One class of the table: operand and output types, compute, layout (ops on row-major storage).
struct TableClass {
  DataType ab, cd;
  Compute compute;
  const char* layout;
};

std::vector<TableClass> table_classes(const std::string& precisions) {
  std::vector<TableClass> out;
  auto wants = [&](std::string_view p) {
    for (std::size_t a = 0, b; a <= precisions.size(); a = b + 1) {
      b = precisions.find(',', a);
      if (b == std::string::npos) b = precisions.size();
      if (precisions.substr(a, b - a) == p) return true;
    }
    return false;
  };
  for (std::string_view p : {"bf16", "fp16"}) {
    if (!wants(p)) continue;
    const DataType t = p == "bf16" ? DataType::bf16 : DataType::f16;
    // Same-type output and FP32 output; NN and NT (B stored N x K: torch.nn.Linear's weights).
    for (DataType cd : {t, DataType::f32})
      for (const char* layout : {"NN", "NT"}) out.push_back({t, cd, Compute::f32, layout});
  }
  if (wants("tf32"))
    for (const char* layout : {"NN", "NT", "TN"}) out.push_back({DataType::f32, DataType::f32, Compute::tf32, layout});
  if (wants("fp32")) out.push_back({DataType::f32, DataType::f32, Compute::f32, "NN"});
  if (out.empty()) throw Error(fmt::format("--precisions: '{}' names none of bf16, fp16, tf32, fp32", precisions));
  return out;
}

// The device-name substring a table serves: the first word with a digit after the vendor
// ("NVIDIA H100 80GB HBM3" -> "H100").
std::string device_match(const std::string& name) {
  std::size_t a = 0;
  while (a < name.size()) {
    std::size_t b = name.find(' ', a);
    if (b == std::string::npos) b = name.size();
    const std::string word = name.substr(a, b - a);
    if (word != "NVIDIA" && word.find_first_of("0123456789") != std::string::npos) return word;
    a = b + 1;
  }
  return name;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text << '\n';
  if (!out.flush()) throw Error(fmt::format("--table: cannot write {}", path));
}

// Every candidate dispatch offers for one problem of class tc, each checked against float64, then
// timed (the model's pick first; a candidate whose checked run takes over twice the best median,
// the generic kernel on a large problem, is checked but not timed), and cuBLAS in the same run.
struct CandidateTimes {
  detail::Problem problem;
  struct Timed {
    Plan plan;
    detail::Choice choice;
    double ms = 0;  // 0: checked, not timed
  };
  std::vector<Timed> candidates;  // the model's pick first
  int best = -1;
  double model_ms = 0, cublas_ms = 0;
  std::string anchor = "cuBLAS", anchor_missing;  // the anchor's name, or why there is none
  Plan chosen;  // what gemmlab::gemm runs (the table's choice where it has one)
};

// `epilogue`: the call's fused epilogue (its bias pointer is filled here), none by default.
CandidateTimes time_candidates(Lab& lab, const Context& ctx, const TableClass& tc, std::int64_t m, std::int64_t n,
                               std::int64_t k, const TimingPlan& plan, const Epilogue& epilogue = {}) {
  const cudaStream_t s = lab.stream();
  Gemm g;
  g.epilogue = epilogue;
  g.m = m, g.n = n, g.k = k;
  g.a.type = g.b.type = tc.ab;
  g.d.type = g.c.type = tc.cd;
  g.compute = tc.compute;
  g.op_a = tc.layout[0] == 'T' ? Op::transpose : Op::none;
  g.op_b = tc.layout[1] == 'T' ? Op::transpose : Op::none;
  using apiref::Layout;
  const Layout la = apiref::operand_layout(g.a.type, g.a.order, g.op_a, g.m, g.k);
  const Layout lb = apiref::operand_layout(g.b.type, g.b.order, g.op_b, g.k, g.n);
  const Layout ld = apiref::operand_layout(g.d.type, g.d.order, Op::none, g.m, g.n);
  apiref::TestMatrix a(la, s), b(lb, s), d(ld, s);
  a.fill_uniform(21, 1, s);
  b.fill_uniform(21, 2, s);
  g.a = a.input(), g.b = b.input(), g.d = d.output();
  std::unique_ptr<apiref::TestMatrix> bias;
  if (g.epilogue.bias_kind != BiasKind::none) {
    const std::int64_t len = g.epilogue.bias_kind == BiasKind::per_row ? m : n;
    bias = std::make_unique<apiref::TestMatrix>(Layout{g.epilogue.bias_type.value_or(g.d.type), Order::row_major, 1, len}, s);
    bias->fill_uniform(21, 3, s);
    g.epilogue.bias = bias->data();
  }
  const apiref::Reference ref = apiref::reference(g, 1.0, 0.0, s);
  const Tolerance tol = apiref::tolerance_for(g.a.type, g.d.type, g.compute);
  CandidateTimes out;
  out.problem = detail::normalize(g);
  const detail::Problem& p = out.problem;
  const detail::LaunchEnv env{s, ctx.impl().workspace.view(), &ctx.impl().device};
  // The model's own pick (the table left out), for the record.
  detail::ContextImpl model_only = ctx.impl();
  model_only.table = {};
  const detail::Choice model_choice = detail::choose(model_only, p, env.scratch.bytes);
  const Plan model_plan = detail::describe(model_choice, p);
  out.chosen = gemmlab::plan(ctx, g);
  bool model_first = false;
  auto same = [](const Plan& a, const Plan& b) { return a.kernel == b.kernel && a.config == b.config; };
  std::vector<detail::Choice> list = detail::candidates(ctx.impl(), p, env.scratch.bytes);
  // The model's pick and the call's own choice, and each with its split count halved and doubled,
  // are timed too where the candidates' grid lacks them (the models weigh split counts up to 128,
  // the grid has 2 to 8).
  const detail::Choice call_choice = detail::choose(ctx.impl(), p, env.scratch.bytes);
  std::vector<detail::Choice> own = {model_choice, call_choice};
  for (const detail::Choice& pick : {model_choice, call_choice})
    for (const detail::Choice& c : detail::split_neighbours(ctx.impl(), p, pick, env.scratch.bytes)) own.push_back(c);
  for (const detail::Choice& o : own) {
    const Plan own_plan = detail::describe(o, p);
    if (std::none_of(list.begin(), list.end(), [&](const detail::Choice& c) { return same(detail::describe(c, p), own_plan); }))
      list.push_back(o);
  }
  for (const detail::Choice& c : list) {
    CandidateTimes::Timed t{detail::describe(c, p), c, 0};
    if (!model_first && same(t.plan, model_plan)) {
      out.candidates.insert(out.candidates.begin(), t);
      model_first = true;
    } else {
      out.candidates.push_back(t);
    }
  }
  for (std::size_t i = 0; i < out.candidates.size(); ++i) {
    CandidateTimes::Timed& t = out.candidates[i];
    auto run = [&] { detail::execute(t.choice, p, env); };
    // The checked run comes first: it also loads the candidate's kernels (CUDA loads a kernel at
    // its first launch), which the one run that decides whether to time it must not pay.
    d.poison(s);
    run();
    const apiref::OutputCheck check = apiref::check_output(d, ref, tol, s);
    if (!check.passed())
      throw Error(fmt::format("{} {} {}x{}x{}: {} [{}] failed its check: {}", detail::types_key(p), tc.layout, g.m,
                              g.n, g.k, t.plan.kernel, t.plan.config, check.summary()));
    const double once_ms = time_once(lab, run);
    if (out.best >= 0 && once_ms > 2 * out.candidates[std::size_t(out.best)].ms) continue;
    t.ms = time_runs(lab, plan, run).ms.median;
    if (i == 0 && model_first) out.model_ms = t.ms;
    if (out.best < 0 || t.ms < out.candidates[std::size_t(out.best)].ms) out.best = int(i);
  }
  // cuBLAS (cuBLASLt with a fused epilogue) where it has the same call; 0 where it has none (a
  // per-row bias, SiLU).
  try {
    const anchor::Anchor anc = anchor::cublas_for(lab, g);
    out.cublas_ms = time_runs(lab, plan, anc.run).ms.median;
    if (g.epilogue.bias_kind != BiasKind::none || g.epilogue.activation != Activation::none) out.anchor = anc.name;
  } catch (const Unsupported& e) {
    out.anchor_missing = e.what();
  }
  return out;
}

// gemmlab tune --kernel auto.<precision>: every candidate of the library's dispatch on one
// problem (D in the operands' type, NN), fastest first, next to the model's pick and cuBLAS.
void tune_library(const TuneOptions& o) {
  (void)Registry::instance().get(o.kernel);  // an unknown id is refused with the registry's message
  const std::string precision = o.kernel.substr(5);
  check_layout(o.layout);
  std::vector<TableClass> classes = table_classes(precision);
  TableClass tc = classes.front();
  tc.cd = tc.ab, tc.layout = o.layout.c_str();
  // The epilogue through ApiOptions, which names the option of a bad value.
  ApiOptions api;
  api.precision = precision, api.output = "same", api.layout = o.layout, api.bias = o.bias, api.activation = o.activation;
  Gemm described;
  api.describe(described);
  const Shape shape = o.shape.resolve();
  Lab lab;
  const Context& ctx = lab.library();
  const TimingPlan plan = o.timing.resolve();
  CandidateTimes r = time_candidates(lab, ctx, tc, shape.m, shape.n, shape.k, plan, described.epilogue);
  std::vector<const CandidateTimes::Timed*> timed;
  for (const auto& t : r.candidates)
    if (t.ms > 0) timed.push_back(&t);
  std::sort(timed.begin(), timed.end(), [](auto* a, auto* b) { return a->ms < b->ms; });
  const Plan& chosen = r.chosen;
  std::string layout = o.layout == "NN" ? "" : fmt::format(", layout {}", o.layout);
  if (const std::string e = api.epilogue_summary(); !e.empty()) layout += ", epilogue " + e;
  std::cout << fmt::format("{} on {}{} ({}): {} candidates, {} timed; gemmlab::gemm takes {} [{}]\n\n", o.kernel,
                           to_string(shape), layout, lab.device().name, r.candidates.size(), timed.size(),
                           chosen.kernel, chosen.config);
  Table t({"rank", "kernel", "configuration", "median ms", "vs cuBLAS", ""});
  int rank = 0;
  for (const auto* c : timed) {
    if (o.top > 0 && rank >= o.top) break;
    const bool is_chosen = c->plan.kernel == chosen.kernel && c->plan.config == chosen.config;
    t.add({std::to_string(++rank), c->plan.kernel, c->plan.config, fmt_ms(c->ms),
           r.cublas_ms > 0 ? fmt_percent(r.cublas_ms / c->ms) : "-", is_chosen ? "<- gemm()" : ""});
  }
  t.add_separator();
  if (r.cublas_ms > 0) t.add({"", r.anchor, "", fmt_ms(r.cublas_ms), "100.0%", ""});
  t.print(std::cout);
  if (r.cublas_ms <= 0) std::cout << fmt::format("no cuBLAS anchor: {}\n", r.anchor_missing);
}

void tune_table(const TuneOptions& o) {
  Lab lab;
  const Context& ctx = lab.library();
  detail::Table table;
  table.device = lab.device().name;
  table.match = device_match(lab.device().name);
  table.commit = git_commit();
  const TimingPlan plan{2, 15, 1.0, false};
  Table shown({"types", "layout", "shape", "candidates", "fastest", "ms", "model's pick ms", "cuBLAS ms", "vs cuBLAS"});
  for (const TableClass& tc : table_classes(o.precisions)) {
    for (const GridShape& sh : kTableGrid) {
      const CandidateTimes r = time_candidates(lab, ctx, tc, sh.m, sh.n, sh.k, plan);
      const detail::Problem& p = r.problem;
      const CandidateTimes::Timed& best = r.candidates[std::size_t(r.best)];
      detail::TableEntry e;
      e.types = detail::types_key(p);
      e.layout = p.layout_name();
      e.m = p.m, e.n = p.n, e.k = p.k;
      e.kernel = detail::family_name(best.choice.family);
      e.config = detail::config_fields(best.choice);
      e.ms = best.ms, e.reference_ms = r.cublas_ms;
      table.entries.push_back(e);
      shown.add({e.types, tc.layout, fmt::format("{}x{}x{}", sh.m, sh.n, sh.k), std::to_string(r.candidates.size()),
                 fmt::format("{} [{}]", best.plan.kernel, best.plan.config.substr(0, best.plan.config.find(" layout="))),
                 fmt_ms(best.ms), r.model_ms > 0 ? fmt_ms(r.model_ms) : "-", fmt_ms(r.cublas_ms),
                 fmt_percent(r.cublas_ms / best.ms)});
      std::cerr << fmt::format("\r{} entries", table.entries.size()) << std::flush;
    }
    // After each class, so that a run cut short leaves a usable table of the classes done.
    write_text_file(o.table, detail::table_to_json(table));
  }
  std::cerr << "\n";
  shown.print(std::cout);
  write_text_file(o.table, detail::table_to_json(table));
  std::cout << fmt::format("dispatch table for {} (match \"{}\"): {} entries written to {}\n", table.device,
                           table.match, table.entries.size(), o.table);
}

}  // namespace

void add_tune_command(CLI::App& app) {
  static TuneOptions o;
  auto* cmd = app.add_subcommand("tune", "autotune: time every parameter combination of a kernel on one shape");
  cmd->add_option("--kernel", o.kernel,
                  "kernel id (without --table); auto.<precision> times every kernel and configuration the library's "
                  "dispatch offers for the problem");
  cmd->add_option("--table", o.table,
                  "measure the library's dispatch table for this GPU over its shape grid and write it (JSON) to this "
                  "file: data/dispatch/<gpu>.json is built into the library, any other file is read through "
                  "Context::Options::table or GEMMLAB_TABLE");
  cmd->add_option("--precisions", o.precisions, "with --table: bf16, fp16, tf32, fp32 (comma-separated)")
      ->capture_default_str();
  o.shape.add_to(*cmd);
  o.timing.add_to(*cmd);
  cmd->add_option("--layout", o.layout,
                  "with --kernel auto.<precision>: op(A) op(B) of row-major operands, NN, NT, TN or TT")
      ->capture_default_str();
  cmd->add_option("--bias", o.bias, "with --kernel auto.<precision>: fused bias, none, row (per row of D) or col")
      ->capture_default_str();
  cmd->add_option("--activation", o.activation, "with --kernel auto.<precision>: fused activation, none, relu, gelu or silu")
      ->capture_default_str();
  cmd->add_option("--top", o.top, "show only the N fastest");
  cmd->add_option("--json", o.json, "write every measurement as JSON");
  cmd->callback([] {
    if (!o.table.empty()) {
      if (!o.kernel.empty()) throw Error("--table measures the library's dispatch; it takes no --kernel");
      if (o.layout != "NN") throw Error("--layout applies to --kernel auto.<precision>; --table measures its own layouts");
      if (o.bias != "none" || o.activation != "none")
        throw Error("--bias and --activation apply to --kernel auto.<precision>; --table measures plain calls");
      tune_table(o);
    } else {
      if (o.kernel.empty()) throw Error("--kernel: a kernel id is required (or --table FILE)");
      if (o.kernel.rfind("auto.", 0) == 0) {
        tune_library(o);
      } else {
        if (o.layout != "NN") throw Error("--layout applies to --kernel auto.<precision> (the lab's kernels take NN)");
        if (o.bias != "none" || o.activation != "none")
          throw Error("--bias and --activation apply to --kernel auto.<precision> (the lab's kernels have no epilogue)");
        tune(o);
      }
    }
  });
}

}  // namespace gemmlab::cli
