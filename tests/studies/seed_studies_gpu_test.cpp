// Each seed study, run with --quick (smallest size of its grid, few timed runs): the records it
// returns are complete (one per grid cell plus cuBLAS per size) and every one verified.
#include <sstream>

#include "support/gpu_test.hpp"
#include "studies/study.hpp"

using namespace gemmlab;

namespace {

struct Expected {
  std::string study;
  std::size_t records;  // with --quick: kernel cells + one cuBLAS measurement per size
};
void PrintTo(const Expected& e, std::ostream* os) { *os << e.study; }

// seed000: 4 methods x 3 blocks at 64, + cuBLAS at 64.
// seed002: naive + tiled + cuBLAS at 1024.
// seed003: versions 1-3 x 3 blocks at 176 and versions 3-5 x 2 blocks at 128, + cuBLAS at both.
// seed004: 4 variants x 2 blocks at 1024, + cuBLAS.
const std::vector<Expected> kQuick = {{"seed000", 4 * 3 + 1}, {"seed002", 3}, {"seed003", 9 + 6 + 2}, {"seed004", 4 * 2 + 1}};

class SeedStudies : public GpuTestWithParam<Expected> {};

TEST_P(SeedStudies, QuickRunReturnsEveryCellVerified) {
  const Expected& e = GetParam();
  const Study& study = StudyRegistry::instance().get(e.study);
  Lab lab;
  StudyOptions opt;
  opt.quick = true;
  opt.warmup = 1;
  opt.iters = 3;
  opt.max_seconds = 0.5;
  std::ostringstream out;
  const std::vector<nlohmann::json> records = study.run(lab, opt, out);
  SCOPED_TRACE(out.str());
  ASSERT_EQ(records.size(), e.records);
  std::size_t baselines = 0;
  for (const nlohmann::json& r : records) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r.value("study", ""), e.study);
    EXPECT_EQ(r.value("status", ""), "ok");
    EXPECT_TRUE(r.value("kernel_passed", false));
    EXPECT_TRUE(r.value("kernel_verified", false));
    EXPECT_GT(r.value("time_median_ms", 0.0), 0.0);
    EXPECT_GT(r.value("gflops", 0.0), 0.0);
    if (r.value("role", "") == "baseline") {
      ++baselines;
      EXPECT_EQ(r.value("kernel", ""), "cublas.fp32");
    } else {
      EXPECT_GT(r.value("ratio_to_cublas", 0.0), 0.0) << "no cuBLAS beside the kernel";
      EXPECT_TRUE(r.contains("block"));
      // The seeds' own comparisons travel in the records too.
      if (e.study == "seed004" && r.value("kernel", "") == "seed.quadrant")
        EXPECT_GT(r.value("speedup_vs_nvidia_sample", 0.0), 0.0);
      if (e.study == "seed004") EXPECT_EQ(r.value("init", ""), "linear");
      if (e.study == "seed002" && r.value("kernel", "") == "seed.shared") EXPECT_GT(r.value("speedup_vs_naive", 0.0), 0.0);
      if (e.study == "seed003" || e.study == "seed000") EXPECT_GT(r.value("model_cgma", 0.0), 0.0);
    }
  }
  EXPECT_GE(baselines, 1u);
  EXPECT_NE(out.str().find("cuBLAS"), std::string::npos);
  EXPECT_NE(out.str().find("verified against float64"), std::string::npos);
  EXPECT_EQ(out.str().find("NOT OK"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Quick, SeedStudies, ::testing::ValuesIn(kQuick),
                         [](const auto& info) { return info.param.study; });

}  // namespace
