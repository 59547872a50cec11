// Study seed002: seed 002's lecture comparison (GTX 1060), rerun on this GPU: the naive kernel
// ("first attempt") against the tiled one ("version 2", TILE_WIDTH = 32) at 1024 x 1024, with the
// lecture's bandwidth-bound estimate of the naive kernel and cuBLAS beside them.
//
// The lecture's estimate: each multiply-add of the naive kernel reads two floats (8 bytes) for 2
// flops, 4 bytes per flop, so at bandwidth BW it can reach at most BW / 4 flop/s (192 GB/s / 4 =
// 48 GFLOPS on a GTX 1060; measured 17). Here BW is the GPU's theoretical DRAM bandwidth (memory
// clock x bus width, DeviceInfo::peak_dram_gbs), not a measured one. The estimate assumes every
// load goes to DRAM; caches can make the naive kernel beat it, and the output says which happened.
#include <fmt/format.h>

#include "results/table.hpp"
#include "studies/grid.hpp"
#include "studies/study.hpp"

namespace gemmlab {

namespace {

constexpr double kBytesPerFlop = 4.0;  // the lecture's 8 bytes / 2 operations
constexpr int kTile = 32;
constexpr std::int64_t kSize = 1024;

class Seed002 final : public Study {
 public:
  std::string name() const override { return "seed002"; }
  std::string title() const override {
    return "seed 002 (lecture, GTX 1060): naive vs tiled, and the bandwidth-bound estimate";
  }
  std::string grid() const override { return "naive and tiled (32x32 blocks) at 1024x1024x1024"; }

  std::vector<nlohmann::json> run(Lab& lab, const StudyOptions& opt, std::ostream& out) const override {
    const studies::Variant naive{"naive ('first attempt')", "seed.naive", {}};
    const studies::Variant tiled{"tiled ('version 2')", "seed.shared", {}};
    // The lecture has one size; --quick runs it too (three measurements at 1024 are quick).
    studies::StudyGrid g(lab, opt, name());
    const studies::Measurement& cb = g.run_cublas(kSize);
    const studies::Measurement& mn = g.run(naive, kTile, kSize);
    const studies::Measurement& mt = g.run(tiled, kTile, kSize);

    const DeviceInfo& dev = lab.device();
    const double bw = dev.peak_dram_gbs();
    const double estimate = bw / kBytesPerFlop;
    const double peak = dev.peak_fp32_tflops();
    out << g.settings() << "\n\n";
    out << fmt::format(
        "The lecture's estimate for the naive kernel: a multiply-add reads 2 floats (8 bytes) for 2 flops, "
        "{} bytes per flop.\n"
        "  theoretical DRAM bandwidth of {}: {:.0f} GB/s (memory clock x bus width; not measured)\n"
        "  bandwidth-bound estimate: {:.0f} / {} = {:.0f} GFLOPS        (lecture: 192 / 4 = 48 GFLOPS on a GTX 1060)\n"
        "  bandwidth the theoretical FP32 peak of {:.1f} TFLOPS would need at {} bytes per flop: {:.0f} TB/s "
        "(lecture: 16 TB/s)\n\n",
        kBytesPerFlop, dev.name, bw, bw, kBytesPerFlop, estimate, peak, kBytesPerFlop, peak * kBytesPerFlop);

    const bool both = mn.ran() && mn.passed() && mt.ran() && mt.passed();
    Table t({"", "naive", "tiled 32x32", "cuBLAS"});
    auto loads = [](const studies::Measurement& m) {
      return m.result ? fmt::format("{:.3g}", m.result->traffic.global_loads) : std::string("-");
    };
    t.add({"reads from global memory (model)", loads(mn), loads(mt), "-"});
    t.add({"lecture's formula", fmt::format("2N^3 = {:.3g}", 2.0 * kSize * kSize * kSize),
           fmt::format("2N^2 (N/32) = {:.3g}", 2.0 * kSize * kSize * (kSize / kTile)), "-"});
    t.add({"time ms (median)", studies::cell_ms(&mn), studies::cell_ms(&mt), studies::cell_ms(&cb)});
    t.add({"GFLOPS", studies::cell_gflops(&mn), studies::cell_gflops(&mt), studies::cell_gflops(&cb)});
    t.add({"speed-up over naive", "1x", both ? fmt::format("{:.1f}x", mn.median_ms() / mt.median_ms()) : "-",
           both && cb.ran() ? fmt::format("{:.1f}x", mn.median_ms() / cb.median_ms()) : "-"});
    t.add({"lecture (GTX 1060)", "17 GFLOPS", "640 GFLOPS, 37x", "-"});
    t.print(out);
    out << '\n';
    if (mn.ran() && mn.passed()) {
      const double achieved = mn.gflops();
      out << fmt::format(
          "The naive kernel reaches {:.0f} GFLOPS, {:.2f} x the bandwidth-bound estimate of {:.0f} GFLOPS: {}\n", achieved,
          achieved / estimate, estimate,
          achieved > estimate
              ? "above it, so most of its loads are served by the L1/L2 caches, not DRAM (the estimate assumes every "
                "load goes to DRAM)."
              : "below it, as the lecture predicts for a kernel that streams its operands from DRAM.");
    }
    g.print_check_note(out);

    return g.records([&](const studies::Measurement& m, nlohmann::json& j) {
      j["theoretical_dram_gbs"] = bw;
      j["bandwidth_bound_estimate_gflops"] = estimate;
      if (m.variant == tiled.label && both) j["speedup_vs_naive"] = mn.median_ms() / mt.median_ms();
    });
  }
};

}  // namespace

void register_study_seed002(StudyRegistry& r) { r.add(std::make_unique<Seed002>()); }

}  // namespace gemmlab
