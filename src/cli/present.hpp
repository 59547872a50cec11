// Turning results into what a person reads on the terminal.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/roofline.hpp"
#include "harness/run.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

// Columns of the terminal on stdout (its window size, else $COLUMNS), 100 when stdout is not one.
std::size_t terminal_columns();

std::string fmt_ms(double ms);         // 3 significant digits, no exponent for ordinary values
std::string fmt_gflops(double g);
std::string fmt_percent(double ratio); // 0.953 -> "95.3%"
std::string check_cell(const KernelRun& k);  // "ok 2.1e-07" or "FAIL ..."

// The full table for one `gemmlab run`: kernel and cuBLAS rows, then the verification details.
void print_run(const RunResult& r);
// One line describing the setting (device, precision, L2, runs).
std::string run_banner(const std::string& device, const RunResult& r);

// The roofline of one run: arithmetic intensity (minimum DRAM traffic: A, B read once, C written
// once; and the kernel model's traffic), the roof, and the share of it the kernel and cuBLAS reach.
void print_roofline(const RunResult& r, const Roof& roof);
// The same as JSON fields, to add to the run's record.
nlohmann::json roofline_json(const RunResult& r, const Roof& roof);

}  // namespace gemmlab::cli
