// Results as files: JSON (everything, with the context that makes a number reproducible) and
// CSV (one flat row per measurement, for spreadsheets and the report tool).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device.hpp"
#include "harness/run.hpp"

namespace gemmlab {

// Where and when: device, driver, CUDA, cuBLAS, gemmlab's git commit, the date, the command line.
nlohmann::json run_context(const DeviceInfo& dev, const std::string& command_line);

// One measurement as a flat JSON object (the same keys as the CSV columns, plus arrays).
nlohmann::json to_json(const RunResult& r);

// CSV: the header line and one row per result, with the columns of csv_columns().
const std::vector<std::string>& csv_columns();
std::string csv_header();
std::string csv_row(const nlohmann::json& flat);

// Writers. A JSON results file is {"context": ..., "results": [...]}; append_* keep the file
// valid after every result, so an interrupted run loses nothing.
void write_json_file(const std::string& path, const nlohmann::json& context, const std::vector<nlohmann::json>& results);
void write_csv_file(const std::string& path, const std::vector<nlohmann::json>& results);
void append_csv_row(const std::string& path, const nlohmann::json& flat);  // writes the header first if new
nlohmann::json read_results_file(const std::string& path);  // .json or .csv; throws Error

std::string iso_date_now();
// The commit of the build (GEMMLAB_COMMIT, else git's HEAD with "+dirty" for uncommitted changes;
// generated commit.cpp, cmake/commit.cmake).
const char* build_commit();
std::string git_commit();

}  // namespace gemmlab
