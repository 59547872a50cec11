// The transfer module's arithmetic, without a GPU: the phase table's statistics, seed 001's
// relative gains, the run-count rule, the memory checks that skip a size (with injected values),
// the panel plan of the overlapped pipeline, mode parsing and the result records.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "transfer/host_memory.hpp"
#include "transfer/link.hpp"
#include "transfer/panels.hpp"
#include "transfer/phases.hpp"
#include "transfer/pipeline.hpp"
#include "transfer/report.hpp"

using namespace gemmlab;
using namespace gemmlab::transfer;

namespace {

constexpr std::size_t GiB = std::size_t(1) << 30;

// A run whose phases are base + i (so each phase's statistics are known) and whose total is the
// sum of its steady-clock parts plus a window that holds the copies, kernel and sync.
RunTimes run_with(double base) {
  RunTimes t;
  for (int p = 0; p < kPhaseCount; ++p) t.phase[std::size_t(p)] = base + p;
  t.window = t[Phase::copy_ab] + t[Phase::kernel] + t[Phase::copy_c] + t[Phase::sync] + 0.5;
  t.total = t[Phase::host_alloc] + t[Phase::device_alloc] + t.window + t[Phase::device_free] + t[Phase::host_free];
  t.gpu_window = t.window - 0.25;
  t.kernel_busy = t[Phase::kernel];
  return t;
}

}  // namespace

TEST(TransferPhases, TableHoldsEveryPhasesStatistics) {
  const std::vector<RunTimes> runs = {run_with(1), run_with(3), run_with(2), run_with(10)};
  const PhaseTable t = summarize_runs(runs, 2e9);
  EXPECT_EQ(t.runs, 4);
  for (int p = 0; p < kPhaseCount; ++p) {
    const Stats& s = t[Phase(p)];
    EXPECT_DOUBLE_EQ(s.min, 1 + p);
    EXPECT_DOUBLE_EQ(s.max, 10 + p);
    EXPECT_DOUBLE_EQ(s.mean, 4 + p);     // (1 + 3 + 2 + 10) / 4 + p
    EXPECT_DOUBLE_EQ(s.median, 2.5 + p); // middle pair (2, 3)
    EXPECT_NEAR(s.stddev, std::sqrt((9.0 + 1 + 4 + 36) / 3), 1e-12);
  }
  EXPECT_DOUBLE_EQ(t.total.min, runs[0].total);
  EXPECT_DOUBLE_EQ(t.total.max, runs[3].total);
  // GFLOPS per run: the slowest run has the fewest.
  EXPECT_DOUBLE_EQ(t.gflops.min, 2e9 / (runs[3].total * 1e-3) / 1e9);
  EXPECT_DOUBLE_EQ(t.gflops.max, 2e9 / (runs[0].total * 1e-3) / 1e9);
  EXPECT_DOUBLE_EQ(t.window.min, runs[0].window);
  EXPECT_DOUBLE_EQ(t.gpu_window.median, (runs[1].gpu_window + runs[2].gpu_window) / 2);
}

TEST(TransferPhases, SumOfPhasesNeverExceedsTheTotalWhenWindowHoldsTheGpuPhases) {
  const RunTimes r = run_with(4);
  EXPECT_LE(r.sum_of_phases(), r.total);
  EXPECT_NEAR(r.total - r.sum_of_phases(), 0.5, 1e-12);  // the window's untimed gap
}

TEST(TransferPhases, RejectsEmptyNegativeAndNonFinite) {
  EXPECT_THROW(summarize_runs({}, 1), Error);
  RunTimes bad = run_with(1);
  bad[Phase::kernel] = -1;
  EXPECT_THROW(summarize_runs({bad}, 1), Error);
  bad = run_with(1);
  bad.window = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(summarize_runs({bad}, 1), Error);
  bad = run_with(0);
  bad.total = 0;
  EXPECT_THROW(summarize_runs({bad}, 1), Error);  // no GFLOPS from a zero time
}

