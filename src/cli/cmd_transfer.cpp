// gemmlab transfer: the whole multiplication as the host sees it (seed 001): allocations, copies,
// kernel, synchronisation and frees, each timed over many runs, in each host-memory mode.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"
#include "transfer/link.hpp"
#include "transfer/pipeline.hpp"
#include "transfer/report.hpp"

namespace gemmlab::cli {

namespace {

struct TransferOptions {
  std::string kernel;
  ShapeOptions shape;
  ParamOptions params;
  std::string host = "all";
  transfer::PipelinePlan plan;
  std::uint64_t seed = 1;
  bool no_link = false;
  std::string json, csv;
};

void run(const TransferOptions& o) {
  using namespace transfer;
  // Everything that can be checked without a GPU is checked before one is opened.
  const Kernel& k = Registry::instance().get(o.kernel);
  const Params params = resolve_params(k, o.params.resolve());
  const Shape shape = o.shape.resolve();
  std::vector<HostMode> modes = parse_mode_list(o.host);
  validate_plan(o.plan);
  const KernelInfo& info = k.info();
  if (operand_type(info.precision) != DType::f32)
    throw Error(fmt::format("gemmlab transfer moves FP32 matrices; kernel {} takes {} operands", info.id,
                            dtype_name(operand_type(info.precision))));
  // The overlap summary compares against the pinned pipeline: measure it too.
  const auto has = [&](HostMode m) { return std::find(modes.begin(), modes.end(), m) != modes.end(); };
  if (has(HostMode::overlapped) && !has(HostMode::pinned))
    modes.insert(std::find(modes.begin(), modes.end(), HostMode::overlapped), HostMode::pinned);

  Lab lab;
  for (HostMode m : modes) check_kernel_for_mode(k, params, shape, m, o.plan, lab.device());
  std::cout << fmt::format("gemmlab transfer on {} | {} | {}\n", lab.device().name, to_string(shape), info.id);
  std::cout << fmt::format("runs: {}; up to {} warm-ups first\n", run_rule(o.plan.runs, o.plan.max_seconds, o.plan.min_runs),
                           o.plan.warmup);
  std::cout << "clocks: allocations, frees and the final sync with std::chrono::steady_clock; Memcpy AB, Kernel and "
               "Memcpy C with CUDA events on their streams\n";
  LinkPeak peak;
  if (!o.no_link) {
    peak = measure_link_peak(lab);
    std::cout << fmt::format("link peak (pinned, 256 MiB copies, measured now): H2D {:.1f} GB/s, D2H {:.1f} GB/s\n",
                             peak.h2d_gbs, peak.d2h_gbs);
  }
  std::cout << '\n';

  std::vector<ModeResult> results;
  std::string size_skipped;
  try {
    TransferBench bench(lab, shape, o.seed);
    for (HostMode m : modes) {
      results.push_back(bench.measure(k, params, m, o.plan));
      print_mode(std::cout, results.back(), peak);
    }
  } catch (const ResourceShortage& e) {
    size_skipped = e.what();
    std::cout << "skipped: " << size_skipped << '\n';
  }
  auto find = [&](HostMode m) -> const ModeResult* {
    for (const auto& r : results)
      if (r.mode == m) return &r;
    return nullptr;
  };
  const ModeResult* pageable = find(HostMode::pageable);
  if (pageable)
    for (const auto& r : results)
      if (r.mode != HostMode::pageable) print_gains(std::cout, *pageable, r);
  const ModeResult* pinned = find(HostMode::pinned);
  const ModeResult* overlapped = find(HostMode::overlapped);
  if (pinned && overlapped) print_overlap(std::cout, *pinned, *overlapped);

  std::vector<nlohmann::json> records;
  for (const auto& r : results) records.push_back(to_json(r, peak, pinned, pageable));
  if (!size_skipped.empty()) {
    for (HostMode m : modes) {
      ModeResult r;
      r.mode = m;
      r.kernel = info.id;
      r.params = params;
      r.shape = shape;
      r.precision = info.precision;
      r.skipped = true;
      r.skip_reason = size_skipped;
      records.push_back(to_json(r, peak));
    }
  }
  if (!o.json.empty()) write_json_file(o.json, run_context(lab.device(), command_line()), records);
  if (!o.csv.empty()) write_transfer_csv(o.csv, records);
  for (const auto& r : results)
    if (!r.passed())
      throw Error(fmt::format("verification failed for {} in {} mode on {}", info.id, mode_name(r.mode),
                              to_string(shape)));
}

}  // namespace

void add_transfer_command(CLI::App& app) {
  static TransferOptions o;
  auto* cmd = app.add_subcommand(
      "transfer", "time every phase of a whole multiplication from the host's side, per host-memory mode (seed 001)");
  cmd->add_option("--kernel", o.kernel, "kernel id of an FP32 kernel (see 'gemmlab list')")->required();
  o.shape.add_to(*cmd);
  o.params.add_to(*cmd);
  cmd->add_option("--host", o.host,
                  "host memory: pageable, pinned-c (C only, as seed 001), pinned, overlapped, a comma-separated "
                  "list, or all (default)");
  cmd->add_option("--runs", o.plan.runs, "timed runs wanted (default 1000, as seed 001)")->check(CLI::Range(1, 1000000));
  cmd->add_option("--warmup", o.plan.warmup, "untimed runs first (default 3)")->check(CLI::Range(0, 1000));
  cmd->add_option("--max-seconds", o.plan.max_seconds,
                  "time budget per mode: fewer runs when they would take longer (default 10)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--min-runs", o.plan.min_runs, "fewest timed runs the budget may leave (default 3)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--streams", o.plan.streams, "overlapped: compute streams besides the upload stream (default 2)")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--panels", o.plan.panels, "overlapped: panels per dimension (default 0: about one per 4096 rows, 2..8)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--seed", o.seed, "random seed for the inputs");
  cmd->add_flag("--no-link", o.no_link, "do not measure the link's peak first");
  cmd->add_option("--json", o.json, "write every mode's record and the context as JSON");
  cmd->add_option("--csv", o.csv, "write every mode's record as CSV");
  cmd->callback([] { run(o); });
}

}  // namespace gemmlab::cli
