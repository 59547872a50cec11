// The work schedule of the persistent sm_90a kernels (host and device; the fix-up is in
// sm90_schedule.cuh): data-parallel waves, then a stream-K tail.
//
// A persistent grid of G clusters walks U units (a unit is the tile, or the cluster's stack of
// tiles). With whole units only, the last wave holds R = U mod G units and the other clusters idle:
// at 4096^3 with 128 x 256 tiles that is 512 tiles on 132 SMs, 3.88 waves run in the time of 4.
// The stream-K tail removes most of that idle time while keeping the tail's clusters in step:
// - the first U - R units are processed whole, round-robin as before;
// - tail unit i (of R) belongs to cluster i, its *owner*, which multiplies its k-tiles
//   [0, owner_k) from k = 0, like a whole unit, and then *finishes* it;
// - H of the G - R clusters without a tail unit are *helpers*: the remaining k-tiles [owner_k, K)
//   of all tail units, unit after unit, are cut into H equal contiguous ranges, one per helper; the
//   other clusters stop. H is the planner's: each helper's sums cost its owner an add, so a few
//   helpers per unit beat every idle cluster.
//   A helper multiplies each of its items, stores the sums to a workspace slot and raises a flag;
//   the owner waits for its unit's flags, adds the slots and writes C.
// All owners stand at the same k at the same time, as in a whole wave, so the tiles of one row or
// column share each A and B slice in L2. (The first version cut all R x K tail iterations into G
// contiguous ranges: neighbouring clusters then worked a range length apart in k, and the tail
// fetched its panels from DRAM again: see docs/kernels/tensor-ladder.md.) Every CTA of the grid is
// resident (persistent), so an owner's wait always ends.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/stream_k_flags.hpp"

namespace gemmlab::tc {

// How a launch splits its last wave: R tail units (0: whole units only), the k-tiles [0, owner_k)
// their owners multiply, and the H clusters that help with the rest.
struct TailPlan {
  int units = 0;
  int owner_k = 0;
  int helpers = 0;
};

struct Schedule {
  int k_tiles, cluster, clusters;  // cluster: this CTA's cluster index; clusters: G
  int dp_units;                    // units processed whole
  int tail_units;                  // R: tail unit i is dp_units + i, owned by cluster i
  int owner_k;                     // k-tiles [0, owner_k) of a tail unit are its owner's
  int helpers;                     // H: clusters tail_units .. tail_units + H - 1 help (H <= G - R)
  int helper_k;                    // k-tiles [owner_k, K) of every tail unit go to the helpers
  int helper_iters;                // R x helper_k (< 2^31, see plan_stream_k_tail)

  GEMMLAB_HD Schedule(int units_, int k_tiles_, int cluster_, int clusters_, TailPlan tail)
      : k_tiles(k_tiles_), cluster(cluster_), clusters(clusters_), dp_units(units_ - tail.units),
        tail_units(tail.units), owner_k(tail.owner_k), helpers(tail.helpers), helper_k(k_tiles_ - tail.owner_k),
        helper_iters(tail.units * (k_tiles_ - tail.owner_k)) {}

  // Helper h's range of helper iterations is [helper_begin(h), helper_begin(h + 1)); iteration i is
  // k-tile owner_k + i % helper_k of tail unit i / helper_k. That is helper_iters * h / helpers,
  // in 32-bit arithmetic (helper_iters = q * helpers + r): a 64-bit division is a subroutine whose
  // registers the producer thread, with 40, would spill.
  GEMMLAB_HD int helper_begin(int h) const {
    const int q = helper_iters / helpers, r = helper_iters % helpers;
    return q * h + r * h / helpers;
  }