TEST(TransferPhases, SeedRowsInTheSeedsOrder) {
  const PhaseTable t = summarize_runs({run_with(1)}, 1e9);
  const auto rows = seed_rows(t);
  ASSERT_EQ(rows.size(), std::size_t(kPhaseCount) + 2);
  EXPECT_EQ(rows[0].label, "Host alloc");
  EXPECT_EQ(rows[2].label, "Memcpy AB");
  EXPECT_EQ(rows[3].label, "Kernel");
  EXPECT_EQ(rows[4].label, "Memcpy C");
  EXPECT_EQ(rows[5].label, "Sync");
  EXPECT_EQ(rows[rows.size() - 2].key, "total");
  EXPECT_EQ(rows.back().key, "gflops");
  EXPECT_TRUE(rows.back().higher_is_better);
  EXPECT_EQ(phase_clock(Phase::copy_ab), Clock::events);
  EXPECT_EQ(phase_clock(Phase::kernel), Clock::events);
  EXPECT_EQ(phase_clock(Phase::host_alloc), Clock::steady);
  EXPECT_EQ(phase_clock(Phase::sync), Clock::steady);
}

TEST(TransferGains, SeedFormula) {
  EXPECT_DOUBLE_EQ(*relative_gain(10, 4), 0.6);
  EXPECT_DOUBLE_EQ(*relative_gain(4, 10), -1.5);
  EXPECT_DOUBLE_EQ(*relative_gain(0, 0), 0.0);
  EXPECT_FALSE(relative_gain(0, 3).has_value());
  // The seed's 512 "Memcpy C" median: malloc 0.375568, cudaMallocHost 0.144064 -> 61.64%.
  EXPECT_NEAR(*relative_gain(0.375568, 0.144064), 0.6164, 1e-4);
}

TEST(TransferGains, TableCoversEveryRowAndStatistic) {
  const PhaseTable slow = summarize_runs({run_with(10), run_with(20), run_with(30)}, 1e9);
  const PhaseTable fast = summarize_runs({run_with(5), run_with(10), run_with(15)}, 1e9);
  const auto g = relative_gains(slow, fast);
  ASSERT_EQ(g.size(), std::size_t(kPhaseCount) + 2);
  // Host alloc: slow 10/20/30, fast 5/10/15: half the time at every statistic.
  for (std::size_t s = 0; s < 5; ++s) EXPECT_NEAR(*g[0].gain[s], 0.5, 1e-12) << kStatNames[s];
  // Memcpy AB (phase 2): slow 12/22/32, fast 7/12/17.
  EXPECT_NEAR(*g[2].gain[0], (12.0 - 7) / 12, 1e-12);
  EXPECT_NEAR(*g[2].gain[1], (32.0 - 17) / 32, 1e-12);
  EXPECT_NEAR(*g[2].gain[3], (22.0 - 12) / 22, 1e-12);
  EXPECT_NEAR(*g[2].gain[4], 0.5, 1e-12);  // stddev 10 vs 5
  // GFLOPS: faster runs have more GFLOPS, so the seed's formula gives a negative number.
  EXPECT_LT(*g.back().gain[3], 0);
}

TEST(TransferRuns, RuleCapsByTimeAndKeepsAMinimum) {
  EXPECT_EQ(plan_runs(1000, 10, 0), 1000);       // unknown pace: as requested
  EXPECT_EQ(plan_runs(1000, 10, 1), 1000);       // 1 ms per run: 10000 would fit
  EXPECT_EQ(plan_runs(1000, 10, 100), 100);
  EXPECT_EQ(plan_runs(1000, 2, 1700), 3);        // the naive kernel at 16384: 3 runs, not 1
  EXPECT_EQ(plan_runs(2, 2, 1700), 2);           // ... unless fewer were asked for
  EXPECT_EQ(plan_runs(1000, 2, 1700, 5), 5);
  EXPECT_THROW(plan_runs(0, 1, 1), Error);
  EXPECT_NE(run_rule(1000, 2).find("1000"), std::string::npos);
}

