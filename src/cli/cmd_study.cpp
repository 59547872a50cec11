// gemmlab study NAME: rerun one seed document's experiment grid on this GPU.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "results/record.hpp"
#include "results/table.hpp"
#include "studies/study.hpp"

namespace gemmlab::cli {

namespace {

struct StudyCliOptions {
  std::string name, csv, json;
  bool list = false, quick = false;
  StudyOptions run;
};

void run_study(const StudyCliOptions& o) {
  const StudyRegistry& reg = StudyRegistry::instance();
  if (o.list || o.name.empty()) {
    Table t({"study", "title", "grid"});
    for (const auto& s : reg.studies()) t.add({s->name(), s->title(), s->grid()});
    t.fit_to(terminal_columns());
    t.print(std::cout);
    if (!o.list) throw Error("give a study name (see the list above)");
    return;
  }
  const Study& study = reg.get(o.name);
  StudyOptions opt = o.run;
  opt.quick = o.quick;
  Lab lab;
  std::cout << fmt::format("study {}: {}\non {} ({} SMs, max SM clock {} MHz), {}\n\n", study.name(), study.title(),
                           lab.device().name, lab.device().sm_count, lab.device().clock_khz / 1000, iso_date_now());
  const std::vector<nlohmann::json> results = study.run(lab, opt, std::cout);
  if (!o.csv.empty()) write_csv_file(o.csv, results);
  if (!o.json.empty()) write_json_file(o.json, run_context(lab.device(), command_line()), results);
  for (const auto& r : results) {
    if (r.value("status", "ok") == "verification-failed")
      throw Error(fmt::format("study {}: {} failed verification", study.name(), r.value("kernel", "?")));
    if (r.value("status", "ok") == "error")
      throw Error(fmt::format("study {}: {} could not run: {}", study.name(), r.value("kernel", "?"),
                              r.value("reason", "?")));
  }
}

}  // namespace

void add_study_command(CLI::App& app) {
  static StudyCliOptions o;
  auto* cmd = app.add_subcommand("study", "rerun a seed document's experiment grid on this GPU");
  cmd->add_option("name", o.name, "study name (see --list)");
  cmd->add_flag("--list", o.list, "list the studies");
  cmd->add_flag("--quick", o.quick, "smallest sizes only (smoke test)");
  cmd->add_option("--iters", o.run.iters, "timed runs per measurement")->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", o.run.warmup, "warm-up runs per measurement")->check(CLI::Range(0, 1000));
  cmd->add_option("--max-seconds", o.run.max_seconds, "cap on timed time per measurement")->check(CLI::PositiveNumber);
  cmd->add_option("--csv", o.csv, "write every measurement as CSV");
  cmd->add_option("--json", o.json, "write every measurement and the context as JSON");
  cmd->callback([] { run_study(o); });
}

}  // namespace gemmlab::cli
