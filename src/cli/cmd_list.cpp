// gemmlab list: every registered kernel with its parameters and shape constraints.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "kernels/registry.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

void add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "list the kernels, their parameters and shape constraints");
  static std::string family;
  static bool verbose = false, ids = false;
  cmd->add_option("--family", family, "only this family (seed, fp32, tensor, baseline)");
  cmd->add_flag("-v,--verbose", verbose, "also print each kernel's origin and summary");
  cmd->add_flag("--ids", ids, "print only the ids, one per line (for scripts)");
  cmd->callback([] {
    if (ids) {
      for (const auto& k : Registry::instance().kernels())
        if (family.empty() || k->info().family == family) std::cout << k->info().id << '\n';
      return;
    }
    Table t({"id", "precision", "parameters (default)", "shapes", "title"});
    std::string last_family;
    for (const auto& k : Registry::instance().kernels()) {
      const KernelInfo& i = k->info();
      if (!family.empty() && i.family != family) continue;
      if (!last_family.empty() && i.family != last_family) t.add_separator();
      last_family = i.family;
      std::vector<std::string> ps;
      for (const auto& p : i.params)
        ps.push_back(fmt::format("{}={{{}}} ({})", p.name, fmt::join(p.allowed, ","), p.default_value));
      t.add({i.id, std::string(precision_name(i.precision)), ps.empty() ? "-" : fmt::format("{}", fmt::join(ps, " ")),
             i.constraints, i.title});
    }
    t.print(std::cout);
    if (verbose) {
      for (const auto& k : Registry::instance().kernels()) {
        const KernelInfo& i = k->info();
        if (!family.empty() && i.family != family) continue;
        std::cout << fmt::format("\n{} — {}\n  origin: {}\n  {}\n", i.id, i.title, i.origin, i.summary);
      }
    }
  });
}

}  // namespace gemmlab::cli
