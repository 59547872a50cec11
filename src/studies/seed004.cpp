// Study seed004: seed 004's grid (a GTX 1080 project), rerun on this GPU with cuBLAS beside it:
// the NVIDIA sample (1 output per thread) and the quadrant layout with 4, 8 and 16 outputs per
// thread x blocks 16, 32 x sizes 1024, 1600, 2048, 3200, inputs from seed 004's LinearInit.
//
// Seed 004 tabulates per variant and block: GFLOPS, time [ms] and the speed-up over the NVIDIA
// sample at the same block and size. That is the layout here, with cuBLAS's GFLOPS beside it.
//
// LinearInit (A = 0, 1, 2, ...; B = size, size - 1, ...) is what the seed timed, so it is what is
// timed and verified here. The values are integers below 3200^2 = 10,240,000 < 2^24, exact in
// float; every product is positive, so the float64 reference's error bound is the sum itself and
// the FP32 accumulation error stays near 1e-5 of it at 3200 (simulated on the CPU with the kernels'
// k order), well inside the FP32 tolerance of 1e-4. The check line at the end reports the worst
// error actually seen.
#include <fmt/format.h>

#include "results/table.hpp"
#include "studies/grid.hpp"
#include "studies/study.hpp"

namespace gemmlab {

namespace {

const std::string kSample = "1 output per thread (NVIDIA sample)";

class Seed004 final : public Study {
 public:
  std::string name() const override { return "seed004"; }
  std::string title() const override {
    return "seed 004 (GTX 1080 project): 1, 4, 8, 16 outputs per thread, quadrant layout";
  }
  std::string grid() const override {
    return "NVIDIA sample and 4, 8, 16 outputs per thread x blocks 16, 32 x sizes 1024, 1600, 2048, 3200 (LinearInit)";
  }

  std::vector<nlohmann::json> run(Lab& lab, const StudyOptions& opt, std::ostream& out) const override {
    const std::vector<studies::Variant> variants = {
        {kSample, "seed.shared", {}},
        {"4 outputs per thread (2x2 parts)", "seed.quadrant", {{"outputs", 4}}},
        {"8 outputs per thread (2x4 parts)", "seed.quadrant", {{"outputs", 8}}},
        {"16 outputs per thread (4x4 parts)", "seed.quadrant", {{"outputs", 16}}},
    };
    const std::vector<int> blocks = {16, 32};
    const std::vector<std::int64_t> sizes =
        opt.quick ? std::vector<std::int64_t>{1024} : std::vector<std::int64_t>{1024, 1600, 2048, 3200};

    studies::StudyGrid g(lab, opt, name(), Init::linear);
    for (std::int64_t s : sizes) {
      g.run_cublas(s);
      for (const studies::Variant& v : variants)
        for (int b : blocks) g.run(v, b, s);
    }

    // Speed-up over the NVIDIA sample at the same block and size (seed 004's last column).
    auto speedup = [&](const studies::Measurement& m) -> std::optional<double> {
      const studies::Measurement* ref = g.find(kSample, m.block, m.size);
      if (!ref || !ref->ran() || !ref->passed() || !m.ran() || !m.passed()) return std::nullopt;
      return ref->median_ms() / m.median_ms();
    };

    out << g.settings() << "\n\n";
    for (const studies::Variant& v : variants)
      for (int b : blocks) {
        const bool is_sample = v.label == kSample;
        std::vector<std::string> header{"size", "GFLOPS", "time ms"};
        if (!is_sample) header.push_back("speed-up vs NVIDIA");
        for (const char* h : {"cuBLAS GFLOPS", "vs cuBLAS"}) header.push_back(h);
        Table t(header);
        for (std::int64_t s : sizes) {
          const studies::Measurement* m = g.find(v.label, b, s);
          const studies::Measurement* cb = g.cublas(s);
          std::vector<std::string> row{fmt::format("{}x{}", s, s), studies::cell_gflops(m), studies::cell_ms(m)};
          if (!is_sample) {
            const auto x = m ? speedup(*m) : std::nullopt;
            row.push_back(x ? fmt::format("{:.2f}x", *x) : "-");
          }
          row.push_back(studies::cell_gflops(cb));
          const bool both = m && m->ran() && m->passed() && cb && cb->ran() && cb->passed();
          row.push_back(both ? fmt::format("{:.1f}%", 100.0 * cb->median_ms() / m->median_ms()) : "-");
          t.add(row);
        }
        out << fmt::format("{}, block {} [{}]\n", v.label, studies::block_label(b), studies::describe(v));
        t.print(out);
        out << '\n';
      }
    out << "Seed 004 timed 10 back-to-back runs between one pair of events and divided by 10; gemmlab times each\n"
           "run between its own events and reports the median. \"vs cuBLAS\" is cuBLAS time / kernel time.\n";
    g.print_check_note(out);

    return g.records([&](const studies::Measurement& m, nlohmann::json& j) {
      if (m.variant == studies::kCublas || m.variant == kSample) return;
      if (const auto x = speedup(m)) j["speedup_vs_nvidia_sample"] = *x;
    });
  }
};

}  // namespace

void register_study_seed004(StudyRegistry& r) { r.add(std::make_unique<Seed004>()); }

}  // namespace gemmlab
