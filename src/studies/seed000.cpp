// Study seed000: seed 000's grid (a GTX 1050 lab report): methods 1, 2 and 6 (2 and 4 outputs per
// thread) x blocks 8, 16, 32 x square sizes 64, 128, 256, rerun on this GPU with cuBLAS beside it.
//
// The seed plots GFLOPS against size per block and tabulates profiler metrics per (block, size);
// here each method gets a table with rows = size and, per block, the median time, GFLOPS and the
// CGMA of the kernel's traffic model (seed 000 section 4 gives 1, 1, 4/3 x block, 2 x block).
#include <fmt/format.h>

#include "studies/grid.hpp"
#include "studies/study.hpp"

namespace gemmlab {

namespace {

class Seed000 final : public Study {
 public:
  std::string name() const override { return "seed000"; }
  std::string title() const override {
    return "seed 000 (GTX 1050 report): methods 1, 2 and 6, work per thread and shared memory";
  }
  std::string grid() const override {
    return "methods 1, 2, 6 (2 outputs), 6 (4 outputs) x blocks 8, 16, 32 x sizes 64, 128, 256";
  }

  std::vector<nlohmann::json> run(Lab& lab, const StudyOptions& opt, std::ostream& out) const override {
    struct Method {
      studies::Variant variant;
      std::string seed_cgma;  // seed 000's formula, in words
      double seed_cgma_per_block;  // ... as a factor of the block size (0: the constant 1)
    };
    const std::vector<Method> methods = {
        {{"method 1: one thread block, global memory", "seed.single_block", {}}, "1", 0},
        {{"method 2: multi-block grid, global memory", "seed.naive", {}}, "1", 0},
        {{"method 6: 2 outputs per thread, double-buffered shared memory", "seed.double_buffer", {{"outputs", 2}}},
         "4/3 x block",
         4.0 / 3.0},
        {{"method 6: 4 outputs per thread, double-buffered shared memory", "seed.double_buffer", {{"outputs", 4}}},
         "2 x block",
         2.0},
    };
    const std::vector<int> blocks = {8, 16, 32};
    const std::vector<std::int64_t> sizes = opt.quick ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{64, 128, 256};

    studies::StudyGrid g(lab, opt, name());
    for (std::int64_t s : sizes) {
      g.run_cublas(s);
      for (const Method& m : methods)
        for (int b : blocks) g.run(m.variant, b, s);
    }

    out << g.settings() << "\n\n";
    for (const Method& m : methods)
      studies::print_size_by_block(
          out, g,
          fmt::format("{} [{}]; seed 000's CGMA: {}", m.variant.label, studies::describe(m.variant), m.seed_cgma),
          m.variant.label, blocks, sizes, true);
    out << "CGMA: flops / (global loads + stores) of the kernel's own model, elements as its code requests them.\n"
           "Seed 000 counts loads only (per thread and strip), so its values are the large-size limit of these.\n"
           "The seed's profiler table (GMLE, GMSE, requested throughputs, multiprocessor activity, achieved\n"
           "occupancy) needs the profiler: see `gemmlab profile`.\n";
    g.print_check_note(out);

    return g.records([&](const studies::Measurement& m, nlohmann::json& j) {
      for (const Method& me : methods)
        if (me.variant.label == m.variant)
          j["seed_cgma"] = me.seed_cgma_per_block == 0 ? 1.0 : me.seed_cgma_per_block * m.block;
    });
  }
};

}  // namespace

void register_study_seed000(StudyRegistry& r) { r.add(std::make_unique<Seed000>()); }

}  // namespace gemmlab
