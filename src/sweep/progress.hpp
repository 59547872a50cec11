// How a sweep shows where it is. On a terminal: one bar redrawn in place (done/total, elapsed,
// ETA, the item running now). Elsewhere (a log file, CI): one line per finished item.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "sweep/plan.hpp"

namespace gemmlab {

class SweepProgress {
 public:
  // `now` returns seconds since some fixed point (a steady clock; tests pass a fake one).
  SweepProgress(std::ostream& out, bool terminal, std::function<double()> now = {});

  // total: items in the plan; to_measure: of those, the ones that will run (not skipped, not
  // already done), which the ETA is based on.
  void start(std::size_t total, std::size_t to_measure);
  void begin(std::size_t index, const SweepItem& item);
  void end(std::size_t index, const SweepItem& item, const nlohmann::json& record, bool measured);
  void finish();

  // One item's line as the non-terminal mode prints it (no newline).
  static std::string result_line(std::size_t index, std::size_t total, const SweepItem& item,
                                 const nlohmann::json& record);
  static std::string describe(const SweepItem& item);  // "seed.naive block=16 fp32 1024x1024x1024"
  static std::string clock(double seconds);            // "1:02", "1:02:03"

 private:
  void draw(const std::string& current);

  std::ostream& out_;
  bool terminal_;
  std::function<double()> now_;
  double t0_ = 0;
  std::size_t total_ = 0, done_ = 0, to_measure_ = 0, measured_ = 0;
  double measured_seconds_ = 0, item_t0_ = 0;
};

}  // namespace gemmlab
