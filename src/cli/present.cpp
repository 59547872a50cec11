#include "cli/present.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "kernels/registry.hpp"

namespace gemmlab::cli {

std::size_t terminal_columns() {
  if (isatty(STDOUT_FILENO)) {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    if (const char* c = std::getenv("COLUMNS")) {
      const long n = std::strtol(c, nullptr, 10);
      if (n >= 40) return std::size_t(n);
    }
  }
  return 100;
}


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
  return fmt::format("{} | {} {} | {} L2 | {} warm-up + {} timed runs{}, median reported", device,
                     precision_name(r.precision), to_string(r.spec.shape), t.flush_l2 ? "cold" : "hot", t.warmup,
                     r.kernel.timing ? r.kernel.timing->iters : 0,
                     t.interleave && r.cublas ? ", alternating with cuBLAS" : "");
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
  if (r.kernel.timing && r.spec.timing.hold && !r.kernel.timing->held)
    std::cout << "note: a hold gave up (a run waited for the stream?): the runs were timed again, each as the host "
                 "enqueued it, so short ones include the host's launch work\n";
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
  if (r.traffic.flops > 0 && r.traffic.global_loads + r.traffic.global_stores > 0)
    std::cout << fmt::format("kernel model: CGMA {:.3g} (flops per element its threads load or store)\n",
                             r.traffic.cgma());
}

namespace {
double min_traffic_bytes(const RunResult& r) {
  return min_dram_bytes(r.spec.shape, operand_type(r.precision), r.spec.output, r.spec.beta != 0.0f);
}
}  // namespace

void print_roofline(const RunResult& r, const Roof& roof) {
  const double flops = r.spec.shape.flops();
  const double min_bytes = min_traffic_bytes(r);
  const RoofPoint k = place_on_roof(roof, flops, min_bytes, r.gflops());
  auto tf = [](double gflops) { return gflops >= 1000 ? fmt::format("{:.1f} TFLOPS", gflops / 1e3) : fmt::format("{:.1f} GFLOPS", gflops); };
  std::cout << fmt::format("roofline ({}): compute roof {} ({}), bandwidth {:.0f} GB/s\n", roof.source,
                           roof.compute_gflops > 0 ? tf(roof.compute_gflops) : std::string("unknown"),
                           roof.compute_what, roof.bandwidth_gbs);
  std::cout << fmt::format("  arithmetic intensity {:.1f} flop/B (2MNK / {:.4g} MB: A, B read once, C written once)",
                           k.intensity, min_bytes / 1e6);
  if (r.traffic.bytes() > 0)
    std::cout << fmt::format("; kernel model's global traffic: {:.3g} flop/B", flops / r.traffic.bytes());
  std::cout << "\n";
  if (k.attainable_gflops <= 0) {
    std::cout << "  no roof known for this precision on this GPU (run 'gemmlab peak --json FILE' and pass --peaks FILE)\n";
    return;
  }
  std::cout << fmt::format("  roof at this intensity: {} ({}-bound)\n", tf(k.attainable_gflops),
                           k.memory_bound ? "memory" : "compute");
  if (k.share > 0) std::cout << fmt::format("  {}: {} = {} of the roof\n", r.kernel.id, tf(r.gflops()), fmt_percent(k.share));
  if (r.cublas_gflops() > 0)
    std::cout << fmt::format("  {}: {} = {} of the roof\n", r.cublas->id, tf(r.cublas_gflops()),
                             fmt_percent(r.cublas_gflops() / k.attainable_gflops));
}

nlohmann::json roofline_json(const RunResult& r, const Roof& roof) {
  const double flops = r.spec.shape.flops();
  const double min_bytes = min_traffic_bytes(r);
  const RoofPoint k = place_on_roof(roof, flops, min_bytes, r.gflops());
  nlohmann::json j = {{"arithmetic_intensity", k.intensity},
                      {"min_dram_bytes", min_bytes},
                      {"model_intensity", r.traffic.bytes() > 0 ? flops / r.traffic.bytes() : 0.0},
                      {"model_cgma", r.traffic.flops > 0 ? r.traffic.cgma() : 0.0},
                      {"roof_compute_gflops", roof.compute_gflops},
                      {"roof_bandwidth_gbs", roof.bandwidth_gbs},
                      {"roof_source", roof.source},
                      {"roof_gflops", k.attainable_gflops},
                      {"roof_share", k.share},
                      {"memory_bound", k.memory_bound}};
  if (k.attainable_gflops > 0 && r.cublas_gflops() > 0) j["cublas_roof_share"] = r.cublas_gflops() / k.attainable_gflops;
  return j;
}

}  // namespace gemmlab::cli
