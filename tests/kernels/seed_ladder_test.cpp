// The seed ladder and the seed studies as far as they can be checked without a GPU: the kernels
// are registered in ladder order with complete descriptions, their traffic models give the CGMA
// the seeds derive, they accept every size of the studies and refuse what they cannot run, and the
// study registry and command list the four studies.
#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "studies/study.hpp"
#include "support/cli_runner.hpp"

using namespace gemmlab;


using gemmlab::testing::CliOutcome;
using gemmlab::testing::run_cli;
using gemmlab::testing::expect_clean_failure;
namespace {

// The limits of an H100 (SXM) that reject() looks at.
DeviceInfo h100_like() {
  DeviceInfo d;
  d.name = "H100-like (test)";
  d.cc_major = 9;
  d.max_threads_per_block = 1024;
  d.smem_per_block = 48 * 1024;
  d.smem_per_block_optin = 227 * 1024;
  d.max_grid_dim[0] = 2147483647;
  d.max_grid_dim[1] = d.max_grid_dim[2] = 65535;
  return d;
}

const std::vector<std::string> kLadder = {"seed.single_block", "seed.naive",         "seed.shared",  "seed.prefetch",
                                          "seed.prefetch_2x2", "seed.double_buffer", "seed.quadrant"};

TEST(SeedLadder, KernelsAreRegisteredInLadderOrder) {
  std::vector<std::string> ids;
  int last_step = 0;
  for (const Kernel* k : Registry::instance().select("seed")) {
    ids.push_back(k->info().id);
    EXPECT_GT(k->info().step, last_step) << k->info().id;
    last_step = k->info().step;
    EXPECT_EQ(k->info().family, "seed");
    EXPECT_NE(k->info().origin.find("seed 00"), std::string::npos) << k->info().id << ": origin names no seed document";
    EXPECT_EQ(k->info().slow, k->info().id == "seed.single_block") << k->info().id;
  }
  EXPECT_EQ(ids, kLadder);
}

// flops / loads (stores left out, as seed 000 counts) for a square size that every tile divides.
double seed_style_cgma(const std::string& id, Params p, std::int64_t n) {
  const Kernel& k = Registry::instance().get(id);
  const TrafficModel t = k.traffic({n, n, n}, resolve_params(k, p));
  return t.flops / t.global_loads;
}

TEST(SeedLadder, TrafficModelsGiveTheSeedsCgma) {
  const std::int64_t n = 4096;  // divisible by 4 x 32: every layout tiles it exactly
  for (int b : {8, 16, 32}) {
    SCOPED_TRACE(b);
    // Seed 000 section 4: methods 1 and 2: CGMA = 1.
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.single_block", {{"block", b}}, n), 1.0);
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.naive", {{"block", b}}, n), 1.0);
    // Shared tiles: CGMA = block (seed 002: 2 N^2 (N / TILE) reads).
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.shared", {{"block", b}}, n), b);
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.prefetch", {{"block", b}}, n), b);
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.prefetch_2x2", {{"block", b}}, n), 2.0 * b);
    // Seed 000 section 4, method 6: 4/3 x block with 2 outputs, 2 x block with 4.
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.double_buffer", {{"block", b}, {"outputs", 2}}, n), 4.0 / 3.0 * b);
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.double_buffer", {{"block", b}, {"outputs", 4}}, n), 2.0 * b);
  }
  for (int b : {16, 32}) {
    SCOPED_TRACE(b);
    // Seed 004's layouts: 2 R P / (R + P) x block.
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.quadrant", {{"block", b}, {"outputs", 4}}, n), 2.0 * b);
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.quadrant", {{"block", b}, {"outputs", 8}}, n), 8.0 / 3.0 * b);
    EXPECT_DOUBLE_EQ(seed_style_cgma("seed.quadrant", {{"block", b}, {"outputs", 16}}, n), 4.0 * b);
  }
  // 22 x 22 blocks on a size they divide (seed 003's 176 = 8 x 22).
  EXPECT_DOUBLE_EQ(seed_style_cgma("seed.shared", {{"block", 22}}, 176 * 25), 22.0);
  // With the stores counted (the model's cgma()), large sizes approach the seed's values.
  const Kernel& db = Registry::instance().get("seed.double_buffer");
  EXPECT_NEAR(db.traffic({n, n, n}, {{"block", 32}, {"outputs", 4}}).cgma(), 64.0, 0.01 * 64.0);
}

TEST(SeedLadder, EdgeTilesAreNotCountedAsLoads) {
  // 100 x 100 with 16-wide tiles: 7 blocks per row, but A's 100 columns are loaded, not 112.
  const Kernel& k = Registry::instance().get("seed.shared");
  const TrafficModel t = k.traffic({100, 100, 100}, {{"block", 16}});
  EXPECT_DOUBLE_EQ(t.global_loads, 2.0 * 100 * 100 * 7);
  EXPECT_DOUBLE_EQ(t.global_stores, 100.0 * 100);
}

TEST(SeedLadder, EveryStudySizeIsAccepted) {
  const DeviceInfo dev = h100_like();
  for (const std::string& id : kLadder) {
    const Kernel& k = Registry::instance().get(id);
    for (const Params& p : all_param_combinations(k))
      for (std::int64_t n : {64, 128, 176, 256, 352, 384, 512, 528, 640, 1024, 1600, 2048, 3200}) {
        if (k.info().slow && n > 2048) continue;
        EXPECT_FALSE(k.reject({n, n, n}, p, dev).has_value())
            << id << " " << params_to_string(p) << " " << n << ": " << k.reject({n, n, n}, p, dev).value_or("");
      }
  }
}

TEST(SeedLadder, RejectionsAreOneClearSentence) {
  DeviceInfo dev = h100_like();
  const Kernel& single = Registry::instance().get("seed.single_block");
  const auto why = single.reject({4096, 4096, 4096}, {{"block", 16}}, dev);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("one SM"), std::string::npos) << *why;
  EXPECT_EQ(why->find('\n'), std::string::npos);
  EXPECT_FALSE(single.reject({2048, 2048, 2048}, {{"block", 16}}, dev).has_value());

