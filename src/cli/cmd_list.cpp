// gemmlab list [ID]: the registered kernels, one line each, fitted to the terminal; with an id,
// everything about one kernel (parameters, shape rules, origin, summary).
#include <algorithm>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

namespace {

std::string params_cell(const KernelInfo& i) {
  std::vector<std::string> ps;
  for (const auto& p : i.params) ps.push_back(fmt::format("{}={}", p.name, p.default_value));
  return ps.empty() ? "-" : fmt::format("{}", fmt::join(ps, " "));
}

std::string outputs_cell(const KernelInfo& i) {
  std::vector<std::string> os;
  for (DType t : i.outputs) os.emplace_back(dtype_name(t));
  return fmt::format("{}", fmt::join(os, ", "));
}

void print_details(const Kernel& k) {
  const KernelInfo& i = k.info();
  std::cout << fmt::format("{}: {}\n\n", i.id, i.title);
  Table t({"field", "value"});
  t.add({"family", fmt::format("{} (step {})", i.family, i.step)});
  t.add({"precision", std::string(precision_name(i.precision))});
  t.add({"output types", outputs_cell(i)});
  t.add({"shapes", i.constraints});
  if (i.min_cc > 0) t.add({"needs", fmt::format("compute capability {}.{} or later", i.min_cc / 10, i.min_cc % 10)});
  t.add({"origin", i.origin});
  t.print(std::cout);
  if (!i.params.empty()) {
    std::cout << "\nparameters (--param NAME=VALUE):\n";
    Table pt({"name", "default", "allowed", "meaning"});
    for (const auto& p : i.params) pt.add({p.name, std::to_string(p.default_value), fmt::format("{}", fmt::join(p.allowed, ", ")), p.help});
    pt.fit_to(terminal_columns());
    pt.print(std::cout);
  }
  std::cout << "\n" << i.summary << "\n";
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "list the kernels (with an id: everything about one kernel)");
  static std::string family, id;
  static bool ids = false;
  cmd->add_option("id", id, "a kernel id: print its parameters, shape rules, origin and summary");
  cmd->add_option("--family", family, "only this family (seed, fp32, tensor, auto, baseline)");
  cmd->add_flag("--ids", ids, "print only the ids, one per line (for scripts)");
  cmd->callback([] {
    const Registry& reg = Registry::instance();
    if (!id.empty()) {
      print_details(reg.get(id));  // an unknown id throws, naming close matches
      return;
    }
    std::set<std::string> families;
    for (const auto& k : reg.kernels()) families.insert(k->info().family);
    if (!family.empty() && !families.count(family))
      throw Error(fmt::format("--family: unknown family '{}' (families: {})", family, fmt::join(families, ", ")));
    if (ids) {
      for (const auto& k : reg.kernels())
        if (family.empty() || k->info().family == family) std::cout << k->info().id << '\n';
      return;
    }
    Table t({"id", "precision", "parameters", "title"});
    std::string last_family;
    for (const auto& k : reg.kernels()) {
      const KernelInfo& i = k->info();
      if (!family.empty() && i.family != family) continue;
      if (!last_family.empty() && i.family != last_family) t.add_separator();
      last_family = i.family;
      t.add({i.id, std::string(precision_name(i.precision)), params_cell(i), i.title});
    }
    t.fit_to(terminal_columns());
    t.print(std::cout);
    std::cout << "(parameters at their defaults; 'gemmlab list ID': allowed values, shapes, summary)\n";
  });
}

}  // namespace gemmlab::cli
