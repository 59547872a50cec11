// Study seed001: seed 001's experiment. The whole multiplication timed phase by phase from the
// host's side (allocations, copies, kernel, synchronisation, frees), for its simple and its
// shared-memory kernel, with C in pageable (malloc) or pinned (cudaMallocHost) host memory, at
// 512..16384; its tables per size and mode, and its relative-gain tables (pageable - pinned) /
// pageable. Beyond the seed: A and B pinned too, and the overlapped pipeline.
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/table.hpp"
#include "studies/study.hpp"
#include "transfer/link.hpp"
#include "transfer/pipeline.hpp"
#include "transfer/report.hpp"

namespace gemmlab {

namespace {

using namespace transfer;

// The seed's two kernels: "dgemm_gpu_simple" and "dgemm_gpu_shared" (32 x 32 tiles, BLOCK_SIZE 32).
const std::vector<std::string> kKernels = {"seed.naive", "seed.shared"};
const std::vector<std::int64_t> kSizes = {512, 1024, 2048, 4096, 8192, 16384};
const std::vector<std::int64_t> kQuickSizes = {512, 1024, 2048};
constexpr int kSeedRuns = 1000;  // the seed's count per variant and size

// The seed used 32 x 32 thread blocks; take block 32 where the kernel offers it.
Params seed_params(const Kernel& k) {
  for (const ParamSpec& p : k.info().params)
    if (p.name == "block" && std::find(p.allowed.begin(), p.allowed.end(), 32) != p.allowed.end()) return {{"block", 32}};
  return {};
}

nlohmann::json skipped_record(const std::string& kernel, std::int64_t n, HostMode m, const std::string& why) {
  return {{"record", "transfer"}, {"study", "seed001"}, {"kernel", kernel}, {"host_mode", std::string(mode_name(m))},
          {"m", n}, {"n", n}, {"k", n}, {"status", "skipped"}, {"reason", why}};
}

class Seed001 final : public Study {
 public:
  std::string name() const override { return "seed001"; }
  std::string title() const override {
    return "Seed 001: pageable vs pinned host memory, the whole multiplication timed phase by phase";
  }
  std::string grid() const override {
    return "seed.naive, seed.shared (block 32) x pageable, pinned-c, pinned, overlapped x 512..16384 "
           "(--quick: 512..2048)";
  }

