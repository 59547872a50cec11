#include "analysis/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "analysis/gpu_specs.hpp"
#include "core/error.hpp"

namespace gemmlab {

double bandwidth_bound_gflops(double bandwidth_gbs, double bytes_per_flop) {
  if (!(bandwidth_gbs > 0) || !(bytes_per_flop > 0))
    throw Error(fmt::format("bandwidth-bound estimate needs a positive bandwidth and bytes per flop (got {} GB/s, {} B/flop)",
                            bandwidth_gbs, bytes_per_flop));
  return bandwidth_gbs / bytes_per_flop;
}

double bytes_per_flop(const TrafficModel& t) {
  if (!(t.flops > 0)) throw Error("bytes per flop: the traffic model has no flops");
  return t.bytes() / t.flops;
}

double min_dram_bytes(const Shape& s, DType operand, DType output, bool reads_c) {
  const double op = double(dtype_size(operand)), out = double(dtype_size(output));
  const double a = double(s.m) * double(s.k), b = double(s.k) * double(s.n), c = double(s.m) * double(s.n);
  return op * (a + b) + out * c * (reads_c ? 2.0 : 1.0);
}

nlohmann::json peaks_to_json(const Peaks& p) {
  return {{"device", p.device},
          {"fp32_tflops", p.fp32_tflops},
          {"dram_gbs", p.dram_gbs},
          {"memcpy_gbs", p.memcpy_gbs},
          {"mma_bf16_tflops", p.mma_bf16_tflops},
          {"theoretical_fp32_tflops", p.theoretical_fp32_tflops},
          {"theoretical_dram_gbs", p.theoretical_dram_gbs},
          {"datasheet_bf16_tflops", p.datasheet_bf16_tflops}};
}

Peaks peaks_from_json(const nlohmann::json& in) {
  const nlohmann::json& j = in.contains("peaks") ? in.at("peaks") : in;
  if (!j.is_object() || !j.contains("fp32_tflops") || !j.contains("dram_gbs"))
    throw Error("not a gemmlab peaks file (expected \"fp32_tflops\" and \"dram_gbs\"; write one with 'gemmlab peak --json FILE')");
  auto num = [&](const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return 0.0;
    if (!j.at(key).is_number()) throw Error(fmt::format("peaks file: \"{}\" is not a number", key));
    const double v = j.at(key).get<double>();
    if (!std::isfinite(v) || v < 0) throw Error(fmt::format("peaks file: \"{}\" = {} is not a valid peak", key, v));
    return v;
  };
  Peaks p;
  if (j.contains("device") && !j.at("device").is_string() && !j.at("device").is_null())
    throw Error(fmt::format("peaks file: \"device\" is {}, not a string", j.at("device").dump()));
  p.device = j.contains("device") && j.at("device").is_string() ? j.at("device").get<std::string>() : std::string();
  p.fp32_tflops = num("fp32_tflops");
  p.dram_gbs = num("dram_gbs");
  p.memcpy_gbs = num("memcpy_gbs");
  p.mma_bf16_tflops = num("mma_bf16_tflops");
  p.theoretical_fp32_tflops = num("theoretical_fp32_tflops");
  p.theoretical_dram_gbs = num("theoretical_dram_gbs");
  p.datasheet_bf16_tflops = num("datasheet_bf16_tflops");
  return p;
}

Peaks read_peaks_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error(fmt::format("cannot open peaks file {}", path));
  nlohmann::json j;
  try {
    f >> j;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not valid JSON ({})", path, e.what()));
  }
  try {
    return peaks_from_json(j);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

Roof roof_for(Precision p, const DeviceInfo& dev, const Peaks* measured) {
  Roof r;
  const bool have = measured != nullptr;
  r.bandwidth_gbs = have && measured->dram_gbs > 0 ? measured->dram_gbs : dev.peak_dram_gbs();
  const bool bw_measured = have && measured->dram_gbs > 0;
  bool compute_measured = false;
  if (p == Precision::fp32) {
    r.compute_what = "FP32 FMA";
    compute_measured = have && measured->fp32_tflops > 0;
    r.compute_gflops = 1e3 * (compute_measured ? measured->fp32_tflops : dev.peak_fp32_tflops());
  } else {
    // Tensor cores: BF16 and FP16 run at the same rate, TF32 at half of it.
    const double factor = p == Precision::tf32 ? 0.5 : 1.0;
    const GpuSpec* spec = match_gpu(dev);
    const double datasheet = spec ? spec->bf16_dense_tflops : (have ? measured->datasheet_bf16_tflops : 0.0);
    compute_measured = have && measured->mma_bf16_tflops > 0;
    r.compute_what = compute_measured ? fmt::format("mma.sync BF16{}", factor < 1 ? " / 2 (TF32)" : "")
                                      : fmt::format("tensor-core {} (datasheet, dense)", precision_name(p));
    r.compute_gflops = 1e3 * factor * (compute_measured ? measured->mma_bf16_tflops : datasheet);
  }
  if (compute_measured && bw_measured) r.source = "measured (gemmlab peak)";
  else if (!compute_measured && !bw_measured) r.source = "theoretical";
  else r.source = compute_measured ? "compute measured, bandwidth theoretical" : "bandwidth measured, compute theoretical";
  return r;
}

RoofPoint place_on_roof(const Roof& roof, double flops, double bytes, double achieved_gflops) {
  RoofPoint pt;
  if (!(bytes > 0) || !(flops > 0)) return pt;
  pt.intensity = flops / bytes;
  if (roof.compute_gflops > 0 && roof.bandwidth_gbs > 0) {
    const double memory_roof = pt.intensity * roof.bandwidth_gbs;
    pt.memory_bound = memory_roof < roof.compute_gflops;
    pt.attainable_gflops = std::min(roof.compute_gflops, memory_roof);
    if (achieved_gflops > 0) pt.share = achieved_gflops / pt.attainable_gflops;
  }
  return pt;
}

}  // namespace gemmlab
