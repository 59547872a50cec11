// What the seed studies share: running one cell of a seed's experiment grid through run_gemm
// (verified, timed, cuBLAS measured once per size beside it), keeping the results, turning them
// into flat JSON records, and printing the seeds' usual table (rows = matrix size, columns =
// block size). The studies themselves only say which kernels, blocks and sizes, and how to lay out
// what the seed tabulated.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fill.hpp"
#include "harness/run.hpp"
#include "studies/study.hpp"

namespace gemmlab::studies {

// One kernel configuration in a seed's grid: the seed's name for it, gemmlab's kernel, and the
// parameters fixed for it besides the block size (e.g. outputs = 4).
struct Variant {
  std::string label;   // "method 6 (2 outputs per thread)"
  std::string kernel;  // "seed.double_buffer"
  Params params;
};

// One cell of the grid: a kernel (or cuBLAS) at one block size and one square size.
struct Measurement {
  std::string variant;  // a Variant's label, or kCublas
  std::string kernel;   // the kernel id that ran
  Params params;        // as requested (the result holds them resolved)
  int block = 0;        // 0 for cuBLAS
  std::int64_t size = 0;
  std::optional<RunResult> result;  // absent when it could not run
  std::string error;                // why it could not run

  bool ran() const { return result.has_value() && result->kernel.timing.has_value(); }
  bool passed() const { return result.has_value() && result->passed(); }
  double median_ms() const { return ran() ? result->kernel.timing->ms.median : 0.0; }
  double gflops() const { return ran() ? result->gflops() : 0.0; }
};

inline const std::string kCublas = "cuBLAS";

class StudyGrid {
 public:
  // `init`: the inputs every cell uses (seed 004 uses LinearInit); the same seed everywhere, so
  // a kernel and cuBLAS at one size multiply the same matrices.
  StudyGrid(Lab& lab, const StudyOptions& opt, std::string study, Init init = Init::uniform);
  // A grid that measures nothing itself, only holds what add() gives it (for the tests of the
  // tables and records, which need no GPU); run() and run_cublas() throw.
  StudyGrid(const StudyOptions& opt, std::string study, Init init = Init::uniform);

  // Runs `v` with `block` on size x size x size (C = A B); an Error (e.g. the shape is rejected)
  // is kept in the measurement, not thrown, so one bad cell does not lose the rest of the grid.
  const Measurement& run(const Variant& v, int block, std::int64_t size);
  // cuBLAS FP32 (cublas.fp32, TF32 off) at this size.
  const Measurement& run_cublas(std::int64_t size);

  // Adds a measurement made elsewhere.
  const Measurement& add(Measurement m);

  const Measurement* find(const std::string& variant, int block, std::int64_t size) const;
  const Measurement* cublas(std::int64_t size) const { return find(kCublas, 0, size); }
  const std::deque<Measurement>& measurements() const { return cells_; }

  // Every measurement as the flat record of results/record.hpp plus "study", "variant", "block",
  // "size", "role" (kernel / baseline) and, for kernels, cuBLAS at the same size and the ratio to
  // it. `extra` may add fields of the study's own (e.g. the speed-up over the seed's reference).
  std::vector<nlohmann::json> records(
      const std::function<void(const Measurement&, nlohmann::json&)>& extra = {}) const;

  // One line: how many measurements, all verified against float64 or which failed, and why.
  void print_check_note(std::ostream& out) const;
  // The timing settings, in one line, for the top of the output.
  std::string settings() const;

 private:
  Measurement measure(Measurement m, const std::string& kernel, const Params& params);

  Lab* lab_;  // null: add() only
  StudyOptions opt_;
  std::string study_;
  Init init_;
  std::deque<Measurement> cells_;  // a deque: references handed out stay valid
};

// Table cells: a number, "FAIL" for a result that failed verification, "error" for no result,
// "-" for a cell not measured.
std::string cell_ms(const Measurement* m);
std::string cell_gflops(const Measurement* m);
std::string cell_cgma(const Measurement* m);  // from the kernel's traffic model
std::string fmt_ms(double ms);
std::string fmt_gflops(double g);
std::string block_label(int block);  // "16x16"
std::string describe(const Variant& v);  // "seed.double_buffer outputs=2"

// The seeds' usual table for one variant: rows = sizes; columns = time [ms] per block, GFLOPS per
// block, optionally the model's CGMA per block, then cuBLAS's time and GFLOPS at the size.
void print_size_by_block(std::ostream& out, const StudyGrid& grid, const std::string& caption,
                         const std::string& variant, const std::vector<int>& blocks,
                         const std::vector<std::int64_t>& sizes, bool with_cgma);

}  // namespace gemmlab::studies
