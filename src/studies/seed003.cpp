// Study seed003: seed 003's two grids (a GT 240 project), rerun on this GPU with cuBLAS beside them.
//
//   versions 1-3 (one block; multi-block; shared tiles) x blocks 8, 16, 22 x sizes 176, 352, 528
//   versions 3-5 (shared tiles; + register prefetch; + 2x2 outputs) x blocks 8, 16 x sizes 128..640
//
// Seed 003 tabulates, per version, time [ms], GFLOPS, GIPS and CGMA with rows = matrix size and
// columns = block size; that is the layout here. GIPS (instructions per second) needs the
// profiler's instruction count and is left to `gemmlab profile`. Seed 003's CGMA tables come from
// profiler counters it does not define (they give 5.3 for version 1, which reads global memory
// twice per multiply-add); the CGMA here is the kernel's model: flops / (loads + stores).
#include <fmt/format.h>

#include "studies/grid.hpp"
#include "studies/study.hpp"

namespace gemmlab {

namespace {

class Seed003 final : public Study {
 public:
  std::string name() const override { return "seed003"; }
  std::string title() const override {
    return "seed 003 (GT 240 project): versions 1-5, from one block to 2x2 outputs with prefetch";
  }
  std::string grid() const override {
    return "versions 1-3 x blocks 8, 16, 22 x sizes 176, 352, 528; versions 3-5 x blocks 8, 16 x sizes 128, 256, "
           "384, 512, 640";
  }

  std::vector<nlohmann::json> run(Lab& lab, const StudyOptions& opt, std::ostream& out) const override {
    const studies::Variant v1{"version 1: one thread block, global memory", "seed.single_block", {}};
    const studies::Variant v2{"version 2: multi-block grid, global memory", "seed.naive", {}};
    const studies::Variant v3{"version 3: shared-memory tiles", "seed.shared", {}};
    const studies::Variant v4{"version 4: tiles + register prefetch", "seed.prefetch", {}};
    const studies::Variant v5{"version 5: 2x2 outputs per thread + prefetch", "seed.prefetch_2x2", {}};

    struct Group {
      std::vector<studies::Variant> versions;
      std::vector<int> blocks;
      std::vector<std::int64_t> sizes;
    };
    std::vector<Group> groups = {{{v1, v2, v3}, {8, 16, 22}, {176, 352, 528}},
                                 {{v3, v4, v5}, {8, 16}, {128, 256, 384, 512, 640}}};
    if (opt.quick)
      for (Group& gr : groups) gr.sizes.resize(1);  // the smallest size of each grid

    studies::StudyGrid g(lab, opt, name());
    for (const Group& gr : groups)
      for (std::int64_t s : gr.sizes) {
        g.run_cublas(s);
        for (const studies::Variant& v : gr.versions)
          for (int b : gr.blocks) g.run(v, b, s);
      }

    out << g.settings() << "\n\n";
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const Group& gr = groups[i];
      out << fmt::format("== grid {}: {} x blocks {} x sizes {}\n\n", i + 1,
                         i == 0 ? "versions 1-3" : "versions 3-5", fmt::join(gr.blocks, ", "), fmt::join(gr.sizes, ", "));
      for (const studies::Variant& v : gr.versions)
        studies::print_size_by_block(out, g, fmt::format("{} [{}]", v.label, studies::describe(v)), v.label, gr.blocks,
                                     gr.sizes, true);
    }
    out << "CGMA: flops / (global loads + stores) of the kernel's own model (seed 000's definition); seed 003's\n"
           "CGMA tables count something else (profiler transactions) and are not comparable.\n"
           "GIPS (seed 003's instructions per second) needs the profiler's instruction count: see `gemmlab profile`.\n";
    g.print_check_note(out);
    return g.records();
  }
};

}  // namespace

void register_study_seed003(StudyRegistry& r) { r.add(std::make_unique<Seed003>()); }

}  // namespace gemmlab
