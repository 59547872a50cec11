// gemmlab: the command-line tool. A thin layer: parse, dispatch to a command, turn errors into
// one line and a non-zero exit status.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  using namespace gemmlab;
  cli::set_command_line(argc, argv);
  CLI::App app{"gemmlab: a lab for matrix multiplication on NVIDIA GPUs"};
  try {
    app.require_subcommand(1);
    cli::add_devices_command(app);
    cli::add_list_command(app);
    cli::add_run_command(app);
    cli::add_lab_command(app);
    cli::add_study_command(app);
    cli::add_tune_command(app);
    cli::add_transfer_command(app);
    cli::add_link_command(app);
    cli::add_sweep_command(app);
    cli::add_report_command(app);
    cli::add_compare_command(app);
    cli::add_occupancy_command(app);
    cli::add_profile_command(app);
    cli::add_peak_command(app);
    cli::add_explain_command(app);
    cli::add_bench_command(app);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const Error& e) {
    std::cerr << "gemmlab: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gemmlab: internal error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