TEST(TransferOverlap, UnionAndSummary) {
  EXPECT_DOUBLE_EQ(union_length({}), 0);
  EXPECT_DOUBLE_EQ(union_length({{0, 2}, {1, 3}, {5, 6}}), 4);
  EXPECT_DOUBLE_EQ(union_length({{5, 6}, {0, 10}}), 10);
  EXPECT_DOUBLE_EQ(union_length({{0, 1}, {1, 2}}), 2);
  EXPECT_THROW(union_length({{2, 1}}), Error);

  RunTimes pinned = run_with(0);
  pinned[Phase::copy_ab] = 40;
  pinned[Phase::kernel] = 170;
  pinned[Phase::copy_c] = 20;
  pinned.window = 231;
  pinned.total = pinned.sum_of_phases() + 1;
  RunTimes over = pinned;
  over.gpu_window = 185;
  const OverlapSummary o = summarize_overlap(summarize_runs({pinned}, 1), summarize_runs({over}, 1));
  EXPECT_DOUBLE_EQ(o.copy_ms, 60);
  EXPECT_DOUBLE_EQ(o.kernel_ms, 170);
  EXPECT_DOUBLE_EQ(o.sum_ms(), 230);
  EXPECT_DOUBLE_EQ(o.max_ms(), 170);
  EXPECT_NEAR(o.ratio(), 185.0 / 170, 1e-12);
  EXPECT_DOUBLE_EQ(gigabytes_per_second(1e9, 1000), 1.0);
  EXPECT_DOUBLE_EQ(gigabytes_per_second(1e9, 0), 0.0);
}

TEST(TransferMemory, ParsesMemAvailable) {
  const std::string meminfo =
      "MemTotal:       131072000 kB\nMemFree:        100000000 kB\nMemAvailable:   120000000 kB\nBuffers: 1 kB\n";
  ASSERT_TRUE(parse_mem_available(meminfo).has_value());
  EXPECT_EQ(*parse_mem_available(meminfo), std::size_t(120000000) * 1024);
  EXPECT_FALSE(parse_mem_available("MemTotal: 5 kB\n").has_value());
  EXPECT_FALSE(parse_mem_available("MemAvailable: lots kB\n").has_value());
  EXPECT_FALSE(parse_mem_available("MemAvailable: 12 MB\n").has_value());
  EXPECT_FALSE(parse_mem_available("").has_value());
}

TEST(TransferMemory, HostShortfallWithInjectedValues) {
  EXPECT_FALSE(host_memory_shortfall(GiB, 100 * GiB).has_value());
  EXPECT_FALSE(host_memory_shortfall(GiB, std::nullopt).has_value());  // unknown: allocation failure decides
  const auto why = host_memory_shortfall(5 * GiB, 6 * GiB);             // 75% of 6 GiB is 4.5 GiB
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("5 GiB"), std::string::npos) << *why;
  EXPECT_NE(why->find("6 GiB"), std::string::npos) << *why;
}

TEST(TransferMemory, SizeSkipWithInjectedValues) {
  const Shape big{16384, 16384, 16384};
  // 16384: master A, B (2 GiB) + one run's A, B, C (3 GiB) on the host.
  EXPECT_EQ(host_bytes_needed(big), 5 * GiB);
  EXPECT_FALSE(size_skip_reason(big, 120 * GiB, 80 * GiB).has_value());
  const auto host = size_skip_reason(big, 4 * GiB, 80 * GiB);
  ASSERT_TRUE(host.has_value());
  EXPECT_NE(host->find("host memory"), std::string::npos) << *host;
  EXPECT_NE(host->find("16384x16384x16384"), std::string::npos) << *host;
  const auto dev = size_skip_reason(big, 120 * GiB, 6 * GiB);
  ASSERT_TRUE(dev.has_value());
  EXPECT_NE(dev->find("device memory"), std::string::npos) << *dev;
  // Small sizes fit on modest machines; unknown host memory never skips by itself.
  EXPECT_FALSE(size_skip_reason({512, 512, 512}, GiB, GiB).has_value());
  EXPECT_FALSE(size_skip_reason(big, std::nullopt, 80 * GiB).has_value());
  EXPECT_GE(device_bytes_needed(big), 8 * GiB);  // the float64 reference and scale alone are 4 GiB
}

