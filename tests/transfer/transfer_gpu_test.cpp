// The transfer pipeline on a GPU: the final C of every host-memory mode matches float64 (awkward
// sizes and panel counts that do not divide them included), phase times are positive and add up,
// the overlapped pipeline is correct with 2 and 3 streams, the link benchmark and the seed001
// study run end to end.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/gpu_test.hpp"
#include "kernels/registry.hpp"
#include "studies/study.hpp"
#include "transfer/link.hpp"
#include "transfer/pipeline.hpp"

using namespace gemmlab;
using namespace gemmlab::transfer;

namespace {

PipelinePlan small_plan() {
  PipelinePlan p;
  p.warmup = 1;
  p.runs = 3;
  p.max_seconds = 5;
  return p;
}

void expect_correct(const ModeResult& r) {
  ASSERT_FALSE(r.skipped) << r.skip_reason;
  EXPECT_TRUE(r.first.checked);
  EXPECT_TRUE(r.last.checked);
  EXPECT_TRUE(r.first.passed) << r.first.summary();
  EXPECT_TRUE(r.last.passed) << r.last.summary();
  EXPECT_TRUE(r.passed());
}

class Transfer : public GpuTest {};

const std::vector<Shape> kShapes = {{1, 1, 1}, {127, 129, 131}, {257, 300, 255}, {512, 512, 512}, {1000, 333, 517}};

TEST_F(Transfer, EveryModeIsCorrectForTheNaiveKernelAndCublas) {
  Lab lab;
  for (const char* id : {"seed.naive", "cublas.fp32"}) {
    const Kernel& k = Registry::instance().get(id);
    for (const Shape& s : kShapes) {
      TransferBench bench(lab, s, 11);
      for (HostMode m : all_modes()) {
        SCOPED_TRACE(fmt::format("{} {} {}", id, to_string(s), mode_name(m)));
        PipelinePlan plan = small_plan();
        plan.panels = 3;  // does not divide any of the sizes
        const ModeResult r = bench.measure(k, {}, m, plan);
        expect_correct(r);
        EXPECT_EQ(r.table.runs, 3);
      }
    }
  }
}

TEST_F(Transfer, PhaseTimesArePositiveAndAddUp) {
  Lab lab;
  const Kernel& k = Registry::instance().get("seed.naive");
  const Shape s{768, 768, 768};
  TransferBench bench(lab, s);
  for (HostMode m : {HostMode::pageable, HostMode::pinned_c, HostMode::pinned}) {
    SCOPED_TRACE(mode_name(m));
    PipelinePlan plan = small_plan();
    plan.runs = 10;
    const ModeResult r = bench.measure(k, {}, m, plan);
    expect_correct(r);
    ASSERT_EQ(r.samples.size(), 10u);
    for (const RunTimes& t : r.samples) {
      for (int p = 0; p < kPhaseCount; ++p) EXPECT_GE(t.phase[std::size_t(p)], 0) << phase_label(Phase(p));
      EXPECT_GT(t[Phase::copy_ab], 0);
      EXPECT_GT(t[Phase::kernel], 0);
      EXPECT_GT(t[Phase::copy_c], 0);
      EXPECT_GT(t[Phase::host_alloc], 0);
      EXPECT_GT(t.total, 0);
      // The phases run one after another: their sum fits in the total (event and steady clocks
      // differ by microseconds).
      EXPECT_LE(t.sum_of_phases(), t.total * 1.02 + 0.05);
      EXPECT_LE(t[Phase::copy_ab] + t[Phase::kernel] + t[Phase::copy_c], t.window * 1.02 + 0.05);
      EXPECT_LE(t.gpu_window, t.window * 1.02 + 0.05);
      EXPECT_LE(t.window, t.total + 1e-9);
    }
    EXPECT_GT(r.table.gflops.median, 0);
  }
}

TEST_F(Transfer, OverlappedIsCorrectWithTwoAndThreeStreams) {
  Lab lab;
  for (const char* id : {"seed.naive", "cublas.fp32"}) {
    const Kernel& k = Registry::instance().get(id);
    for (const Shape& s : {Shape{1000, 1000, 1000}, Shape{1537, 769, 1025}, Shape{64, 2000, 33}}) {
      TransferBench bench(lab, s, 5);
      for (int streams : {2, 3}) {
        for (int panels : {2, 3, 5}) {
          SCOPED_TRACE(fmt::format("{} {} streams {} panels {}", id, to_string(s), streams, panels));
          PipelinePlan plan = small_plan();
          plan.streams = streams;
          plan.panels = panels;
          const ModeResult r = bench.measure(k, {}, HostMode::overlapped, plan);
          expect_correct(r);
          EXPECT_EQ(r.streams, streams);
          EXPECT_EQ(r.row_panels, panels);
          for (const RunTimes& t : r.samples) {
            EXPECT_GT(t[Phase::copy_ab], 0);
            EXPECT_GT(t[Phase::kernel], 0);
            EXPECT_GT(t.gpu_window, 0);
            // Spans on one timeline: none is longer than the whole GPU window; busy <= span.
            EXPECT_LE(t[Phase::copy_ab], t.gpu_window + 1e-3);
            EXPECT_LE(t[Phase::kernel], t.gpu_window + 1e-3);
            EXPECT_LE(t.kernel_busy, t[Phase::kernel] + 1e-3);
            EXPECT_LE(t.gpu_window, t.window * 1.02 + 0.05);
          }
        }
      }
    }
  }
}

TEST_F(Transfer, WithoutWarmupTheExtraRunsAreStillChecked) {
  Lab lab;
  TransferBench bench(lab, {200, 300, 100});
  PipelinePlan plan = small_plan();
  plan.warmup = 0;
  plan.runs = 2;
  const ModeResult r = bench.measure(Registry::instance().get("seed.naive"), {}, HostMode::pinned, plan);
  expect_correct(r);
  EXPECT_EQ(r.table.runs, 2);
}

TEST_F(Transfer, TimeBudgetCapsTheRuns) {
  Lab lab;
  TransferBench bench(lab, {1024, 1024, 1024});
  PipelinePlan plan = small_plan();
  plan.runs = 100000;
  plan.max_seconds = 0.05;
  const ModeResult r = bench.measure(Registry::instance().get("seed.naive"), {}, HostMode::pageable, plan);
  expect_correct(r);
  EXPECT_TRUE(r.capped());
  EXPECT_GE(r.table.runs, 3);
  EXPECT_LT(r.table.runs, 100000);
}

TEST_F(Transfer, LinkBenchmarkMeasuresBothDirectionsAndKinds) {
  Lab lab;
  LinkPlan plan;
  plan.sizes = {std::size_t(64) << 10, std::size_t(4) << 20};
  plan.reps = 5;
  const LinkResult r = measure_link(lab, plan);
  ASSERT_EQ(r.points.size(), 8u);
  for (const LinkPoint& p : r.points) {
    EXPECT_GT(p.gbs, 0);
    EXPECT_GE(p.ms.count, 3);
  }
  EXPECT_GT(r.peak.h2d_gbs, 0);
  EXPECT_GT(r.peak.d2h_gbs, 0);
}

TEST_F(Transfer, CommandLineWritesEveryMode) {
  const std::string json = (std::filesystem::temp_directory_path() / "gemmlab_gpu_transfer.json").string();
  const std::string cmd = fmt::format("{} transfer --kernel seed.naive --size 300 --host all --runs 4 --warmup 1 "
                                      "--json {} > /dev/null 2>&1",
                                      GEMMLAB_EXE, json);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["results"].size(), 4u);
  for (const auto& r : j["results"]) {
    EXPECT_EQ(r["status"], "ok") << r.dump();
    EXPECT_EQ(r["iters"], 4);
  }
  EXPECT_TRUE(j["results"][3].contains("overlap_ratio"));
  std::filesystem::remove(json);
}

TEST_F(Transfer, Seed001StudyQuick) {
  Lab lab;
  StudyOptions opt;
  opt.quick = true;
  opt.warmup = 1;
  opt.iters = 3;
  opt.max_seconds = 0.2;
  std::ostringstream out;
  const auto records = StudyRegistry::instance().get("seed001").run(lab, opt, out);
  int ok = 0;
  for (const auto& r : records) {
    EXPECT_NE(r.value("status", ""), "verification-failed") << r.dump();
    if (r.value("status", "") == "ok") ++ok;
  }
  EXPECT_GE(ok, 3 * 4);  // seed.naive at least: 3 sizes x 4 modes
  EXPECT_NE(out.str().find("relative gain (pageable - pinned-c) / pageable"), std::string::npos);
  EXPECT_NE(out.str().find("overlap at"), std::string::npos);
}

}  // namespace
