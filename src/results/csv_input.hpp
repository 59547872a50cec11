// Reading CSV results files (as write_csv_file / append_csv_row write them) back into the flat
// records to_json produces, so sweeps can resume from a CSV file and compare can read one.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gemmlab {

// {"results": [...]} with one object per row (no "context": a CSV file has none). Cells are
// typed back: empty -> absent, true/false -> booleans, integers and decimals -> numbers, the rest
// strings. Throws Error for an unreadable file, a missing header, or a row with the wrong number
// of cells (an unterminated quote included).
nlohmann::json read_csv_results(const std::string& path);

}  // namespace gemmlab
