#include "sweep/sweep.hpp"

#include <map>
#include <set>

#include "core/error.hpp"
#include "results/record.hpp"

namespace gemmlab {

namespace {

// The cuBLAS numbers a kernel's record carries, from the baseline's own record (measured once
// for this shape), in the fields to_json uses when cuBLAS runs beside the kernel.
void attach_baseline(nlohmann::json& record, const nlohmann::json& base) {
  if (!base.contains("time_median_ms")) return;
  record["cublas_kernel"] = base["kernel"];
  for (const char* stat : {"min", "max", "mean", "median", "stddev", "p10", "p90"}) {
    const std::string key = std::string("time_") + stat + "_ms";
    if (base.contains(key)) record["cublas_" + key] = base[key];
  }
  if (base.contains("gflops")) record["cublas_gflops"] = base["gflops"];
  for (const char* v : {"passed", "rel_error", "elementwise_error", "nonfinite", "verified", "max_abs_error"}) {
    const std::string key = std::string("kernel_") + v;
    if (base.contains(key)) record["cublas_" + std::string(v)] = base[key];
  }
  if (record.contains("time_median_ms") && record["time_median_ms"].get<double>() > 0)
    record["ratio_to_cublas"] = base["time_median_ms"].get<double>() / record["time_median_ms"].get<double>();
}

}  // namespace

SweepOutcome run_sweep(const std::vector<SweepItem>& plan, const SweepSpec& spec, const SweepRunner& runner,
                       SweepOutput& output, SweepProgress& progress) {
  SweepOutcome outcome;
  std::set<std::string> done;
  std::map<std::string, nlohmann::json> baselines;  // key -> record, for ratios
  for (const auto& r : output.records()) {
    const std::string key = config_key(r);
    done.insert(key);
    if (r.value("family", "") == "baseline" && r.value("status", "") == "ok") baselines[key] = r;
  }
  std::vector<const SweepItem*> pending;
  std::size_t to_measure = 0;
  for (const SweepItem& item : plan) {
    if (done.count(item.key)) {
      ++outcome.resumed;
      continue;
    }
    pending.push_back(&item);
    if (!item.skip_reason) ++to_measure;
  }

  progress.start(pending.size(), to_measure);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const SweepItem& item = *pending[i];
    nlohmann::json record;
    bool measured = false;
    if (item.skip_reason) {
      record = item_record(item, spec);
      record["status"] = "skipped";
      record["reason"] = *item.skip_reason;
      ++outcome.skipped;
    } else {
      progress.begin(i, item);
      try {
        record = to_json(runner(item_run_spec(item, spec)));
        measured = true;
        if (record.value("status", "") == "ok")
          ++outcome.measured;
        else
          ++outcome.failed;
      } catch (const SweepAbort&) {
        throw;
      } catch (const Error& e) {
        record = item_record(item, spec);
        record["status"] = "error";
        record["reason"] = e.what();
        ++outcome.errors;
      }
    }
    if (item.baseline && record.value("status", "") == "ok") baselines[item.key] = record;
    if (!item.baseline_key.empty() && measured) {
      auto base = baselines.find(item.baseline_key);
      if (base != baselines.end()) attach_baseline(record, base->second);
    }
    output.append(record);
    progress.end(i, item, record, measured);
  }
  progress.finish();
  return outcome;
}

}  // namespace gemmlab
