// gemmlab link: the host-device link's bandwidth, pinned and pageable, both directions, up to 1 GiB.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "results/record.hpp"
#include "transfer/link.hpp"
#include "transfer/report.hpp"

namespace gemmlab::cli {

namespace {

struct LinkOptions {
  std::size_t max_mib = 1024;
  int reps = 20, warmup = 2;
  double max_seconds = 1.0;
  bool pinned_only = false;
  std::string json;
};

void run(const LinkOptions& o) {
  using namespace transfer;
  LinkPlan plan;
  plan.sizes = default_link_sizes(o.max_mib << 20);
  plan.reps = o.reps;
  plan.warmup = o.warmup;
  plan.max_seconds = o.max_seconds;
  Lab lab;
  std::cout << fmt::format("gemmlab link on {}: copies of 64 KiB .. {}, median of up to {} copies per point "
                           "(at most {} s each, at least 3), after {} warm-up copies\n\n",
                           lab.device().name, format_bytes(double(o.max_mib << 20)), o.reps, o.max_seconds, o.warmup);
  const LinkResult r = measure_link(lab, plan, !o.pinned_only);
  print_link(std::cout, r);
  if (!o.json.empty()) {
    const nlohmann::json j = to_json(r);
    std::vector<nlohmann::json> records(j["points"].begin(), j["points"].end());
    nlohmann::json context = run_context(lab.device(), command_line());
    context["link_peak"] = j["peak"];
    context["skipped"] = j["skipped"];
    write_json_file(o.json, context, records);
  }
}

}  // namespace

void add_link_command(CLI::App& app) {
  static LinkOptions o;
  auto* cmd = app.add_subcommand("link", "measure host<->device copy bandwidth, pinned and pageable, up to 1 GiB");
  cmd->add_option("--max-mib", o.max_mib, "largest copy in MiB (default 1024)")->check(CLI::Range(1, 65536));
  cmd->add_option("--reps", o.reps, "timed copies per point; the median is reported (default 20)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", o.warmup, "untimed copies first (default 2)")->check(CLI::Range(0, 1000));
  cmd->add_option("--max-seconds", o.max_seconds, "time budget per point (default 1)")->check(CLI::PositiveNumber);
  cmd->add_flag("--pinned-only", o.pinned_only, "skip pageable host memory");
  cmd->add_option("--json", o.json, "write every point, the peak and the context as JSON");
  cmd->callback([] { run(o); });
}

}  // namespace gemmlab::cli
