#include "sweep/progress.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "kernels/registry.hpp"

namespace gemmlab {

SweepProgress::SweepProgress(std::ostream& out, bool terminal, std::function<double()> now)
    : out_(out), terminal_(terminal), now_(std::move(now)) {
  if (!now_)
    now_ = [] {
      using namespace std::chrono;
      return duration<double>(steady_clock::now().time_since_epoch()).count();
    };
}

std::string SweepProgress::clock(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string SweepProgress::describe(const SweepItem& item) {
  const std::string params = params_to_string(item.params);
  return fmt::format("{}{}{} {} {}", item.kernel->info().id, params.empty() ? "" : " ", params,
                     precision_name(item.precision), to_string(item.shape));
}

std::string SweepProgress::result_line(std::size_t index, std::size_t total, const SweepItem& item,
                                       const nlohmann::json& r) {
  const std::string head = fmt::format("[{}/{}] {}", index + 1, total, describe(item));
  const std::string status = r.value("status", "");
  if (status == "skipped") return fmt::format("{}: skipped: {}", head, r.value("reason", ""));
  if (status == "error") return fmt::format("{}: error: {}", head, r.value("reason", ""));
  std::string line = head;
  if (r.contains("time_median_ms"))
    line += fmt::format(": {:.4g} ms, {:.4g} GFLOPS", r["time_median_ms"].get<double>(), r.value("gflops", 0.0));
  if (r.contains("ratio_to_cublas"))
    line += fmt::format(", {:.1f}% of cuBLAS", 100.0 * r["ratio_to_cublas"].get<double>());
  line += status == "ok" ? ", verified" : ", VERIFICATION FAILED";
  return line;
}

void SweepProgress::start(std::size_t total, std::size_t to_measure) {
  t0_ = now_();
  total_ = total;
  to_measure_ = to_measure;
  done_ = measured_ = 0;
  measured_seconds_ = 0;
  if (!terminal_) out_ << fmt::format("sweep: {} items, {} to measure\n", total, to_measure) << std::flush;
}

void SweepProgress::draw(const std::string& current) {
  constexpr int kWidth = 24;
  const double frac = total_ ? double(done_) / double(total_) : 1.0;
  const int filled = int(frac * kWidth);
  std::string eta = "--";
  // Estimated from the measured items so far (skipped ones take no time).
  if (measured_ > 0 && to_measure_ >= measured_)
    eta = clock(measured_seconds_ / double(measured_) * double(to_measure_ - measured_));
  out_ << fmt::format("\r\x1b[K[{}{}] {}/{} | {} elapsed | ETA {} | {}", std::string(filled, '#'),
                      std::string(kWidth - filled, '.'), done_, total_, clock(now_() - t0_), eta, current)
       << std::flush;
}

void SweepProgress::begin(std::size_t, const SweepItem& item) {
  item_t0_ = now_();
  if (terminal_) draw(describe(item));
}

void SweepProgress::end(std::size_t index, const SweepItem& item, const nlohmann::json& record, bool measured) {
  ++done_;
  if (measured) {
    ++measured_;
    measured_seconds_ += now_() - item_t0_;
  }
  const std::string status = record.value("status", "");
  if (terminal_ && (status == "verification-failed" || status == "error"))
    out_ << "\r\x1b[K" << result_line(index, total_, item, record) << '\n';  // failures stay on screen
  if (terminal_)
    draw(describe(item));
  else
    out_ << result_line(index, total_, item, record) << '\n' << std::flush;
}

void SweepProgress::finish() {
  if (terminal_) {
    draw("done");
    out_ << '\n';
  } else {
    out_ << fmt::format("sweep: {} items done in {}\n", done_, clock(now_() - t0_));
  }
  out_ << std::flush;
}

}  // namespace gemmlab
