#include "cli/present.hpp"

#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "kernels/registry.hpp"

namespace gemmlab::cli {

std::string fmt_ms(double ms) {
  if (ms >= 100) return fmt::format("{:.1f}", ms);
  if (ms >= 1) return fmt::format("{:.3f}", ms);
  return fmt::format("{:.4f}", ms);
}

std::string fmt_gflops(double g) { return g >= 100 ? fmt::format("{:.0f}", g) : fmt::format("{:.2f}", g); }

std::string fmt_percent(double ratio) { return ratio > 0 ? fmt::format("{:.1f}%", 100 * ratio) : "-"; }

std::string check_cell(const KernelRun& k) {
  if (!k.first.checked) return "unchecked";
  const Verification& worst = (k.last.checked && k.last.rel_frobenius > k.first.rel_frobenius) ? k.last : k.first;
  if (!k.passed()) {
    const Verification& bad = !k.first.passed ? k.first : k.last;
    return bad.summary();
  }
  return fmt::format("ok {:.1e}", worst.rel_frobenius);
}

std::string run_banner(const std::string& device, const RunResult& r) {
  const TimingPlan& t = r.spec.timing;
  return fmt::format("{} | {} {} | {} L2 | {} warm-up + {} timed runs, median reported", device,
                     precision_name(r.precision), to_string(r.spec.shape), t.flush_l2 ? "cold" : "hot", t.warmup,
                     r.kernel.timing ? r.kernel.timing->iters : 0);
}

void print_run(const RunResult& r) {
  Table t({"kernel", "params", "median ms", "min ms", "max ms", "mean ms", "stddev ms", "GFLOPS", "vs cuBLAS",
           "check"});
  auto row = [&](const KernelRun& k, double gflops, double ratio) {
    if (!k.timing) {
      t.add({k.id, params_to_string(k.params), "-", "-", "-", "-", "-", "-", "-", check_cell(k)});
      return;
    }
    const Stats& s = k.timing->ms;
    t.add({k.id, params_to_string(k.params), fmt_ms(s.median), fmt_ms(s.min), fmt_ms(s.max), fmt_ms(s.mean),
           fmt_ms(s.stddev), fmt_gflops(gflops), fmt_percent(ratio), check_cell(k)});
  };
  row(r.kernel, r.gflops(), r.ratio_to_cublas());
  if (r.cublas) row(*r.cublas, r.cublas_gflops(), r.cublas->timing ? 1.0 : 0.0);
  t.print(std::cout);
  if (r.conversion_ms)
    std::cout << fmt::format("operand conversion f32 -> {} (A and B, not in the times above): median {} ms\n",
                             dtype_name(operand_type(r.precision)), fmt_ms(r.conversion_ms->median));
  if (r.kernel.timing && r.kernel.timing->capped)
    std::cout << fmt::format("note: {} timed runs instead of {} (--max-seconds {})\n", r.kernel.timing->iters,
                             r.spec.timing.iters, r.spec.timing.max_seconds);
  auto detail = [&](const KernelRun& k) {
    if (!k.first.checked) return;
    const Verification& v = k.first;
    std::cout << fmt::format(
        "verification {}: rel Frobenius {:.2e} (tol {:.0e}), worst element {:.2e} (tol {:.0e}), max |error| {:.2e}, "
        "non-finite {}{}\n",
        k.id, v.rel_frobenius, v.tolerance.rel_frobenius, v.max_elementwise, v.tolerance.elementwise,
        v.max_abs_error, v.nonfinite,
        k.last.checked ? fmt::format(" | after timing: {}", k.last.summary()) : std::string());
  };
  detail(r.kernel);
  if (r.cublas) detail(*r.cublas);
}

}  // namespace gemmlab::cli
