// gemmlab compare A B: the configurations two results files share, B against A, with the changes
// larger than the measured noise flagged (for regressions between commits, or two GPUs).
// The logic is in results/compare.*; this file prints it.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "results/compare.hpp"
#include "results/identity.hpp"
#include "results/record.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

namespace {

struct CompareCliOptions {
  std::string a, b, metric = "gflops";
  double min_change = 0.03;
  bool fail_on_regression = false, changes_only = false;
};

std::string describe_file(const std::string& path, const nlohmann::json& file) {
  if (!file.contains("context") || !file["context"].is_object())
    return fmt::format("{} (device unknown: no context in the file)", path);
  const nlohmann::json& c = file["context"];
  auto text = [&](const char* field, const char* otherwise) {
    const std::string v = field_text(c, field);
    return v.empty() ? std::string(otherwise) : v;
  };
  return fmt::format("{} ({}, {}, gemmlab {})", path, text("device", "device unknown"), text("date", "date unknown"),
                     text("gemmlab_commit", "?"));
}

std::string shape_of(const nlohmann::json& r) {
  return fmt::format("{}x{}x{}", field_text(r, "m"), field_text(r, "n"), field_text(r, "k"));
}

std::string time_cell(const std::optional<Spread>& s) {
  if (!s) return "-";
  if (s->source == "none") return fmt_ms(s->median);
  return fmt::format("{} ({}..{})", fmt_ms(s->median), fmt_ms(s->low), fmt_ms(s->high));
}

void run_compare(const CompareCliOptions& o) {
  const nlohmann::json a = read_results_file(o.a);
  const nlohmann::json b = read_results_file(o.b);
  CompareOptions opt;
  opt.min_change = o.min_change;
  const Comparison c = compare_results(a, b, opt);
  const bool by_time = o.metric == "time";

  std::cout << "A: " << describe_file(o.a, a) << "\nB: " << describe_file(o.b, b) << "\n";
  std::cout << fmt::format("times: median (p10..p90) ms; a change counts when the two ranges do not overlap and the "
                           "medians differ by more than {:.1f}%\n\n",
                           100 * o.min_change);
  Table t({"kernel", "params", "precision", "shape", "A ms", "B ms", by_time ? "B/A time" : "B/A GFLOPS", "change"});
  for (const ComparedConfig& row : c.rows) {
    if (o.changes_only && (row.change == Change::within_noise || row.change == Change::not_comparable)) continue;
    std::string ratio = "-";
    if (row.speedup > 0) ratio = fmt::format("{:.3f}", by_time ? 1.0 / row.speedup : row.speedup);
    t.add({field_text(row.a, "kernel"), field_text(row.a, "params"), field_text(row.a, "precision"), shape_of(row.a),
           time_cell(row.a_spread), time_cell(row.b_spread), ratio, change_name(row.change)});
  }
  if (!t.empty()) t.print(std::cout);
  std::cout << fmt::format(
      "\n{} configurations in both: {} faster, {} slower, {} within noise, {} now failing verification, "
      "{} now passing, {} not comparable; {} only in A, {} only in B\n",
      c.rows.size(), c.count(Change::faster), c.count(Change::slower), c.count(Change::within_noise),
      c.count(Change::now_failing), c.count(Change::now_passing), c.count(Change::not_comparable), c.only_a.size(),
      c.only_b.size());
  // Name what could not be paired, and why: the key (kernel, parameters, precision, output, shape)
  // has no twin in the other file.
  auto unpaired = [&](const std::vector<nlohmann::json>& only, const std::string& here, const std::string& there) {
    if (only.empty()) return;
    std::cout << fmt::format("\nonly in {} ({} has no run of the same kernel, parameters, precision, output, shape, L2 mode and inputs):\n",
                             here, there);
    Table u({"kernel", "params", "precision", "output", "shape", "L2", "status"});
    for (const nlohmann::json& r : only)
      u.add({field_text(r, "kernel"), field_text(r, "params"), field_text(r, "precision"), field_text(r, "output"),
             shape_of(r), field_text(r, "l2"), field_text(r, "status")});
    u.print(std::cout);
  };
  unpaired(c.only_a, "A", "B");
  unpaired(c.only_b, "B", "A");
  if (c.rows.empty()) throw Error(fmt::format("{} and {} have no configuration in common", o.a, o.b));
  if (o.fail_on_regression && c.regressions() > 0)
    throw Error(fmt::format("{} regressions (slower beyond the noise, or failing verification) in {} against {}",
                            c.regressions(), o.b, o.a));
}

}  // namespace

void add_compare_command(CLI::App& app) {
  static CompareCliOptions o;
  auto* cmd = app.add_subcommand("compare", "compare two results files: B against A, changes beyond the noise flagged");
  cmd->add_option("A", o.a, "the reference results (JSON or CSV)")->required();
  cmd->add_option("B", o.b, "the results to compare with it")->required();
  cmd->add_option("--metric", o.metric, "ratio shown: gflops (B/A, > 1 is faster) or time (B/A, < 1 is faster)")
      ->check(CLI::IsMember({"gflops", "time"}));
  cmd->add_option("--min-change", o.min_change, "smallest relative change that counts (default 0.03 = 3%)")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_flag("--changes-only", o.changes_only, "list only the configurations that changed");
  cmd->add_flag("--fail-on-regression", o.fail_on_regression,
                "exit non-zero when B is slower beyond the noise or fails verification where A passed");
  cmd->callback([] { run_compare(o); });
}

}  // namespace gemmlab::cli