TEST(TransferMemory, FormatsBytes) {
  EXPECT_EQ(format_bytes(512.0 * (1 << 20)), "512 MiB");
  EXPECT_EQ(format_bytes(1.5 * double(GiB)), "1.50 GiB");
  EXPECT_EQ(format_bytes(64 * 1024), "64 KiB");
  EXPECT_EQ(format_bytes(100), "100 B");
}

TEST(TransferModes, ParseNamesAndLists) {
  EXPECT_EQ(parse_mode("pinned-c"), HostMode::pinned_c);
  EXPECT_FALSE(parse_mode("pinned_c").has_value());
  EXPECT_EQ(parse_mode_list("all").size(), 4u);
  const auto l = parse_mode_list("pinned,pageable,pinned");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], HostMode::pinned);
  EXPECT_EQ(l[1], HostMode::pageable);
  EXPECT_THROW(parse_mode_list("pinned,"), Error);
  EXPECT_THROW(parse_mode_list("fast"), Error);
  EXPECT_EQ(kind_of_a_and_b(HostMode::pinned_c), HostKind::pageable);
  EXPECT_EQ(kind_of_c(HostMode::pinned_c), HostKind::pinned);
  EXPECT_EQ(kind_of_a_and_b(HostMode::overlapped), HostKind::pinned);
  EXPECT_EQ(kind_of_c(HostMode::pageable), HostKind::pageable);
}

TEST(TransferModes, PageableHostBufferNeedsNoGpu) {
  HostBuffer b(4096, HostKind::pageable);
  ASSERT_NE(b.get(), nullptr);
  b.as<char>()[4095] = 1;
  b.release();
  EXPECT_EQ(b.get(), nullptr);
  b.release();  // twice is harmless
}

TEST(TransferPlan, ValidatesNumbers) {
  EXPECT_NO_THROW(validate_plan(PipelinePlan{}));
  PipelinePlan p;
  p.runs = 0;
  EXPECT_THROW(validate_plan(p), Error);
  p = {};
  p.streams = 0;
  EXPECT_THROW(validate_plan(p), Error);
  p = {};
  p.panels = -1;
  EXPECT_THROW(validate_plan(p), Error);
  p = {};
  p.max_seconds = 0;
  EXPECT_THROW(validate_plan(p), Error);
  p = {};
  p.warmup = -1;
  EXPECT_THROW(validate_plan(p), Error);
}

TEST(TransferPanels, SplitCoversExtentExactly) {
  for (std::int64_t extent : {1, 2, 3, 7, 100, 127, 129, 255, 256, 333, 1000, 1024, 4097, 16384}) {
    for (int panels : {1, 2, 3, 4, 5, 8, 64}) {
      for (bool lead : {false, true}) {
        SCOPED_TRACE(::testing::Message() << extent << " / " << panels << (lead ? " lead" : ""));
        const auto spans = split_panels(extent, panels, 128, lead);
        ASSERT_EQ(std::int64_t(spans.size()), std::min<std::int64_t>(panels, extent));
        std::int64_t at = 0;
        for (const Span& s : spans) {
          EXPECT_EQ(s.begin, at);
          EXPECT_GE(s.size, 1);
          at = s.end();
        }
        EXPECT_EQ(at, extent);
      }
    }
  }
  EXPECT_THROW(split_panels(0, 2), Error);
  EXPECT_THROW(split_panels(10, 0), Error);
}

TEST(TransferPanels, AlignedAndLeadPanelHalfSize) {
  const auto s = split_panels(16384, 4);  // weights 0.5, 1, 1, 1 -> 2340.6, 4681.1, ...
  ASSERT_EQ(s.size(), 4u);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_EQ(s[i].begin % 128, 0) << i;
  EXPECT_NEAR(double(s[0].size), 16384 / 7.0, 128);
  EXPECT_NEAR(double(s[1].size), 2 * 16384 / 7.0, 128);
  const auto even = split_panels(16384, 4, 128, false);
  for (const Span& x : even) EXPECT_EQ(x.size, 4096);
}

