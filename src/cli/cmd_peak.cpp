// gemmlab peak: the GPU's FP32 FMA rate, device-memory bandwidth and mma.sync BF16 rate measured
// with gemmlab's microbenchmarks, next to the theoretical and datasheet values, and seed 002's
// bandwidth-bound estimate for the naive kernel. --json writes the peaks for the roofline
// (`gemmlab run --roofline --peaks FILE`, reports).
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "analysis/peak.hpp"
#include "analysis/roofline.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "results/record.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

namespace {

struct PeakCliOptions {
  int warmup = 3, iters = 20;
  double target_ms = 20;
  bool no_tensor = false;
  std::string json;
};

std::string value(double v, const std::string& unit) {
  if (!(v > 0)) return "-";
  return fmt::format("{:.4g} {}", v, unit);
}

void peak(const PeakCliOptions& o) {
  Lab lab;
  PeakOptions po;
  po.warmup = o.warmup;
  po.iters = o.iters;
  po.target_ms = o.target_ms;
  po.tensor = !o.no_tensor;
  const PeakReport rep = measure_peaks(lab, po);
  const DeviceInfo& dev = lab.device();
  std::cout << fmt::format("{} | {} SMs | {} warm-up + {} timed runs per measurement, median reported\n\n", dev.name,
                           dev.sm_count, o.warmup, o.iters);
  Table t({"measurement", "measured", "theoretical", "measured / theoretical", "runs (ms: median, min..max)",
           "theoretical from"});
  for (const PeakMeasurement& m : rep.rows)
    t.add({m.what, value(m.measured, m.unit), value(m.reference, m.unit),
           m.measured > 0 && m.reference > 0 ? fmt_percent(m.measured / m.reference) : "-",
           m.ms.count > 0 ? fmt::format("{}: {}, {}..{}", m.ms.count, fmt_ms(m.ms.median), fmt_ms(m.ms.min),
                                        fmt_ms(m.ms.max))
                          : "-",
           m.reference_what});
  t.print(std::cout);

  // Seed 002: the naive kernel moves 8 bytes (an A and a B element) per 2 flops.
  const double naive_bytes_per_flop = 4.0;
  std::cout << fmt::format(
      "\nbandwidth-bound estimate for the naive kernel (seed 002: 8 bytes per 2 flops = {} B/flop, without caches):\n"
      "  measured bandwidth {:.0f} GB/s / {} = {:.1f} GFLOPS; theoretical {:.0f} GB/s / {} = {:.1f} GFLOPS\n",
      naive_bytes_per_flop, rep.peaks.dram_gbs, naive_bytes_per_flop,
      bandwidth_bound_gflops(rep.peaks.dram_gbs, naive_bytes_per_flop), dev.peak_dram_gbs(), naive_bytes_per_flop,
      dev.peak_dram_gbs() > 0 ? bandwidth_bound_gflops(dev.peak_dram_gbs(), naive_bytes_per_flop) : 0.0);
  std::cout << fmt::format("ridge point (FP32): {:.1f} flop/B measured, {:.1f} flop/B theoretical\n",
                           rep.peaks.fp32_tflops * 1e3 / rep.peaks.dram_gbs,
                           dev.peak_dram_gbs() > 0 ? dev.peak_fp32_tflops() * 1e3 / dev.peak_dram_gbs() : 0.0);

  if (!o.json.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const PeakMeasurement& m : rep.rows)
      rows.push_back({{"what", m.what},
                      {"measured", m.measured},
                      {"unit", m.unit},
                      {"reference", m.reference},
                      {"reference_what", m.reference_what},
                      {"median_ms", m.ms.median},
                      {"min_ms", m.ms.min},
                      {"max_ms", m.ms.max},
                      {"runs", m.ms.count},
                      {"work_per_run", m.work}});
    const nlohmann::json j = {{"context", run_context(dev, command_line())},
                              {"peaks", peaks_to_json(rep.peaks)},
                              {"measurements", rows}};
    std::ofstream f(o.json);
    if (!f) throw Error(fmt::format("cannot write {}", o.json));
    f << j.dump(2) << "\n";
    std::cout << fmt::format("peaks written to {}\n", o.json);
  }
}

}  // namespace

void add_peak_command(CLI::App& app) {
  static PeakCliOptions o;
  auto* cmd = app.add_subcommand("peak", "measure the GPU's FP32, memory and mma.sync BF16 peaks (the roofline)");
  cmd->add_option("--warmup", o.warmup, "untimed runs before timing")->check(CLI::Range(0, 100));
  cmd->add_option("--iters", o.iters, "timed runs per measurement")->check(CLI::Range(1, 10000));
  cmd->add_option("--target-ms", o.target_ms, "length of one timed run")->check(CLI::Range(0.1, 10000.0));
  cmd->add_flag("--no-tensor", o.no_tensor, "skip the mma.sync BF16 measurement");
  cmd->add_option("--json", o.json, "write the peaks as JSON (for run --roofline --peaks and reports)");
  cmd->callback([] { peak(o); });
}

}  // namespace gemmlab::cli
