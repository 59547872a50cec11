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
// the clusters that would sit idle take shares of its k-tiles. That is the tail plan_stream_k_tail
// gives the last `units` units of a launch one wave longer, since its choice depends only on the
// tail's size, the number of helpers and K, so the same cost model decides.
inline GridPlan plan_grid(std::int64_t units, std::int64_t resident, std::int64_t k_tiles, TailMode mode) {
  resident = std::max<std::int64_t>(1, resident);
  if (units >= resident) return {resident, tc::plan_stream_k_tail(units, resident, k_tiles, mode)};
  const tc::TailPlan tail = tc::plan_stream_k_tail(units + resident, resident, k_tiles, mode);
  if (tail.units > 0) return {resident, tail};
  return {std::max<std::int64_t>(1, units), {}};
}

}  // namespace gemmlab::detail