TEST(TransferPanels, TilesCoverCOnceAndPackWithoutGaps) {
  for (const Shape& shape : {Shape{16384, 16384, 16384}, Shape{1000, 777, 300}, Shape{5, 3, 7}, Shape{1, 1, 1},
                             Shape{129, 4097, 64}}) {
    for (int panels : {1, 2, 3, 4, 8}) {
      SCOPED_TRACE(::testing::Message() << to_string(shape) << " panels " << panels);
      const PanelPlan plan = plan_panels(shape, panels);
      EXPECT_EQ(plan.tiles.size(), plan.rows.size() * plan.cols.size());
      EXPECT_EQ(plan.k, shape.k);
      std::int64_t covered = 0, next_offset = 0;
      for (const Tile& t : plan.tiles) {
        EXPECT_EQ(t.c_offset, next_offset);  // row-major tile order packs C tile after tile
        next_offset += t.rows.size * t.cols.size;
        covered += t.rows.size * t.cols.size;
        EXPECT_EQ(t.rows, plan.rows[std::size_t(t.i)]);
        EXPECT_EQ(t.cols, plan.cols[std::size_t(t.j)]);
      }
      EXPECT_EQ(covered, shape.m * shape.n);
      // Uploads: every panel of A and B exactly once, in the order the row-major tiles first need them.
      ASSERT_EQ(plan.uploads.size(), plan.rows.size() + plan.cols.size());
      EXPECT_EQ(plan.uploads[0].operand, Upload::Operand::a);
      EXPECT_EQ(plan.uploads[0].index, 0);
      std::set<std::pair<int, int>> seen;
      for (const Upload& u : plan.uploads) EXPECT_TRUE(seen.insert({int(u.operand), u.index}).second);
      std::size_t pos = 0;
      for (const Tile& t : plan.tiles) {
        auto where = [&](Upload::Operand op, int idx) {
          for (std::size_t x = 0; x < plan.uploads.size(); ++x)
            if (plan.uploads[x].operand == op && plan.uploads[x].index == idx) return x;
          return plan.uploads.size();
        };
        const std::size_t need = std::max(where(Upload::Operand::a, t.i), where(Upload::Operand::b, t.j));
        EXPECT_GE(need + 1, pos) << "a tile needs a panel uploaded after a later tile's";
        pos = std::max(pos, need + 1);
      }
    }
  }
  const PanelPlan p = plan_panels({1024, 1024, 64}, 2);  // a lead row panel (384 + 640 rows), equal columns
  ASSERT_EQ(p.distinct_tile_shapes().size(), 2u);
  EXPECT_EQ(p.distinct_tile_shapes()[0], (Shape{384, 512, 64}));
  EXPECT_EQ(p.distinct_tile_shapes()[1], (Shape{640, 512, 64}));
  EXPECT_EQ(auto_panels({16384, 16384, 16384}), 4);
  EXPECT_EQ(auto_panels({512, 512, 512}), 2);
  EXPECT_EQ(auto_panels({65536, 1, 1}), 8);
}

TEST(TransferLink, DefaultSizes) {
  const auto s = default_link_sizes();
  EXPECT_EQ(s.front(), std::size_t(64) << 10);
  EXPECT_EQ(s.back(), GiB);
  EXPECT_EQ(s.size(), 8u);  // 64 KiB, 256 KiB, 1, 4, 16, 64, 256 MiB, 1 GiB (64 KiB * 4^7)
  EXPECT_EQ(default_link_sizes(std::size_t(1) << 20).size(), 3u);
  EXPECT_EQ(default_link_sizes(std::size_t(100) << 10).back(), std::size_t(100) << 10);
  EXPECT_THROW(default_link_sizes(1000), Error);
  std::vector<LinkPoint> pts(3);
  pts[0] = {std::size_t(1) << 20, Direction::h2d, HostKind::pinned, {}, 40};
  pts[1] = {std::size_t(1) << 30, Direction::h2d, HostKind::pinned, {}, 54};
  pts[2] = {std::size_t(1) << 30, Direction::d2h, HostKind::pageable, {}, 70};  // pageable never sets the peak
  const LinkPeak peak = peak_of(pts);
  EXPECT_DOUBLE_EQ(peak.h2d_gbs, 54);
  EXPECT_EQ(peak.h2d_bytes, GiB);
  EXPECT_DOUBLE_EQ(peak.d2h_gbs, 0);
}

