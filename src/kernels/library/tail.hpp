// The grid and stream-K tail of a persistent launch, for the library's tensor-core families.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/tensor/stream_k.hpp"

namespace gemmlab::detail {

struct GridPlan {
  std::int64_t clusters = 1;  // clusters the launch runs
  tc::TailPlan tail;          // its stream-K tail (none: every unit whole)
};

// `units` units of `k_tiles` k-tiles on `resident` co-resident clusters. A wave or more: one cluster
// per resident slot, and a tail where plan_stream_k_tail finds one. Less than a wave (a few tiles
// with a long K: a decode step's 16 x 4096 x 4096, 64 x 64 x 65536): every unit is a tail unit and
// the clusters that would sit idle take shares of its k-tiles. That is the tail model_stream_k_tail
// gives the last `units` units of a launch one wave longer, since its choice depends only on the
// tail's size, the number of helpers and K. Below a wave, TailMode::when_faster takes it only where
// the model gives it at most 55% of the time of whole units, not 75% as after whole waves: there
// every unit waits for helpers, and such tails measured far slower than modelled (docs/shapes.md,
// "Sub-wave tails: 55% of K").
inline GridPlan plan_grid(std::int64_t units, std::int64_t resident, std::int64_t k_tiles, TailMode mode) {
  resident = std::max<std::int64_t>(1, resident);
  if (units >= resident) return {resident, tc::plan_stream_k_tail(units, resident, k_tiles, mode)};
  if (mode != TailMode::off) {
    const tc::TailModel m = tc::model_stream_k_tail(units + resident, resident, k_tiles, tc::kSubWaveTailCosts);
    if (m.plan.units > 0 && (mode == TailMode::always || 20 * m.time <= 11 * k_tiles)) return {resident, m.plan};
  }
  return {std::max<std::int64_t>(1, units), {}};
}

}  // namespace gemmlab::detail
