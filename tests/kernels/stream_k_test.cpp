// The stream-K schedule of the persistent sm_90a kernels, checked on the host: every k-tile of
// every unit is computed exactly once, partial items belong to helpers and each has a workspace
// slot of its own, owners stand at k = 0 together, and each owner waits for exactly the clusters
// that worked on its unit.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/tensor/stream_k.hpp"

using gemmlab::tc::Schedule;
using gemmlab::tc::plan_stream_k_tail;
using gemmlab::TailMode;
using gemmlab::tc::TailPlan;

namespace {

struct Item {
  int cluster, unit, kb, ke;
};

std::vector<Item> items_of(int units, int k_tiles, int clusters, TailPlan tail) {
  std::vector<Item> items;
  for (int c = 0; c < clusters; ++c) {
    const Schedule s(units, k_tiles, c, clusters, tail);
    s.for_each<true>([&](int u, int kb, int ke) { items.push_back({c, u, kb, ke}); });
  }
  return items;
}

void check_schedule(int units, int k_tiles, int clusters, const TailPlan& plan) {
  const int tail = plan.units;
  SCOPED_TRACE(testing::Message() << units << " units, " << k_tiles << " k-tiles, " << clusters << " clusters, tail "
                                  << tail << " owner_k " << plan.owner_k << " helpers " << plan.helpers);
  if (tail > 0) {
    ASSERT_GE(plan.helpers, 1);
    ASSERT_LE(plan.helpers, clusters - tail);
  }
  const std::vector<Item> items = items_of(units, k_tiles, clusters, plan);

  // Coverage: each (unit, k) once.
  std::map<std::pair<int, int>, int> seen;
  for (const Item& it : items) {
    ASSERT_LT(it.kb, it.ke);
    for (int k = it.kb; k < it.ke; ++k) ++seen[{it.unit, k}];
  }
  ASSERT_EQ(seen.size(), std::size_t(units) * k_tiles);
  for (const auto& [key, n] : seen) ASSERT_EQ(n, 1) << "unit " << key.first << " k " << key.second;

  // Partial items are the helpers' (clusters without a tail unit), in the tail, and no two share
  // a workspace slot.
  const Schedule any(units, k_tiles, 0, clusters, plan);
  std::set<int> slots;
  for (const Item& it : items) {
    if (it.kb == 0) continue;
    EXPECT_GE(it.unit, units - tail) << "a partial item outside the tail";
    EXPECT_GE(it.cluster, tail) << "an owner with a partial item";
    EXPECT_LT(it.cluster, tail + plan.helpers) << "a partial item on a cluster that does not help";
    const int slot = any.slot(it.cluster, it.unit);
    EXPECT_GE(slot, 0);
    EXPECT_LT(slot, clusters) << "slot outside the workspace";
    EXPECT_TRUE(slots.insert(slot).second) << "slot " << slot << " used twice";
  }
  for (int c = 0; c < tail; ++c)  // owners start their tail unit at k = 0
    EXPECT_TRUE(std::any_of(items.begin(), items.end(), [&](const Item& it) {
      return it.cluster == c && it.unit == units - tail + c && it.kb == 0;
    }));

  // Finishers and contributors agree.
  std::map<int, std::set<int>> workers;  // unit -> clusters with an item on it
  std::map<int, int> finisher;
  for (const Item& it : items) {
    workers[it.unit].insert(it.cluster);
    if (it.kb == 0) finisher[it.unit] = it.cluster;
  }
  ASSERT_EQ(finisher.size(), std::size_t(units));
  for (const auto& [unit, f] : finisher) {
    std::set<int> expected = workers[unit];
    expected.erase(f);
    std::set<int> listed;
    const Schedule s(units, k_tiles, f, clusters, plan);
    if (unit >= units - tail) s.for_each_contributor(unit, [&](int c) { listed.insert(c); });
    EXPECT_EQ(listed, expected) << "unit " << unit;
    for (int c : listed) EXPECT_GT(c, f) << "contributors come after their finisher";
  }
}

TEST(StreamK, TailIsThePartialLastWave) {
  EXPECT_EQ(plan_stream_k_tail(512, 132, 64, TailMode::always).units, 116);  // 4096^3, 128 x 256 tiles, H100
  EXPECT_EQ(plan_stream_k_tail(2048, 132, 128, TailMode::always).units, 68);
  EXPECT_EQ(plan_stream_k_tail(2048, 132, 128, TailMode::off).units, 0);
  EXPECT_EQ(plan_stream_k_tail(264, 132, 64, TailMode::always).units, 0);  // whole waves
  EXPECT_EQ(plan_stream_k_tail(100, 132, 64, TailMode::always).units, 0);  // less than one wave
  EXPECT_EQ(plan_stream_k_tail(133, 132, 64, TailMode::always).units, 1);
  EXPECT_EQ(plan_stream_k_tail(133, 132, 1, TailMode::always).units, 0);   // one k-tile: nothing to share
  EXPECT_EQ(plan_stream_k_tail(133, 132, std::int64_t(1) << 31, TailMode::always).units, 0);  // 32-bit counters
}

// The cases measured on the H100 (docs/kernels/tensor-ladder.md): BF16 128 x 256 tiles in clusters
// of 2 (66 resident clusters), TF32 256 x 128 tiles (132 CTAs).
TEST(StreamK, TheCostModelKeepsTheTailWhereItWasFaster) {
  const TailPlan bf16_8192 = plan_stream_k_tail(1024, 66, 128, TailMode::when_faster);
  EXPECT_EQ(bf16_8192.units, 34);
  EXPECT_GE(bf16_8192.owner_k, 66);  // 66 (an even share) to 70 were measured; 68 to 70 were fastest
  EXPECT_LE(bf16_8192.owner_k, 72);
  EXPECT_EQ(plan_stream_k_tail(2048, 132, 256, TailMode::when_faster).units, 68);  // TF32 8192^3
  EXPECT_EQ(plan_stream_k_tail(256, 66, 64, TailMode::when_faster).units, 0);      // BF16 4096^3: 8 items a helper
  EXPECT_EQ(plan_stream_k_tail(512, 132, 128, TailMode::when_faster).units, 0);    // TF32 4096^3
  // Forced, the split still follows the model: owners keep most of a 4096^3 tail unit.
  const TailPlan forced = plan_stream_k_tail(256, 66, 64, TailMode::always);
  EXPECT_EQ(forced.units, 58);
  EXPECT_GT(forced.owner_k, 56);
  EXPECT_LT(forced.owner_k, 64);
}

// A small tail takes a few helpers per unit, not every spare cluster: each helper's sums cost its
// owner an add (about 3 k-tiles), so with 8 tail units 124 helpers (16 per unit) would spend 48
// k-tiles adding. Measured on an H200 (BF16 5120^3, 128 x 256 tiles: docs/kernels/tensor-ladder.md).
TEST(StreamK, SmallTailsTakeAFewHelpersPerUnit) {
  const TailPlan p = plan_stream_k_tail(800, 132, 80, TailMode::when_faster);  // 5120^3, 128 x 256
  EXPECT_EQ(p.units, 8);
  EXPECT_EQ(p.helpers % 8, 0);
  EXPECT_GE(p.helpers, 24);
  EXPECT_LE(p.helpers, 56);
  EXPECT_LT(p.owner_k, 20);
  // Many tail units and few spare clusters: every spare cluster helps.
  EXPECT_EQ(plan_stream_k_tail(1024, 132, 64, TailMode::always).helpers, 32);  // 8192 x 4096 x 4096
}

TEST(StreamK, ScheduleCoversEveryKTileOnceAndFinishersKnowTheirHelpers) {
  for (int clusters : {1, 7, 66, 132})
    for (int units : {1, 5, 66, 131, 133, 256, 512, 1000})
      for (int k_tiles : {1, 2, 3, 16, 64, 129}) {
        const TailPlan plan = plan_stream_k_tail(units, clusters, k_tiles, TailMode::always);
        check_schedule(units, k_tiles, clusters, plan);
        if (plan.units == 0) continue;
        // Splits the model did not choose: one helper, one per tail unit, every spare cluster,
        // with the owners' share at either end.
        const int spare = clusters - plan.units;
        for (int helpers : {1, std::min(plan.units, spare), spare})
          for (int owner_k : {1, plan.owner_k, k_tiles - 1})
            check_schedule(units, k_tiles, clusters, TailPlan{plan.units, owner_k, helpers});
      }
}

// The order of a cluster's items, which for_each documents and the kernels rely on (its TMA loads
// and the helpers' flags follow it): the whole units first, cluster, cluster + G, ..., then either
// the owner's tail unit from k-tile 0, or the helper's iterations in order: each item runs to its
// unit's last k-tile and the next starts the next unit at owner_k; only the last stops earlier.
TEST(StreamK, EachClustersItemsComeInTheDocumentedOrder) {
  for (int clusters : {1, 7, 66, 132})
    for (int units : {1, 66, 133, 256, 1000})
      for (int k_tiles : {1, 3, 64, 129}) {
        const TailPlan model = plan_stream_k_tail(units, clusters, k_tiles, TailMode::always);
        std::vector<TailPlan> plans = {model};
        if (model.units > 0) plans.push_back({model.units, 1, clusters - model.units});
        for (const TailPlan& plan : plans) {
          std::map<int, std::vector<Item>> by_cluster;  // items_of lists them cluster by cluster, in order
          for (const Item& it : items_of(units, k_tiles, clusters, plan)) by_cluster[it.cluster].push_back(it);
          for (int c = 0; c < clusters; ++c) {
            SCOPED_TRACE(testing::Message() << units << " units, " << k_tiles << " k-tiles, cluster " << c << " of "
                                            << clusters << ", tail " << plan.units << " owner_k " << plan.owner_k);
            const std::vector<Item>& items = by_cluster[c];
            std::size_t i = 0;
            for (int u = c; u < units - plan.units; u += clusters, ++i) {
              ASSERT_LT(i, items.size());
              EXPECT_TRUE(items[i].unit == u && items[i].kb == 0 && items[i].ke == k_tiles) << "whole unit " << u;
            }
            if (c < plan.units) {  // an owner: its tail unit, from k-tile 0, last
              ASSERT_EQ(items.size(), i + 1);
              EXPECT_TRUE(items[i].unit == units - plan.units + c && items[i].kb == 0 && items[i].ke == plan.owner_k);
              continue;
            }
            for (; i + 1 < items.size(); ++i) {  // a helper: each item continues the one before
              const Item &a = items[i], &b = items[i + 1];
              EXPECT_EQ(a.ke, k_tiles) << "item " << i << " stops inside its unit but is not the last";
              EXPECT_TRUE(b.unit == a.unit + 1 && b.kb == plan.owner_k) << "item " << i + 1;
            }
          }
        }
      }
}

TEST(StreamK, WithoutATailEveryUnitIsWhole) {
  const std::vector<Item> items = items_of(512, 64, 128, TailPlan{});
  EXPECT_EQ(items.size(), 512u);
  for (const Item& it : items) EXPECT_TRUE(it.kb == 0 && it.ke == 64);
}

// helper_begin splits helper_iters * h / helpers in 32-bit arithmetic (the producer thread cannot
// afford a 64-bit division); it must equal the 64-bit quotient wherever the product overflows int.
TEST(StreamKSchedule, HelperRangesAreExactBeyond32BitProducts) {
  for (const int tail : {1, 5, 64, 131})
    for (const int k_tiles : {2, 1000, 200000, 16000000}) {
      const int clusters = 132, owner_k = 1;
      if (std::int64_t(tail) * k_tiles >= (std::int64_t(1) << 31)) continue;
      const int helpers = clusters - tail;
      const Schedule s(/*units=*/tail + 300, k_tiles, 0, clusters, {tail, owner_k, helpers});
      for (int h = 0; h <= helpers; ++h)
        EXPECT_EQ(s.helper_begin(h), int(std::int64_t(s.helper_iters) * h / helpers)) << tail << " " << k_tiles << " " << h;
    }
}

}  // namespace

