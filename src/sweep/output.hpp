// Where a sweep's records go, one at a time as they come, so an interrupted sweep loses nothing:
//   JSON: {"context": ..., "results": [...]}, rewritten atomically (write_json_file: a temporary
//         file renamed over the old one) after every record, so it is always complete and valid;
//   CSV:  one row appended (and flushed) per record.
// --resume reads what an earlier run of the same sweep wrote and continues it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gemmlab {

class SweepOutput {
 public:
  // At least one of the paths must be non-empty. `context` is the context of this session
  // (run_context: device, versions, date, command line).
  SweepOutput(std::string json_path, std::string csv_path, nlohmann::json context);

  // Starts the files.
  //   resume:    keeps the records already there (from the JSON file when it exists, else the
  //              CSV) except those with status "error", which are run again; refuses files
  //              written on another device; rewrites both files from the kept records.
  //   otherwise: refuses to replace a non-empty file unless `overwrite`; starts empty files.
  void open(bool resume, bool overwrite);

  void append(const nlohmann::json& record);

  const std::vector<nlohmann::json>& records() const { return records_; }
  std::size_t resumed_count() const { return resumed_; }
  const nlohmann::json& context() const { return context_; }

 private:
  void rewrite_all();

  std::string json_path_, csv_path_;
  nlohmann::json context_;
  std::vector<nlohmann::json> records_;
  std::size_t resumed_ = 0;
};

}  // namespace gemmlab