  std::vector<nlohmann::json> run(Lab& lab, const StudyOptions& opt, std::ostream& out) const override {
    const Registry& reg = Registry::instance();
    PipelinePlan plan;
    plan.warmup = opt.warmup;
    // The study framework's default is 50 runs; this study's default is the seed's 1000.
    plan.runs = opt.iters == StudyOptions{}.iters ? kSeedRuns : opt.iters;
    plan.max_seconds = opt.max_seconds;
    plan.min_runs = 3;
    validate_plan(plan);

    out << fmt::format(
        "runs per kernel, size and mode: {}; up to {} warm-ups first (the seed: 1000 runs after 3 warm-ups at every "
        "size, which would take hours at 16384; --iters and --max-seconds change the rule)\n",
        run_rule(plan.runs, plan.max_seconds, plan.min_runs), plan.warmup);
    out << "clocks: allocations, frees and the final sync with std::chrono::steady_clock; Memcpy AB, Kernel and "
           "Memcpy C with CUDA events\n";
    out << "inputs: uniform random in [-1, 1); every mode's final C (in host memory) is checked against float64\n";
    const LinkPeak peak = measure_link_peak(lab);
    out << fmt::format("link peak (pinned, 256 MiB copies): H2D {:.1f} GB/s, D2H {:.1f} GB/s\n\n", peak.h2d_gbs,
                       peak.d2h_gbs);

    std::vector<const Kernel*> kernels;
    for (const auto& id : kKernels) {
      if (const Kernel* k = reg.find(id))
        kernels.push_back(k);
      else
        out << fmt::format("note: kernel {} is not registered in this build; its tables are left out\n\n", id);
    }
    std::vector<nlohmann::json> records;
    for (const auto& id : kKernels)
      if (!reg.find(id))
        for (std::int64_t n : opt.quick ? kQuickSizes : kSizes)
          for (HostMode m : all_modes()) records.push_back(skipped_record(id, n, m, "kernel not registered in this build"));
    if (kernels.empty()) throw Error("study seed001: none of its kernels (seed.naive, seed.shared) is registered");

    Table summary({"size", "kernel", "pageable ms", "pinned-c ms", "pinned ms", "overlapped ms", "gain pinned-c",
                   "gain pinned", "overlap ratio", "check"});
    for (std::int64_t n : opt.quick ? kQuickSizes : kSizes) {
      const Shape shape{n, n, n};
      out << fmt::format("==== {} x {} ====\n", n, n);
      std::optional<TransferBench> bench;
      try {
        bench.emplace(lab, shape, 1);
      } catch (const ResourceShortage& e) {
        out << "skipped: " << e.what() << "\n\n";
        for (const Kernel* k : kernels)
          for (HostMode m : all_modes()) records.push_back(skipped_record(k->info().id, n, m, e.what()));
        continue;
      }
      for (const Kernel* k : kernels) {
        const Params params = resolve_params(*k, seed_params(*k));
        std::map<HostMode, ModeResult> res;
        std::string cannot;
        for (HostMode m : all_modes()) {
          try {
            check_kernel_for_mode(*k, params, shape, m, plan, lab.device());
          } catch (const Error& e) {
            cannot = e.what();
            break;
          }
        }
        if (!cannot.empty()) {
          out << fmt::format("{}: {}\n\n", k->info().id, cannot);
          for (HostMode m : all_modes()) records.push_back(skipped_record(k->info().id, n, m, cannot));
          continue;
        }
        for (HostMode m : all_modes()) {
          res.emplace(m, bench->measure(*k, params, m, plan));
          print_mode(out, res.at(m), peak);
        }
        const ModeResult& pageable = res.at(HostMode::pageable);
        const ModeResult& pinned = res.at(HostMode::pinned);
        print_gains(out, pageable, res.at(HostMode::pinned_c));
        print_gains(out, pageable, pinned);
        print_overlap(out, pinned, res.at(HostMode::overlapped));
        bool all_ok = true;
        for (HostMode m : all_modes()) {
          nlohmann::json j = to_json(res.at(m), peak, &pinned, &pageable);
          j["study"] = "seed001";
          records.push_back(std::move(j));
          all_ok = all_ok && res.at(m).passed();
        }
        auto total = [&](HostMode m) {
          const ModeResult& r = res.at(m);
          return r.skipped ? std::string("skipped") : format_ms(r.table.total.median);
        };
        auto gain = [&](HostMode m) {
          const ModeResult& r = res.at(m);
          if (r.skipped || pageable.skipped) return std::string("-");
          return format_percent(relative_gain(pageable.table.total.median, r.table.total.median));
        };
        const ModeResult& ov = res.at(HostMode::overlapped);
        summary.add({std::to_string(n), k->info().id, total(HostMode::pageable), total(HostMode::pinned_c),
                     total(HostMode::pinned), total(HostMode::overlapped), gain(HostMode::pinned_c),
                     gain(HostMode::pinned),
                     (ov.skipped || pinned.skipped) ? "-"
                                                    : fmt::format("{:.3f}", summarize_overlap(pinned.table, ov.table).ratio()),
                     all_ok ? "ok" : "FAIL"});
      }
    }
    out << "summary: median total time per run (allocations, copies, kernel, sync, frees); gain = (pageable - mode) "
           "/ pageable of that median; overlap ratio = overlapped GPU window / max(pinned copies, pinned kernel)\n";
    summary.print(out);
    return records;
  }
};

}  // namespace

void register_seed001(StudyRegistry& r) { r.add(std::make_unique<Seed001>()); }

}  // namespace gemmlab
