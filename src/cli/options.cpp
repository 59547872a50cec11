#include "cli/options.hpp"

#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size_list.hpp"

namespace gemmlab::cli {

namespace {
std::string g_command_line;
}  // namespace

void set_command_line(int argc, char** argv) {
  std::vector<std::string> parts(argv, argv + argc);
  g_command_line = fmt::format("{}", fmt::join(parts, " "));
}
std::string command_line() { return g_command_line; }

void ShapeOptions::add_to(CLI::App& app) {
  size_opt_ = app.add_option("-s,--size", size, "square problem: M = N = K = SIZE");
  m_opt_ = app.add_option("-m", m, "rows of A and C");
  n_opt_ = app.add_option("-n", n, "columns of B and C");
  k_opt_ = app.add_option("-k", k, "columns of A, rows of B");
}

bool ShapeOptions::given() const {
  return size_opt_->count() + m_opt_->count() + n_opt_->count() + k_opt_->count() > 0;
}

Shape ShapeOptions::resolve() const {
  if (!given()) throw Error("give a problem size: --size N, or -m M -n N -k K");
  const bool sq = size_opt_->count() > 0;
  if (!sq && (!m_opt_->count() || !n_opt_->count() || !k_opt_->count()))
    throw Error("incomplete shape: give --size N, or all of -m -n -k");
  const Shape s{m_opt_->count() ? m : size, n_opt_->count() ? n : size, k_opt_->count() ? k : size};
  validate_shape(s);
  return s;
}

void ParamOptions::add_to(CLI::App& app) {
  app.add_option("-b,--block", block, "thread-block edge (the kernel's 'block' parameter)");
  app.add_option("-p,--param", params, "kernel parameter NAME=VALUE (repeatable); see 'gemmlab list'");
}

Params ParamOptions::resolve() const {
  Params p;
  if (block != 0) p["block"] = block;
  for (const auto& kv : params) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
      throw Error(fmt::format("--param expects NAME=VALUE, got '{}'", kv));
    const std::string name = kv.substr(0, eq);
    const std::int64_t value = parse_int64(kv.substr(eq + 1), "--param " + name);
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
      throw Error(fmt::format("--param {}: {} is outside the range of a kernel parameter (a 32-bit integer)", name, value));
    p[name] = int(value);
  }
  return p;
}

void TimingOptions::add_to(CLI::App& app) {
  app.add_option("--warmup", warmup, "untimed runs before timing")->check(CLI::Range(0, 1000));
  app.add_option("--iters", iters, "timed runs, each between its own pair of CUDA events")->check(CLI::Range(1, 100000));
  app.add_option("--max-seconds", max_seconds, "cap on the timed time per kernel: slow kernels get fewer runs (>= 3)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--cold", cold, "flush L2 before every timed run (default: hot L2)");
  app.add_flag("--no-hold", no_hold,
               "enqueue each timed run as the host reaches it, not behind a hold: short runs then also time the "
               "host's work of launching them");
}

TimingPlan TimingOptions::resolve() const {
  TimingPlan plan{warmup, iters, max_seconds, cold};
  plan.hold = !no_hold;
  return plan;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

Precision parse_precision_option(const std::string& s) {
  if (auto p = parse_precision(s)) return *p;
  throw Error(fmt::format("unknown precision '{}' (choose fp32, tf32, bf16 or fp16)", s));
}

DType parse_output_option(const std::string& s, Precision p) {
  if (s == "f32") return DType::f32;
  if (s == "same") return operand_type(p);
  if (auto t = parse_dtype(s)) return *t;
  throw Error(fmt::format("unknown output type '{}' (choose f32, bf16, f16 or same)", s));
}

}  // namespace gemmlab::cli