  dev.max_threads_per_block = 512;  // a smaller GPU: 32 x 32 blocks do not fit
  const Kernel& quad = Registry::instance().get("seed.quadrant");
  const auto big = quad.reject({1024, 1024, 1024}, {{"block", 32}, {"outputs", 16}}, dev);
  ASSERT_TRUE(big.has_value());
  EXPECT_NE(big->find("1024 threads"), std::string::npos) << *big;
}

TEST(SeedLadder, LaunchPlansNameTheKernelAndFitTheBlock) {
  for (const std::string& id : kLadder) {
    const Kernel& k = Registry::instance().get(id);
    for (const Params& p : all_param_combinations(k)) {
      const LaunchPlan lp = k.plan({333, 97, 515}, p);
      EXPECT_NE(lp.function, nullptr) << id;
      EXPECT_EQ(lp.block.x, unsigned(p.at("block"))) << id;
      EXPECT_EQ(lp.block.y, unsigned(p.at("block"))) << id;
      EXPECT_GE(lp.grid.x, 1u);
      EXPECT_GE(lp.grid.y, 1u);
    }
  }
}

TEST(StudyRegistry, ListsTheFourSeedStudiesWithGrids) {
  for (const auto& s : StudyRegistry::instance().studies()) {
    EXPECT_FALSE(s->title().empty()) << s->name();
    EXPECT_FALSE(s->grid().empty()) << s->name();
  }
  // Other studies may be registered beside them (seed001 lives with the transfer code).
  for (const char* name : {"seed000", "seed002", "seed003", "seed004"}) {
    const Study& s = StudyRegistry::instance().get(name);
    EXPECT_EQ(s.name(), name);
    EXPECT_NE(s.grid().find("x"), std::string::npos) << name << ": the grid should say what it crosses";
  }
  EXPECT_THROW(StudyRegistry::instance().get("seed999"), Error);
}


TEST(StudyCommand, ListNamesEveryStudy) {
  const CliOutcome o = run_cli("study --list");
  EXPECT_EQ(o.status, 0) << o.output;
  for (const char* n : {"seed000", "seed002", "seed003", "seed004"}) EXPECT_NE(o.output.find(n), std::string::npos) << n;
}

TEST(StudyCommand, UnknownStudyIsOneClearError) {
  const CliOutcome o = run_cli("study seed999");
  EXPECT_NE(o.status, 0);
  EXPECT_LT(o.status, 128) << o.output;
  EXPECT_NE(o.output.find("unknown study 'seed999'"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("seed004"), std::string::npos) << o.output;
}

}  // namespace
