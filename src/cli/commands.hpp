// Each gemmlab subcommand adds itself to the application; main() only dispatches.
#pragma once

#include <CLI/CLI.hpp>

namespace gemmlab::cli {

void add_devices_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_lab_command(CLI::App& app);
void add_study_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_transfer_command(CLI::App& app);
void add_link_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_occupancy_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_peak_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_bench_command(CLI::App& app);

}  // namespace gemmlab::cli