  // Calls f(unit, k_begin, k_end) for every item of this cluster, in order: its whole units, then
  // the tail unit it owns or its range of helper iterations. STREAM_K = false compiles the tail out
  // (kernels that never have one). f is called from two places, the whole units' loop and the
  // tail's, so that a kernel's body (its main loop and epilogue, inlined into f) is compiled twice,
  // not once for each kind of item.
  template <bool STREAM_K, class F>
  GEMMLAB_HD void for_each(F&& f) const {
    for (int u = cluster; u < dp_units; u += clusters) f(u, 0, k_tiles);
    if constexpr (STREAM_K) {
      // The owner's item is iteration -1 of an empty range; a helper's are its range's.
      const int h = cluster - tail_units;
      int i = -1, end = 0;
      if (h >= 0) {
        if (h >= helpers || helper_k == 0) return;
        i = helper_begin(h), end = helper_begin(h + 1);
      }
      while (i < end) {
        int unit = dp_units + cluster, kb = 0, ke = owner_k;
        if (i >= 0) {
          unit = dp_units + i / helper_k, kb = owner_k + i % helper_k;
          ke = kb + (end - i) < k_tiles ? kb + (end - i) : k_tiles;
        }
        i = i < 0 ? end : i + (ke - kb);
        f(unit, kb, ke);
      }
    }
  }

  // The workspace slot (0 .. H + R - 2 <= G - 2) of helper cluster c's item on tail unit `unit`.
  // Along a helper's items the unit index grows by one, and the next helper starts on the unit where
  // this one stopped or later, so helper + tail index is different for every item of the launch.
  GEMMLAB_HD int slot(int c, int unit) const { return (c - tail_units) + (unit - dp_units); }

