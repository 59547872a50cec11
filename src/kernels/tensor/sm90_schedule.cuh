// Device side of the stream-K tail of the persistent sm_90a kernels: publishing a partial item's
// sums and adding them into the finisher's (the schedule itself is in stream_k.hpp).
#pragma once

#include <cstdint>

#include "kernels/tensor/sm90_ptx.cuh"
#include "kernels/tensor/stream_k.hpp"

namespace gemmlab::tc::sm90 {

struct StreamK {
  float* partials = nullptr;   // one slot of BM x BN floats per CTA (laid out per consumer thread)
  unsigned* flags = nullptr;   // one per CTA and consumer warpgroup; all zero between launches
  TailPlan tail;               // tail.units == 0: whole units only, no stream-K tail
};

// Spin until another CTA has published its slot (acquire at GPU scope), then clear the flag for the
// next launch.
__device__ __forceinline__ void wait_flag_and_clear(unsigned* flag) {
  unsigned v = 0;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  } while (v == 0);
  *flag = 0;
}

__device__ __forceinline__ void raise_flag(unsigned* flag) {
  __threadfence();
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(1u) : "memory");
}

// Raises the flag of a helper's last published slot, if one is pending (see settle_item).
__device__ __forceinline__ void raise_pending(const StreamK& sk, int& pending, int ctid) {
  if (pending >= 0 && ctid == 0) raise_flag(&sk.flags[pending]);
  pending = -1;
}

// A consumer warpgroup's accumulators <-> its half of a workspace slot: float4 per thread and step,
// consecutive threads at consecutive 16 bytes (coalesced), through L2 only (other SMs read them).
template <int N>
__device__ __forceinline__ void store_partial(float* slot, const float (&d)[N], int ctid) {
  static_assert(N % 4 == 0);
#pragma unroll
  for (int j = 0; j < N / 4; ++j)
    __stcg(reinterpret_cast<float4*>(slot) + j * 128 + ctid, make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]));
}
template <int N>
__device__ __forceinline__ void add_partial(float (&d)[N], const float* slot, int ctid) {
  const float4* p = reinterpret_cast<const float4*>(slot) + ctid;
#pragma unroll
  for (int j = 0; j < N / 4; ++j) {
    const float4 v = __ldcg(p + j * 128);
    d[4 * j] += v.x, d[4 * j + 1] += v.y, d[4 * j + 2] += v.z, d[4 * j + 3] += v.w;
  }
}

// After a consumer warpgroup (index ci of CONSUMERS, thread ctid) has multiplied k-tiles [kb, ke) of `unit`:
// a helper publishes its item's sums; an owner adds the sums of its unit's helpers. Returns whether
// this warpgroup writes the unit's C. Slots and flags are per schedule slot, CTA rank and warpgroup.
//
// A helper's flag is raised one item late (`pending`, then raise_pending after the last item): the
// GPU-scope fence before a flag waits until the slot's stores have reached L2, and raised at once
// it would hold the whole warpgroup (its wgmmas need every warp) for about a microsecond per item.
// One item later those stores have drained. Owners lose nothing: a helper's items are short and
// all of them end before the owners' longer ones.
template <int CLUSTER, int CONSUMERS, int N>
__device__ __forceinline__ bool settle_item(const Schedule& s, const StreamK& sk, int unit, int kb, int ke,
                                            float (&d)[N], unsigned rank, int ci, int ctid, int& pending) {
  if (kb == 0 && ke == s.k_tiles) return true;  // a whole unit
  auto index = [&](int c) { return (s.slot(c, unit) * CLUSTER + int(rank)) * CONSUMERS + ci; };
  constexpr std::size_t kSlotFloats = std::size_t(N) * 128;
  if (kb > 0) {  // a helper's item
    raise_pending(sk, pending, ctid);
    pending = index(s.cluster);
    store_partial(sk.partials + pending * kSlotFloats, d, ctid);
    named_barrier(1 + ci, 128);  // every thread's part is written before thread 0 raises the flag
    return false;
  }
  s.for_each_contributor(unit, [&](int c) {
    const int other = index(c);
    if (ctid == 0) wait_flag_and_clear(&sk.flags[other]);
    named_barrier(1 + ci, 128);
    add_partial(d, sk.partials + other * kSlotFloats, ctid);
  });
  return true;
}

}  // namespace gemmlab::tc::sm90
