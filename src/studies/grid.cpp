#include "studies/grid.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"
#include "results/table.hpp"

namespace gemmlab::studies {

StudyGrid::StudyGrid(Lab& lab, const StudyOptions& opt, std::string study, Init init)
    : lab_(&lab), opt_(opt), study_(std::move(study)), init_(init) {}

StudyGrid::StudyGrid(const StudyOptions& opt, std::string study, Init init)
    : lab_(nullptr), opt_(opt), study_(std::move(study)), init_(init) {}

const Measurement& StudyGrid::add(Measurement m) {
  cells_.push_back(std::move(m));
  return cells_.back();
}

Measurement StudyGrid::measure(Measurement m, const std::string& kernel, const Params& params) {
  if (!lab_) throw Error("this study grid has no GPU session to measure with");
  m.kernel = kernel;
  m.params = params;
  RunSpec spec;
  spec.kernel = kernel;
  spec.params = params;
  spec.shape = Shape{m.size, m.size, m.size};
  spec.timing = TimingPlan{opt_.warmup, opt_.iters, opt_.max_seconds, false};
  spec.inputs.init = init_;
  spec.inputs.seed = 1;  // the same matrices for every kernel at a size, cuBLAS included
  spec.compare_cublas = false;  // cuBLAS is measured once per size (run_cublas), not once per cell
  try {
    m.result = run_gemm(*lab_, spec);
  } catch (const Error& e) {
    m.error = e.what();
  }
  return m;
}

const Measurement& StudyGrid::run(const Variant& v, int block, std::int64_t size) {
  Params p = v.params;
  p["block"] = block;
  Measurement m;
  m.variant = v.label;
  m.block = block;
  m.size = size;
  return add(measure(std::move(m), v.kernel, p));
}

const Measurement& StudyGrid::run_cublas(std::int64_t size) {
  Measurement m;
  m.variant = kCublas;
  m.size = size;
  return add(measure(std::move(m), Registry::instance().baseline_for(Precision::fp32).info().id, {}));
}

const Measurement* StudyGrid::find(const std::string& variant, int block, std::int64_t size) const {
  for (const Measurement& m : cells_)
    if (m.variant == variant && m.block == block && m.size == size) return &m;
  return nullptr;
}

std::vector<nlohmann::json> StudyGrid::records(
    const std::function<void(const Measurement&, nlohmann::json&)>& extra) const {
  std::vector<nlohmann::json> out;
  for (const Measurement& m : cells_) {
    nlohmann::json j;
    if (m.result) {
      j = to_json(*m.result);
    } else {
      j["kernel"] = m.kernel;
      j["params"] = params_to_string(m.params);
      j["m"] = j["n"] = j["k"] = m.size;
      j["status"] = "error";
      j["reason"] = m.error;
    }
    j["study"] = study_;
    j["variant"] = m.variant;
    j["size"] = m.size;
    j["role"] = m.variant == kCublas ? "baseline" : "kernel";
    if (m.variant != kCublas) {
      j["block"] = m.block;
      const Measurement* cb = cublas(m.size);
      // No ratio for a result that failed verification: its speed is not that of a GEMM.
      if (cb && cb->ran() && cb->passed() && m.ran() && m.passed()) {
        j["cublas_kernel"] = cb->result->spec.kernel;
        j["cublas_time_median_ms"] = cb->median_ms();
        j["cublas_gflops"] = cb->gflops();
        j["cublas_passed"] = cb->passed();
        j["ratio_to_cublas"] = cb->median_ms() / m.median_ms();  // > 1: faster than cuBLAS
      }
    }
    if (extra) extra(m, j);
    out.push_back(std::move(j));
  }
  return out;
}

void StudyGrid::print_check_note(std::ostream& out) const {
  std::size_t ok = 0;
  double worst_rel = 0, worst_elem = 0;
  std::vector<std::string> bad;
  for (const Measurement& m : cells_) {
    const std::string what = m.variant == kCublas ? fmt::format("cuBLAS at {}", m.size)
                                                  : fmt::format("{} block {} at {}", m.variant, m.block, m.size);
    if (!m.result) {
      bad.push_back(fmt::format("{}: {}", what, m.error));
      continue;
    }
    const KernelRun& k = m.result->kernel;
    if (!m.passed()) {
      bad.push_back(fmt::format("{}: {}", what, (!k.first.passed ? k.first : k.last).summary()));
      continue;
    }
    ++ok;
    for (const Verification* v : {&k.first, &k.last})
      if (v->checked) {
        worst_rel = std::max(worst_rel, v->rel_frobenius);
        worst_elem = std::max(worst_elem, v->max_elementwise);
      }
  }
  out << fmt::format(
      "check: {} of {} measurements verified against float64 after the first and the last timed run "
      "(worst relative Frobenius error {:.1e}, worst element {:.1e} of its error bound scale)\n",
      ok, cells_.size(), worst_rel, worst_elem);
  for (const std::string& b : bad) out << "  NOT OK: " << b << '\n';
}

std::string StudyGrid::settings() const {
  return fmt::format("each cell: {} warm-up runs, then up to {} timed runs (at most {} s, at least 3), median of "
                     "per-run CUDA event times; inputs {}, the same at every size for every kernel and cuBLAS",
                     opt_.warmup, opt_.iters, opt_.max_seconds,
                     init_ == Init::uniform ? "uniform in [-1, 1)" : "LinearInit (A ascending, B descending)");
}

std::string fmt_ms(double ms) {
  if (ms >= 100) return fmt::format("{:.1f}", ms);
  if (ms >= 1) return fmt::format("{:.3f}", ms);
  return fmt::format("{:.4f}", ms);
}

std::string fmt_gflops(double g) {
  if (g >= 100) return fmt::format("{:.0f}", g);
  if (g >= 1) return fmt::format("{:.2f}", g);
  return fmt::format("{:.3f}", g);
}

std::string block_label(int block) { return fmt::format("{}x{}", block, block); }

std::string describe(const Variant& v) {
  return v.params.empty() ? v.kernel : fmt::format("{} {}", v.kernel, params_to_string(v.params));
}

namespace {
// The cell text when there is no number to show, or nullopt when there is one.
std::optional<std::string> missing(const Measurement* m) {
  if (!m) return "-";
  if (!m->result) return "error";
  if (!m->passed()) return "FAIL";
  if (!m->ran()) return "-";
  return std::nullopt;
}
}  // namespace

std::string cell_ms(const Measurement* m) {
  if (auto s = missing(m)) return *s;
  return fmt_ms(m->median_ms());
}

std::string cell_gflops(const Measurement* m) {
  if (auto s = missing(m)) return *s;
  return fmt_gflops(m->gflops());
}

std::string cell_cgma(const Measurement* m) {
  if (!m || !m->result) return "-";
  return fmt::format("{:.2f}", m->result->traffic.cgma());
}

void print_size_by_block(std::ostream& out, const StudyGrid& grid, const std::string& caption,
                         const std::string& variant, const std::vector<int>& blocks,
                         const std::vector<std::int64_t>& sizes, bool with_cgma) {
  std::vector<std::string> header{"size"};
  for (int b : blocks) header.push_back(fmt::format("{} ms", block_label(b)));
  for (int b : blocks) header.push_back(fmt::format("{} GFLOPS", block_label(b)));
  if (with_cgma)
    for (int b : blocks) header.push_back(fmt::format("{} CGMA", block_label(b)));
  header.push_back("cuBLAS ms");
  header.push_back("cuBLAS GFLOPS");
  Table t(header);
  for (std::int64_t s : sizes) {
    std::vector<std::string> row{fmt::format("{}x{}", s, s)};
    for (int b : blocks) row.push_back(cell_ms(grid.find(variant, b, s)));
    for (int b : blocks) row.push_back(cell_gflops(grid.find(variant, b, s)));
    if (with_cgma)
      for (int b : blocks) row.push_back(cell_cgma(grid.find(variant, b, s)));
    row.push_back(cell_ms(grid.cublas(s)));
    row.push_back(cell_gflops(grid.cublas(s)));
    t.add(row);
  }
  out << caption << '\n';
  t.print(out);
  out << '\n';
}

}  // namespace gemmlab::studies