  // The helper clusters that hold k-tiles of tail unit `unit` (its owner finishes it): f(c) for each.
  template <class F>
  GEMMLAB_HD void for_each_contributor(int unit, F&& f) const {
    if (helper_k == 0) return;
    const int lo = (unit - dp_units) * helper_k, hi = lo + helper_k;
    // The helper whose range holds iteration lo: start from the proportional guess and step.
    int h = int(std::int64_t(lo) * helpers / helper_iters);
    while (h > 0 && helper_begin(h) > lo) --h;
    while (helper_begin(h + 1) <= lo) ++h;
    for (; h < helpers && helper_begin(h) < hi; ++h)
      if (helper_begin(h + 1) > helper_begin(h)) f(tail_units + h);
  }
};

// The kernels' description of their `stream_k` parameter (its values are TailMode's).
inline constexpr const char* kStreamKParamHelp =
    "a partial last wave shared out by a stream-K tail: 1 where the cost model predicts a gain (on an H100 "
    "8192^3 has one, 4096^3 not), 2 whenever the last wave is partial, 0 never (whole tiles only)";

// Cost model of the tail, in k-tile times. kTailCosts was fitted to per-CTA timestamps of tails
// after whole waves on an H200 (BF16, 128 x 256 tiles; docs/kernels/tensor-ladder.md, "The stream-K
// tail"): a helper's item costs about 5 k-tiles more than its k-tiles (refilling the pipeline, then
// publishing 128 x 256 FP32 sums, 128 KB per CTA through the SM's path to L2), and an owner adding
// one helper's sums about 3 (it reads them through one SM, so a unit with 16 helpers spends longer
// adding than computing). So the model may give each tail unit only a few helpers (at most
// max_helpers_per_unit) and let the other spare clusters stop. kSubWaveTailCosts is the first
// model's (H100), with every spare cluster a helper: tails below a wave (library/tail.hpp) keep
// it, as their rule (55% of K) was fitted to its figures and they have not been re-measured.
struct TailCosts {
  int publish, add;          // k-tile times per helper item and per helper added
  int max_helpers_per_unit;  // 0: every spare cluster helps
};
inline constexpr TailCosts kTailCosts{5, 3, 8};
inline constexpr TailCosts kSubWaveTailCosts{3, 2, 0};

// The modelled tail of `units` walked by `clusters` resident clusters of k_tiles each: the split
// (owner_k, helpers) with the shortest modelled tail, the longer of an owner's path (owner_k k-tiles,
// then adding each helper's sums) and a helper's (its share of the remaining k-tiles, plus each
// item's cost), and that time in k-tiles. No tail (units 0) when the waves are whole, when there is
// less than one wave (every cluster already has at most one unit), or when the tail's k-tile
// iterations would not fit the kernels' 32-bit counters.
struct TailModel {
  TailPlan plan;
  std::int64_t time = 0;  // k-tile times, against k_tiles for a whole last wave
};

// One split's modelled time (see model_stream_k_tail; 32-bit: tail x k_tiles < 2^31).
inline int stream_k_tail_time(int tail, int helpers, int k_tiles, int owner_k, const TailCosts& costs) {
  const int hk = k_tiles - owner_k, total = tail * hk;
  const int per_helper = (total + helpers - 1) / helpers, even = total / helpers;
  int items = 0, contributors = 0;
  if (total % helpers == 0 && hk % per_helper == 0) {  // equal ranges that tile each unit: one item each
    items = 1, contributors = hk / per_helper;
  } else {  // a range may straddle units
    items = std::min(tail, (per_helper + hk - 1) / hk + 1);
    contributors = std::min(helpers, even > 0 ? (hk + even - 1) / even + 1 : hk);
  }
  return std::max(owner_k + costs.add * contributors, per_helper + costs.publish * items);
}

// The helper counts tried: every spare cluster (owner_k searched over all of K), and m helpers per
// tail unit for m up to max_helpers_per_unit, owner_k searched near where the owners' path (rising
// with owner_k) meets the helpers' (falling), in a window wider than m so that it holds an owner_k
// whose helper ranges tile each unit. That bounds the work per call to about K + 150 evaluations.
inline TailModel model_stream_k_tail(std::int64_t units, std::int64_t clusters, std::int64_t k_tiles,
                                     const TailCosts& costs = kTailCosts) {
  if (k_tiles < 2 || units <= clusters || units % clusters == 0) return {};
  const std::int64_t tail64 = units % clusters, spare = clusters - tail64;
  if (tail64 * k_tiles >= (std::int64_t(1) << 31)) return {};
  const int tail = int(tail64), k = int(k_tiles);
  TailModel best;
  auto consider = [&](int helpers, int lo, int hi) {
    for (int kc = lo; kc <= hi; ++kc) {
      const int time = stream_k_tail_time(tail, helpers, k, kc, costs);
      if (best.plan.units == 0 || time < best.time) best = {{tail, kc, helpers}, time};
    }
  };
  consider(int(spare), 1, k - 1);
  for (int m = 1; m <= costs.max_helpers_per_unit && std::int64_t(m) * tail < spare; ++m) {
    const int helpers = m * tail;
    // Where the paths meet if each helper has one item and each owner m + 1 contributors.
    const std::int64_t guess =
        (std::int64_t(tail) * k + std::int64_t(helpers) * (costs.publish - costs.add * (m + 1))) / (helpers + tail);
    const int w = 4 + m;
    const auto clamp_k = [k](std::int64_t kc) { return int(std::clamp<std::int64_t>(kc, 1, k - 1)); };
    consider(helpers, clamp_k(guess - w), clamp_k(guess + w));
  }
  return best;
}

// The tail a launch takes: TailMode::when_faster keeps the modelled one only where it beats a whole
// last wave (K k-tiles) by a quarter: at 8192^3 in BF16 (34 tail units, 32 helpers) it does, at
// 4096^3 (58 tail units, 8 helpers, so 8 items each) it does not.
inline TailPlan plan_stream_k_tail(std::int64_t units, std::int64_t clusters, std::int64_t k_tiles, TailMode mode) {
  if (mode == TailMode::off) return {};
  const TailModel m = model_stream_k_tail(units, clusters, k_tiles);
  if (mode == TailMode::when_faster && 4 * m.time > 3 * k_tiles) return {};
  return m.plan;
}

// Workspace for the partial sums: a slot of bm x bn FP32 per CTA of the grid, when there is a tail
// (Schedule::slot numbers fewer than G slots per cluster).
inline std::size_t stream_k_workspace(int tail_units, std::int64_t grid_ctas, int bm, int bn) {
  return tail_units > 0 ? std::size_t(grid_ctas) * bm * bn * sizeof(float) : 0;
}

}  // namespace gemmlab::tc
