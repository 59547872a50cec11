// compare: matching configurations of two results files and telling real changes from noise.
// Inputs are the SYNTHETIC fixtures (tests/fixtures, written by tests/support/fixtures.cpp)
// and hand-made records.
#include <gtest/gtest.h>

#include "results/compare.hpp"
#include "results/identity.hpp"
#include "results/record.hpp"

using namespace gemmlab;

namespace {

const std::string kFixtures = std::string(GEMMLAB_SOURCE_DIR) + "/tests/fixtures/";

nlohmann::json record(double median, double p10, double p90, const std::string& status = "ok") {
  return {{"kernel", "k"}, {"params", "block=16"}, {"precision", "fp32"}, {"output", "f32"},
          {"m", 64},       {"n", 64},              {"k", 64},            {"l2", "hot"},
          {"init", "uniform"}, {"status", status}, {"time_median_ms", median}, {"time_p10_ms", p10},
          {"time_p90_ms", p90}};
}

Change change_between(const nlohmann::json& a, const nlohmann::json& b, double min_change = 0.03) {
  const Comparison c = compare_results(nlohmann::json{{"results", {a}}}, nlohmann::json{{"results", {b}}},
                                       CompareOptions{min_change});
  EXPECT_EQ(c.rows.size(), 1u);
  return c.rows.empty() ? Change::not_comparable : c.rows[0].change;
}

}  // namespace

TEST(Compare, NoiseAgainstRealChange) {
  // Same median: nothing changed.
  EXPECT_EQ(change_between(record(1.0, 0.98, 1.02), record(1.0, 0.97, 1.03)), Change::within_noise);
  // 10% slower but the runs' ranges overlap (a noisy measurement): not a change.
  EXPECT_EQ(change_between(record(1.0, 0.8, 1.2), record(1.1, 0.9, 1.3)), Change::within_noise);
  // 10% slower, tight ranges that do not overlap: a regression.
  EXPECT_EQ(change_between(record(1.0, 0.99, 1.01), record(1.1, 1.09, 1.11)), Change::slower);
  EXPECT_EQ(change_between(record(1.1, 1.09, 1.11), record(1.0, 0.99, 1.01)), Change::faster);
  // 1% apart with very tight ranges: disjoint, but below --min-change.
  EXPECT_EQ(change_between(record(1.0, 0.999, 1.001), record(1.01, 1.009, 1.011)), Change::within_noise);
  EXPECT_EQ(change_between(record(1.0, 0.999, 1.001), record(1.01, 1.009, 1.011), 0.005), Change::slower);
  // Verification.
  EXPECT_EQ(change_between(record(1.0, 0.99, 1.01), record(1.0, 0.99, 1.01, "verification-failed")),
            Change::now_failing);
  EXPECT_EQ(change_between(record(1.0, 0.99, 1.01, "verification-failed"), record(1.0, 0.99, 1.01)),
            Change::now_passing);
  nlohmann::json skipped = record(1.0, 1.0, 1.0, "skipped");
  skipped.erase("time_median_ms");
  EXPECT_EQ(change_between(skipped, record(1.0, 0.99, 1.01)), Change::not_comparable);
}

TEST(Compare, SpreadFallsBackToStddevThenSamples) {
  nlohmann::json a = record(1.0, 0, 0);
  a.erase("time_p10_ms");
  a.erase("time_p90_ms");
  a["time_stddev_ms"] = 0.05;
  auto s = spread_of(a);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source, "stddev");
  EXPECT_DOUBLE_EQ(s->low, 0.95);
  a.erase("time_stddev_ms");
  a["samples_ms"] = {0.9, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.2};
  s = spread_of(a);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source, "samples");
  EXPECT_DOUBLE_EQ(s->low, 1.0);
  EXPECT_DOUBLE_EQ(s->high, 1.0);
  a.erase("samples_ms");
  EXPECT_EQ(spread_of(a)->source, "none");
  a.erase("time_median_ms");
  EXPECT_FALSE(spread_of(a));
}

TEST(Compare, FixtureSweepsFindTheChangesTheyWereMadeWith) {
  // sweep_b differs from sweep_a by: fixture.tiled block=16 outputs=4 25% slower, fixture.tensor
  // 20% faster, one verification failure gone, one more size; everything else 0.5% (in the noise).
  const Comparison c = compare_results(read_results_file(kFixtures + "sweep_a.json"),
                                       read_results_file(kFixtures + "sweep_b.json"));
  EXPECT_EQ(c.count(Change::slower), 4u);
  EXPECT_EQ(c.count(Change::faster), 4u);
  EXPECT_EQ(c.count(Change::now_passing), 1u);
  EXPECT_EQ(c.count(Change::now_failing), 0u);
  EXPECT_EQ(c.regressions(), 4u);
  EXPECT_EQ(c.count(Change::within_noise), 24u);
  EXPECT_TRUE(c.only_a.empty());
  EXPECT_EQ(c.only_b.size(), 12u);  // the extra size: 2 cuBLAS + 6 tiled + 1 tensor + 3 slow
  for (const auto& row : c.rows) {
    if (row.change == Change::slower) {
      EXPECT_EQ(row.a["params"], "block=16 outputs=4");
      EXPECT_NEAR(row.speedup, 1 / 1.25, 1e-9);
    }
    if (row.change == Change::faster) EXPECT_EQ(row.a["kernel"], "fixture.tensor");
  }
  // A file against itself: nothing changed.
  const auto a = read_results_file(kFixtures + "sweep_a.json");
  const Comparison same = compare_results(a, a);
  EXPECT_EQ(same.regressions(), 0u);
  EXPECT_EQ(same.count(Change::faster), 0u);
}

TEST(Compare, CsvAndJsonOfOneSweepMatchConfigurationForConfiguration) {
  const auto json = read_results_file(kFixtures + "sweep_a.json");
  const auto csv = read_results_file(kFixtures + "sweep_a.csv");
  ASSERT_EQ(json["results"].size(), csv["results"].size());
  const Comparison c = compare_results(json, csv);
  EXPECT_TRUE(c.only_a.empty());
  EXPECT_TRUE(c.only_b.empty());
  EXPECT_EQ(c.regressions(), 0u);
  EXPECT_EQ(c.count(Change::slower) + c.count(Change::faster), 0u);
}

// Records from files a user hands in (a CSV cell comes back as a number when it reads as one):
// fields of another type, non-numeric samples and records that are not objects are compared as
// what they are, never a JSON type error (found by tests/fuzz, target results).
TEST(Compare, FieldsOfAnotherTypeAreReadAsTextNotThrown) {
  nlohmann::json a = record(1.0, 0.99, 1.01), b = record(1.0, 0.99, 1.01);
  a["status"] = 1;  // a status that reads as a number
  b["kernel"] = 8;
  a["kernel"] = "8";  // the same key as b's numeric kernel
  EXPECT_EQ(change_between(a, b), Change::not_comparable);
  EXPECT_EQ(field_text(b, "kernel"), "8");
  EXPECT_EQ(field_text(nlohmann::json(42), "kernel"), "");
  nlohmann::json s = record(1.0, 0, 0);
  s.erase("time_p10_ms"), s.erase("time_p90_ms");
  s["samples_ms"] = {"x", 0.9, nullptr, 1.1};
  const auto spread = spread_of(s);
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->source, "samples");
  EXPECT_NO_THROW(compare_results(nlohmann::json{{"results", {42, "x", nlohmann::json::array()}}},
                                  nlohmann::json{{"results", {42}}}));
}
