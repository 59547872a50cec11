// Command-line pieces several commands share: the problem shape, kernel parameters, timing.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/run.hpp"

namespace gemmlab::cli {

struct ShapeOptions {
  std::int64_t size = 0, m = 0, n = 0, k = 0;
  void add_to(CLI::App& app);
  Shape resolve() const;  // --size N, or -m -n -k (any missing one defaults to --size); validates
  bool given() const;

 private:
  CLI::Option *size_opt_ = nullptr, *m_opt_ = nullptr, *n_opt_ = nullptr, *k_opt_ = nullptr;
};

struct ParamOptions {
  int block = 0;                    // --block B: shorthand for --param block=B
  std::vector<std::string> params;  // --param name=value
  void add_to(CLI::App& app);
  Params resolve() const;           // throws Error on malformed name=value
};

struct TimingOptions {
  int warmup = 3, iters = 100;
  double max_seconds = 5.0;
  bool cold = false;
  bool no_hold = false;  // TimingPlan::hold off
  void add_to(CLI::App& app);
  TimingPlan resolve() const;
};

// "a,b,c" -> {"a", "b", "c"} (lists of kernels, precisions, values).
std::vector<std::string> split_commas(const std::string& text);

// "fp32" -> Precision::fp32, with the list of choices in the error.
Precision parse_precision_option(const std::string& s);
DType parse_output_option(const std::string& s, Precision p);  // "f32" or "same"

// The command line as typed, for result files.
std::string command_line();
void set_command_line(int argc, char** argv);

}  // namespace gemmlab::cli
