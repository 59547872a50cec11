// The work schedule of the persistent sm_90a kernels (host and device; the fix-up is in
// sm90_schedule.cuh): data-parallel waves, then a stream-K tail.
//
// A persistent grid of G clusters walks U units (a unit is the tile, or the cluster's stack of
// tiles). With whole units only, the last wave holds U mod G units and the other clusters idle: at
// 4096^3 with 128 x 256 tiles that is 512 tiles on 132 SMs, 3.88 waves run in the time of 4.
// Stream-K removes the idle part: the first U - R units are processed whole, round-robin as before;
// the iterations of the last R = U mod G units (R x K-tiles) are cut into G equal contiguous ranges,
// one per cluster. A range that starts inside a unit begins with a *partial* item: the cluster
// multiplies those k-tiles, stores its accumulators to a workspace slot of its own and raises a flag.
// The cluster whose range holds a unit's k-tile 0 is that unit's *finisher*: after its own k-tiles it
// waits for the flags of the clusters after it that worked on the unit, adds their slots, clears the
// flags and writes C. Only a range's first item can be partial, so one slot per CTA suffices; every
// CTA of the grid is resident (persistent), so a finisher's wait always ends.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#if defined(__CUDACC__)
#define GEMMLAB_HD __host__ __device__
#else
#define GEMMLAB_HD
#endif

namespace gemmlab::tc {

struct Schedule {
  int k_tiles, cluster, clusters;  // cluster: this CTA's cluster index; clusters: G
  int dp_units;                           // units processed whole
  int sk_iters;                           // tail iterations: tail units x k_tiles (< 2^31, see the host)

  GEMMLAB_HD Schedule(int units_, int k_tiles_, int cluster_, int clusters_, int tail_units)
      : k_tiles(k_tiles_), cluster(cluster_), clusters(clusters_), dp_units(units_ - tail_units),
        sk_iters(tail_units * k_tiles_) {}

  GEMMLAB_HD int range_begin(int c) const { return int(std::int64_t(sk_iters) * c / clusters); }

  // Calls f(unit, k_begin, k_end) for every item of this cluster, in order. STREAM_K = false
  // compiles the tail out (kernels that never have one).
  template <bool STREAM_K, class F>
  GEMMLAB_HD void for_each(F&& f) const {
    for (int u = cluster; u < dp_units; u += clusters) f(u, 0, k_tiles);
    if constexpr (STREAM_K) {
      const int end = range_begin(cluster + 1);
      for (int it = range_begin(cluster); it < end;) {
        const int unit = dp_units + it / k_tiles, kb = it % k_tiles, ke = kb + (end - it) < k_tiles ? kb + (end - it) : k_tiles;
        f(unit, kb, ke);
        it += ke - kb;
      }
    }
  }

  // The clusters after this one that hold k-tiles of tail unit `unit` (this cluster finishes it):
  // f(c) for each.
  template <class F>
  GEMMLAB_HD void for_each_contributor(int unit, F&& f) const {
    const int unit_end = (unit - dp_units + 1) * k_tiles;
    for (int c = cluster + 1; c < clusters && range_begin(c) < unit_end; ++c)
      if (range_begin(c + 1) > range_begin(c)) f(c);  // (a range may be empty when the tail is short)
  }
};


// Units (tiles, or clusters' stacks of tiles) left for the stream-K tail when `units` are walked by
// `clusters` resident clusters: the units of the last, partial wave; 0 when the waves are whole or
// there is less than one wave (then every cluster already has at most one unit), or when the tail's
// k-tile iterations would not fit the kernels' 32-bit counters.
inline int stream_k_tail(std::int64_t units, std::int64_t clusters, std::int64_t k_tiles) {
  if (units <= clusters || units % clusters == 0) return 0;
  const std::int64_t tail = units % clusters;
  return tail * k_tiles < (std::int64_t(1) << 31) ? int(tail) : 0;
}

// Workspace for the partial sums: a slot of bm x bn FP32 per CTA of the grid, when there is a tail.
inline std::size_t stream_k_workspace(int tail_units, std::int64_t grid_ctas, int bm, int bn) {
  return tail_units > 0 ? std::size_t(grid_ctas) * bm * bn * sizeof(float) : 0;
}

// Flags the kernels raise and clear (one per CTA and consumer warpgroup): zeroed device memory that
// belongs to the calling device and stream, so that launches on other streams cannot interfere.
// Every launch leaves them zero again. Room for `kStreamKFlags` flags.
inline constexpr int kStreamKFlags = 4096;
unsigned* stream_k_flags(cudaStream_t stream);

}  // namespace gemmlab::tc
