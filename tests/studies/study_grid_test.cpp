// The studies' shared machinery without a GPU: records carry cuBLAS at the same size and the ratio
// to it, failed and missing cells are reported as such, the seed-style table shows each cell in
// its place. The measurements are built by hand (synthetic timings), as the GPU would return them.
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "results/record.hpp"
#include "studies/grid.hpp"

using namespace gemmlab;
using namespace gemmlab::studies;

namespace {

// A verified measurement of `kernel` at size^3 whose every timed run took `ms`.
Measurement made(const std::string& variant, const std::string& kernel, int block, std::int64_t size, double ms,
                 bool passed = true) {
  Measurement m;
  m.variant = variant;
  m.kernel = kernel;
  m.block = block;
  m.size = size;
  RunResult r;
  r.spec.kernel = kernel;
  if (block) r.spec.params = {{"block", block}};
  r.spec.shape = {size, size, size};
  r.traffic.flops = r.spec.shape.flops();
  r.traffic.global_loads = r.traffic.flops / (block ? block : 1);
  r.traffic.global_stores = double(size) * size;
  r.kernel.id = kernel;
  Timing t;
  t.samples = {ms, ms, ms};
  t.ms.count = 3;
  t.ms.min = t.ms.max = t.ms.mean = t.ms.median = t.ms.p10 = t.ms.p90 = ms;
  t.iters = 3;
  r.kernel.timing = t;
  r.kernel.first.checked = r.kernel.last.checked = true;
  r.kernel.first.passed = passed;
  r.kernel.last.passed = true;
  r.kernel.first.rel_frobenius = passed ? 1e-7 : 0.5;
  m.result = r;
  return m;
}

TEST(StudyGrid, RecordsCarryCublasAtTheSameSizeAndTheRatio) {
  StudyGrid g(StudyOptions{}, "seedtest");
  g.add(made(kCublas, "cublas.fp32", 0, 256, 0.01));
  g.add(made("v", "seed.naive", 16, 256, 0.04));
  g.add(made("v", "seed.naive", 16, 512, 0.30));  // no cuBLAS at 512: no ratio
  const auto records = g.records([](const Measurement& m, nlohmann::json& j) { j["extra"] = m.size; });
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0]["role"], "baseline");
  EXPECT_EQ(records[0]["study"], "seedtest");
  EXPECT_FALSE(records[0].contains("ratio_to_cublas"));
  EXPECT_EQ(records[1]["role"], "kernel");
  EXPECT_EQ(records[1]["block"], 16);
  EXPECT_EQ(records[1]["variant"], "v");
  EXPECT_DOUBLE_EQ(records[1]["ratio_to_cublas"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(records[1]["cublas_time_median_ms"].get<double>(), 0.01);
  EXPECT_EQ(records[1]["cublas_kernel"], "cublas.fp32");
  EXPECT_EQ(records[1]["status"], "ok");
  EXPECT_FALSE(records[2].contains("ratio_to_cublas"));
  EXPECT_EQ(records[2]["extra"], 512);
  // The CSV writer takes them as they are.
  EXPECT_NE(csv_row(records[1]).find("seed.naive"), std::string::npos);
}

TEST(StudyGrid, FailedAndMissingCellsAreNeverShownAsNumbers) {
  StudyGrid g(StudyOptions{}, "seedtest");
  g.add(made(kCublas, "cublas.fp32", 0, 64, 0.01));
  g.add(made("v", "seed.shared", 8, 64, 0.02));
  g.add(made("v", "seed.shared", 16, 64, 0.02, /*passed=*/false));
  Measurement err;
  err.variant = "v";
  err.kernel = "seed.shared";
  err.params = {{"block", 32}};
  err.block = 32;
  err.size = 64;
  err.error = "kernel seed.shared cannot run: no";
  g.add(err);

  std::ostringstream table;
  print_size_by_block(table, g, "caption", "v", {8, 16, 32}, {64}, true);
  const std::string t = table.str();
  EXPECT_NE(t.find("caption"), std::string::npos);
  EXPECT_NE(t.find("8x8 ms"), std::string::npos);
  EXPECT_NE(t.find("32x32 CGMA"), std::string::npos);
  EXPECT_NE(t.find("FAIL"), std::string::npos) << t;
  EXPECT_NE(t.find("error"), std::string::npos) << t;
  EXPECT_NE(t.find("0.0200"), std::string::npos) << t;  // the 8x8 time
  EXPECT_NE(t.find("26.21"), std::string::npos) << t;   // 8x8 GFLOPS: 2 * 64^3 / 0.02 ms

  std::ostringstream note;
  g.print_check_note(note);
  EXPECT_NE(note.str().find("2 of 4 measurements verified"), std::string::npos) << note.str();
  EXPECT_NE(note.str().find("NOT OK: v block 16 at 64"), std::string::npos) << note.str();
  EXPECT_NE(note.str().find("NOT OK: v block 32 at 64: kernel seed.shared cannot run"), std::string::npos) << note.str();

  const auto records = g.records();
  EXPECT_EQ(records[2]["status"], "verification-failed");
  EXPECT_FALSE(records[2].contains("ratio_to_cublas"));
  EXPECT_EQ(records[3]["status"], "error");
  EXPECT_EQ(records[3]["kernel"], "seed.shared");
  EXPECT_EQ(records[3]["params"], "block=32");
  EXPECT_NE(records[3]["reason"].get<std::string>().find("cannot run"), std::string::npos);
}

TEST(StudyGrid, WithoutAGpuSessionItRefusesToMeasure) {
  StudyGrid g(StudyOptions{}, "seedtest");
  EXPECT_THROW(g.run_cublas(64), Error);
  EXPECT_THROW(g.run(Variant{"v", "seed.naive", {}}, 16, 64), Error);
}

TEST(StudyGrid, FormatsLikeTheOtherTables) {
  EXPECT_EQ(fmt_ms(123.456), "123.5");
  EXPECT_EQ(fmt_ms(1.23456), "1.235");
  EXPECT_EQ(fmt_ms(0.0123456), "0.0123");
  EXPECT_EQ(fmt_gflops(1234.4), "1234");
  EXPECT_EQ(fmt_gflops(12.345), "12.35");
  EXPECT_EQ(fmt_gflops(0.2191), "0.219");
  EXPECT_EQ(block_label(22), "22x22");
  EXPECT_EQ(describe(Variant{"x", "seed.quadrant", {{"outputs", 8}}}), "seed.quadrant outputs=8");
  EXPECT_EQ(describe(Variant{"x", "seed.naive", {}}), "seed.naive");
}

}  // namespace
