// Command-line description of a library call (explain, bench): types, layouts, batch or groups,
// epilogue and determinism, turned into the public gemmlab::Gemm / GroupedGemm.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gemmlab/gemm.hpp"

namespace gemmlab::cli {

// Throws Error unless layout is NN, NT, TN or TT (op(A) op(B) of row-major operands).
void check_layout(const std::string& layout);

struct ApiOptions {
  std::string precision = "bf16";  // fp32, tf32, bf16, fp16
  std::string output = "f32";      // f32 or same
  std::string layout = "NN";       // op(A) op(B) as BLAS letters for row-major storage: N or T each
  std::string d_order = "row";     // row or col
  std::int64_t batch = 1;
  int groups = 0;                  // > 0: grouped GEMM with m split evenly
  std::string bias = "none";       // none, row, col
  std::string activation = "none"; // none, relu, gelu, silu
  std::string determinism = "reproducible";

  void add_to(CLI::App& app);
  // The first of these options given on the command line ("--layout"), or empty if none was.
  std::string first_given() const;
  // Fills everything but the pointers, shape and leading dimensions (packed). Throws Error naming
  // the option on a bad value.
  void describe(Gemm& g) const;
  void describe(GroupedGemm& g) const;
  std::string summary() const;  // "bf16 -> f32, layout NN, batch 8, bias+gelu"
  std::string epilogue_summary() const;  // "bias(col)+gelu", or empty without an epilogue

 private:
  std::vector<CLI::Option*> options_;
};

}  // namespace gemmlab::cli
