// A study reruns one of the seed documents' experiment grids on the current GPU and prints it in
// that seed's own layout, with cuBLAS beside it. Each study lives in its own file and registers
// itself in catalog.cpp, like the kernels.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/lab.hpp"

namespace gemmlab {

struct StudyOptions {
  int warmup = 3;
  int iters = 50;             // timed runs per measurement (fewer for slow ones: max_seconds)
  double max_seconds = 2.0;   // cap on timed time per measurement
  bool quick = false;         // smallest sizes only: for tests and smoke runs
};

class Study {
 public:
  virtual ~Study() = default;
  virtual std::string name() const = 0;   // "seed000"
  virtual std::string title() const = 0;  // one line
  virtual std::string grid() const = 0;   // what it measures: kernels x blocks x sizes
  // Runs the grid, prints the seed-style tables to `out`, returns every measurement as the flat
  // JSON records `gemmlab run --json` writes (results/record.hpp), so CSV/JSON/report tools work.
  virtual std::vector<nlohmann::json> run(Lab& lab, const StudyOptions& opt, std::ostream& out) const = 0;
};

class StudyRegistry {
 public:
  static const StudyRegistry& instance();
  const std::vector<std::unique_ptr<Study>>& studies() const { return studies_; }
  const Study& get(const std::string& name) const;  // throws Error listing the names
  void add(std::unique_ptr<Study> s);

 private:
  StudyRegistry() = default;
  std::vector<std::unique_ptr<Study>> studies_;
};

}  // namespace gemmlab