TEST(TransferReport, RecordsAndCsv) {
  ModeResult base, pinned;
  base.mode = HostMode::pageable;
  base.kernel = pinned.kernel = "seed.naive";
  base.shape = pinned.shape = {1024, 1024, 1024};
  base.requested_runs = pinned.requested_runs = 3;
  base.samples = {run_with(10), run_with(11), run_with(12)};
  base.table = summarize_runs(base.samples, base.shape.flops());
  base.first.checked = base.last.checked = base.first.passed = base.last.passed = true;
  pinned = base;
  pinned.mode = HostMode::pinned;
  pinned.samples = {run_with(5), run_with(6), run_with(7)};
  pinned.table = summarize_runs(pinned.samples, pinned.shape.flops());
  LinkPeak peak;
  peak.h2d_gbs = 50;
  peak.d2h_gbs = 50;
  const nlohmann::json j = to_json(pinned, peak, nullptr, &base);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["host_mode"], "pinned");
  EXPECT_EQ(j["iters"], 3);
  EXPECT_DOUBLE_EQ(j["copy_ab_median_ms"].get<double>(), 8);  // 5, 6, 7 + phase 2
  EXPECT_DOUBLE_EQ(j["copy_ab_gbs"].get<double>(), 8.0 * 1024 * 1024 / (8e-3) / 1e9);
  EXPECT_EQ(j["clocks"]["kernel"], "CUDA events");
  EXPECT_EQ(j["samples_ms"]["kernel"].size(), 3u);
  EXPECT_NEAR(j["gain_vs_pageable"]["host_alloc"]["median"].get<double>(), (11.0 - 6) / 11, 1e-12);

  ModeResult skipped = base;
  skipped.skipped = true;
  skipped.skip_reason = "needs 5 GiB, has 4";
  const nlohmann::json s = to_json(skipped, peak);
  EXPECT_EQ(s["status"], "skipped");
  EXPECT_FALSE(s.contains("iters"));

  ModeResult failed = pinned;
  failed.last.passed = false;
  EXPECT_EQ(to_json(failed, peak)["status"], "verification-failed");

  const std::string path = (std::filesystem::temp_directory_path() / "gemmlab_transfer_test.csv").string();
  write_transfer_csv(path, {j, s});
  std::ifstream in(path);
  std::string header, row1, row2;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  EXPECT_EQ(header.substr(0, 6), "kernel");
  EXPECT_NE(header.find("copy_c_median_ms"), std::string::npos);
  EXPECT_NE(row1.find("pinned"), std::string::npos);
  EXPECT_NE(row2.find("skipped"), std::string::npos);
  std::filesystem::remove(path);

  std::ostringstream os;
  print_mode(os, pinned, peak);
  print_gains(os, base, pinned);
  EXPECT_NE(os.str().find("Memcpy AB"), std::string::npos);
  EXPECT_NE(os.str().find("relative gain (pageable - pinned) / pageable"), std::string::npos);
  EXPECT_NE(os.str().find("CUDA events"), std::string::npos);
  EXPECT_NE(os.str().find("steady_clock"), std::string::npos);
}

TEST(TransferReport, Formats) {
  EXPECT_EQ(format_percent(0.1923), "19.23%");
  EXPECT_EQ(format_percent(std::nullopt), "-");
  EXPECT_EQ(format_ms(0), "0");
  EXPECT_EQ(format_ms(1234.56), "1234.6");
  EXPECT_EQ(format_ms(0.5), "0.5000");
}
