#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

TEST(Registry, IdsAreUniqueAndDescriptionsComplete) {
  std::set<std::string> ids;
  for (const auto& k : Registry::instance().kernels()) {
    const KernelInfo& i = k->info();
    SCOPED_TRACE(i.id);
    EXPECT_TRUE(ids.insert(i.id).second) << "duplicate id";
    EXPECT_FALSE(i.title.empty());
    EXPECT_FALSE(i.family.empty());
    EXPECT_FALSE(i.origin.empty());
    EXPECT_FALSE(i.summary.empty());
    EXPECT_FALSE(i.constraints.empty());
    EXPECT_FALSE(i.outputs.empty());
    for (const auto& p : i.params) {
      EXPECT_FALSE(p.allowed.empty()) << p.name;
      EXPECT_NE(std::find(p.allowed.begin(), p.allowed.end(), p.default_value), p.allowed.end())
          << p.name << " default is not an allowed value";
    }
  }
}

// Kernel files register themselves (GEMMLAB_REGISTER_KERNELS): every ladder is there, in family
// then step order, whatever order the files' registrations ran in.
TEST(Registry, EveryFileRegistersAndTheCatalogueIsInLadderOrder) {
  const auto& ks = Registry::instance().kernels();
  for (const char* id : {"auto.bf16", "cublas.fp32", "seed.single_block", "seed.quadrant", "fp32.blocktile", "fp32.tuned",
                         "tc.wmma.tf32", "tc.mma.bf16"})
    EXPECT_NE(Registry::instance().find(id), nullptr) << id;
  const std::vector<std::string> families{"auto", "baseline", "seed", "fp32", "tensor"};
  for (std::size_t i = 1; i < ks.size(); ++i) {
    const KernelInfo &a = ks[i - 1]->info(), &b = ks[i]->info();
    const auto fa = std::find(families.begin(), families.end(), a.family) - families.begin();
    const auto fb = std::find(families.begin(), families.end(), b.family) - families.begin();
    EXPECT_TRUE(fa < fb || (fa == fb && a.step <= b.step)) << a.id << " before " << b.id;
  }
  EXPECT_EQ(ks.front()->info().id, "auto.fp32");
  EXPECT_EQ(ks[4]->info().id, "cublas.fp32");
}

TEST(Registry, EveryPrecisionHasACublasBaseline) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16}) {
    const Kernel& b = Registry::instance().baseline_for(p);
    EXPECT_EQ(b.info().precision, p);
    EXPECT_EQ(b.info().family, "baseline");
  }
}

TEST(Registry, TrafficModelCountsTwoMnkFlops) {
  const Shape s{96, 64, 32};
  for (const auto& k : Registry::instance().kernels()) {
    for (const Params& p : all_param_combinations(*k)) {
      const TrafficModel t = k->traffic(s, p);
      EXPECT_DOUBLE_EQ(t.flops, s.flops()) << k->info().id;
      EXPECT_GT(t.global_loads, 0) << k->info().id;
      EXPECT_GE(t.global_stores, double(s.m) * s.n) << k->info().id << ": C must be written at least once";
    }
  }
}

TEST(Registry, NaiveKernelHasSeedCgmaOfOne) {
  const Kernel& k = Registry::instance().get("seed.naive");
  const TrafficModel t = k.traffic({1024, 1024, 1024}, resolve_params(k, {}));
  // Seed 000: "CGMA = 1" for method 2 (stores are negligible: 1 per 2K loads).
  EXPECT_NEAR(t.cgma(), 1.0, 1e-3);
}

TEST(Registry, UnknownKernelSuggestsAlternatives) {
  try {
    Registry::instance().get("seed.naiv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown kernel 'seed.naiv'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("seed.naive"), std::string::npos) << e.what();
  }
}

TEST(Registry, ResolveParamsFillsDefaultsAndRejectsBadValues) {
  const Kernel& k = Registry::instance().get("seed.naive");
  EXPECT_EQ(resolve_params(k, {}).at("block"), 16);
  EXPECT_EQ(resolve_params(k, {{"block", 32}}).at("block"), 32);
  EXPECT_THROW(resolve_params(k, {{"block", 64}}), Error);
  EXPECT_THROW(resolve_params(k, {{"tile", 8}}), Error);
  try {
    resolve_params(k, {{"block", 64}});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: 8, 16, 22, 32"), std::string::npos) << e.what();
  }
}

TEST(Registry, SelectByGlobAndFamily) {
  const Registry& r = Registry::instance();
  EXPECT_EQ(r.select("cublas.*").size(), 4u);
  EXPECT_EQ(r.select("baseline").size(), 4u);
  EXPECT_FALSE(r.select("seed").empty());
  EXPECT_TRUE(r.select("nothing*").empty());
  EXPECT_TRUE(glob_match("a*c", "abbbc"));
  EXPECT_TRUE(glob_match("se?d.*", "seed.naive"));
  EXPECT_FALSE(glob_match("a*c", "abbbd"));
}

TEST(Registry, ParamCombinationsCoverTheProduct) {
  const Kernel& k = Registry::instance().get("seed.naive");
  EXPECT_EQ(all_param_combinations(k).size(), 4u);
}
