// The stream-K schedule of the persistent sm_90a kernels, checked on the host: every k-tile of
// every unit is computed exactly once, partial items come first in a cluster's range, and each
// finisher waits for exactly the clusters that worked on its unit.
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/tensor/stream_k.hpp"

using gemmlab::tc::Schedule;
using gemmlab::tc::stream_k_tail;

namespace {

struct Item {
  int cluster, unit, kb, ke;
};

std::vector<Item> items_of(int units, int k_tiles, int clusters, int tail) {
  std::vector<Item> items;
  for (int c = 0; c < clusters; ++c) {
    const Schedule s(units, k_tiles, c, clusters, tail);
    s.for_each<true>([&](int u, int kb, int ke) { items.push_back({c, u, kb, ke}); });
  }
  return items;
}

void check_schedule(int units, int k_tiles, int clusters) {
  const int tail = stream_k_tail(units, clusters, k_tiles);
  SCOPED_TRACE(testing::Message() << units << " units, " << k_tiles << " k-tiles, " << clusters << " clusters, tail "
                                  << tail);
  const std::vector<Item> items = items_of(units, k_tiles, clusters, tail);

  // Coverage: each (unit, k) once.
  std::map<std::pair<int, int>, int> seen;
  for (const Item& it : items) {
    ASSERT_LT(it.kb, it.ke);
    for (int k = it.kb; k < it.ke; ++k) ++seen[{it.unit, k}];
  }
  ASSERT_EQ(seen.size(), std::size_t(units) * k_tiles);
  for (const auto& [key, n] : seen) ASSERT_EQ(n, 1) << "unit " << key.first << " k " << key.second;

  // Only the first item of a cluster's list may start inside a unit (one workspace slot each).
  std::map<int, int> index_in_cluster;
  for (const Item& it : items) {
    const int i = index_in_cluster[it.cluster]++;
    if (it.kb > 0) {
      EXPECT_GE(it.unit, units - tail) << "a partial item outside the tail";
      // It is the cluster's first item after its whole units.
      const int whole = (units - tail - it.cluster + clusters - 1) / clusters;
      EXPECT_EQ(i, std::max(whole, 0)) << "cluster " << it.cluster;
    }
  }

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
    const Schedule s(units, k_tiles, f, clusters, tail);
    if (unit >= units - tail) s.for_each_contributor(unit, [&](int c) { listed.insert(c); });
    EXPECT_EQ(listed, expected) << "unit " << unit;
    for (int c : listed) EXPECT_GT(c, f) << "contributors come after their finisher";
  }
}

TEST(StreamK, TailIsThePartialLastWave) {
  EXPECT_EQ(stream_k_tail(512, 132, 64), 116);  // 4096^3, 128 x 256 tiles, H100
  EXPECT_EQ(stream_k_tail(2048, 132, 128), 68);
  EXPECT_EQ(stream_k_tail(264, 132, 64), 0);    // whole waves
  EXPECT_EQ(stream_k_tail(100, 132, 64), 0);    // less than one wave
  EXPECT_EQ(stream_k_tail(133, 132, 64), 1);
  EXPECT_EQ(stream_k_tail(133, 132, std::int64_t(1) << 31), 0);  // counters would overflow
}

TEST(StreamK, ScheduleCoversEveryKTileOnceAndFinishersKnowTheirHelpers) {
  for (int clusters : {1, 7, 66, 132})
    for (int units : {1, 5, 66, 131, 133, 256, 512, 1000})
      for (int k_tiles : {1, 2, 3, 16, 64, 129}) check_schedule(units, k_tiles, clusters);
}

TEST(StreamK, WithoutATailEveryUnitIsWhole) {
  const std::vector<Item> items = items_of(512, 64, 128, 0);
  EXPECT_EQ(items.size(), 512u);
  for (const Item& it : items) EXPECT_TRUE(it.kb == 0 && it.ke == 64);
}

}  // namespace
