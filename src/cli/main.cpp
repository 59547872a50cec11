// gemmlab: the command-line tool. A thin layer: parse, dispatch to a command, turn errors into
// one line ("gemmlab: error: ...") and exit status 1.
#include <cstring>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "gemmlab/version.hpp"
#include "results/record.hpp"

namespace {

int fail(const std::string& message) {
  std::cerr << "gemmlab: error: " << message << '\n';
  return 1;
}

// CLI11 says "The following arguments were not expected: x" or "--foo: ..." with its own exit
// codes (106, 114, ...); a user sees one line naming the argument, and exit status 1.
std::string parse_message(const CLI::ParseError& e) {
  std::string m = e.what();
  if (m.empty()) m = e.get_name();
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gemmlab;
  cli::set_command_line(argc, argv);
  CLI::App app{"gemmlab: a GEMM library and lab for NVIDIA GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("gemmlab {} (commit {})", gemmlab::version(), build_commit()));
  app.footer("Run 'gemmlab COMMAND --help' (or 'gemmlab help COMMAND') for a command's options.");
  try {
    cli::add_devices_command(app);
    cli::add_list_command(app);
    cli::add_explain_command(app);
    cli::add_run_command(app);
    cli::add_lab_command(app);
    cli::add_bench_command(app);
    cli::add_tune_command(app);
    cli::add_study_command(app);
    cli::add_transfer_command(app);
    cli::add_link_command(app);
    cli::add_sweep_command(app);
    cli::add_report_command(app);
    cli::add_compare_command(app);
    cli::add_occupancy_command(app);
    cli::add_profile_command(app);
    cli::add_peak_command(app);
  } catch (const std::exception& e) {
    std::cerr << "gemmlab: internal error: " << e.what() << '\n';
    return 2;
  }

  // `gemmlab help [COMMAND]` prints the help; a bare `gemmlab` prints it too, as an error (like
  // git); an unknown command is an error that says so, not CLI11's "A subcommand is required".
  if (argc == 1) {
    std::cerr << app.help();
    return fail("a command is required (gemmlab help lists them)");
  }
  const std::string first = argv[1];
  if (first == "help") {
    if (argc == 2) {
      std::cout << app.help();
      return 0;
    }
    try {
      std::cout << app.get_subcommand(argv[2])->help();
      return 0;
    } catch (const CLI::OptionNotFound&) {
      return fail(fmt::format("unknown command '{}' (gemmlab help lists the commands)", argv[2]));
    }
  }
  if (first[0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      known = known || sub->get_name() == first;
    if (!known) return fail(fmt::format("unknown command '{}' (gemmlab help lists the commands)", first));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(parse_message(e));
  } catch (const Error& e) {
    return fail(e.what());
  } catch (const std::exception& e) {
    std::cerr << "gemmlab: internal error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
