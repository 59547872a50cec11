// PTX wrappers for the sm_90a kernels (hopper.cuh, hopper_tf32.cuh): mbarriers, TMA loads and
// stores, clusters, wgmma fences, register reallocation, shared-memory matrix descriptors, and the
// grouped tile order of the persistent schedules. Each wrapper is one or two PTX instructions.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda.h>

#include "kernels/device_utils.cuh"

namespace gemmlab::tc::sm90 {

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(dev::smem_addr(bar)), "r"(count));
}
// The barrier and TMA wrappers also take 32-bit shared-memory addresses (std::uint32_t), which
// the producer thread uses: generic pointers cost it two registers each, and it has 40.
__device__ __forceinline__ void mbar_expect_tx(std::uint32_t bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) { mbar_wait(dev::smem_addr(bar), parity); }
__device__ __forceinline__ void mbar_expect_tx(std::uint64_t* bar, unsigned bytes) { mbar_expect_tx(dev::smem_addr(bar), bytes); }
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(dev::smem_addr(bar)) : "memory");
}
// Arrive on the barrier at the same offset in the shared memory of CTA `rank` of this cluster.
// (Default .release.cta semantics: what is being released is a slot the wgmma has finished
// reading, which needs no cluster-wide ordering of this thread's own memory operations.)
__device__ __forceinline__ void mbar_arrive_cluster(std::uint64_t* bar, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(dev::smem_addr(bar)),
      "r"(rank)
      : "memory");
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// The cluster's barrier at the pipeline's start. Its arrive is .relaxed: what the peers must see
// before they arrive on this CTA's barriers or multicast into its stages is the barriers'
// initialisation, which fence.mbarrier_init.release.cluster publishes (init_pipeline). The default
// .release arrive compiles to a GPU-wide memory barrier (MEMBAR.ALL.GPU, then ERRBAR), which ncu
// counted among the largest stalls of pairs of 128 x 64 tiles at BF16 1000^3
// (docs/kernels/tensor-ladder.md, "The cluster's barriers").
__device__ __forceinline__ void cluster_sync_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;\n" ::: "memory");
}

// Brings a TMA descriptor (a __grid_constant__ kernel parameter) into the TMA unit's cache before
// its first copy, which would otherwise wait for the fetch. Descriptors are parameters, not data an
// earlier kernel writes, so this may run before dev::start_in_stream_order.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(x), "r"(y)
      : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x, int y) {
  tma_load(dev::smem_addr(dst), map, dev::smem_addr(bar), x, y);
}
// The same box lands at the same offset in every CTA of `mask`, and completes on each one's barrier.
__device__ __forceinline__ void tma_load_multicast(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int x,
                                                   int y, std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%4, "
      "%5}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "h"(mask), "r"(x), "r"(y)
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x, int y,
                                                   std::uint16_t mask) {
  tma_load_multicast(dev::smem_addr(dst), map, dev::smem_addr(bar), x, y, mask);
}
// The same for 3-D tensor maps (x, y inside a matrix, z the batch item or group).
__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int x, int y,
                                            int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(x), "r"(y), "r"(z)
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast_3d(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int x,
                                                      int y, int z, std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%4, "
      "%5, %6}], [%2], %3;\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "h"(mask), "r"(x), "r"(y), "r"(z)
      : "memory");
}
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* src, int x, int y, int z) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(dev::smem_addr(src)), "r"(x), "r"(y), "r"(z)
               : "memory");
}
// One box from shared memory to global memory; part of the bulk-async group closed by the next
// tma_store_commit().
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(dev::smem_addr(src)), "r"(x), "r"(y)
               : "memory");
}
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Until at most N of this thread's store groups are still reading shared memory.
template <int N>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
// Dynamic shared memory rounded up to 1024 bytes: where 128-byte-swizzled TMA boxes must start.
__device__ __forceinline__ unsigned char* align1024(unsigned char* p) {
  return reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(p) + 1023) & ~std::uintptr_t(1023));
}

// Shared memory of the pipelined sm_90a kernels, from the first 1024-byte boundary: `stages` A
// tiles, `stages` B tiles, the epilogue's store boxes, then a full and an empty barrier per stage.
// pipeline_smem_bytes sizes it (with the alignment slack); PipelineSmem carves it up.
constexpr std::size_t pipeline_smem_bytes(int stages, int a_bytes, int b_bytes, int epi_bytes) {
  return 1024 + std::size_t(stages) * (a_bytes + b_bytes) + epi_bytes + 2 * std::size_t(stages) * 8;
}
template <class Cfg>
struct PipelineSmem {
  unsigned char* a_tiles;  // stage s at a_tiles + s * A_BYTES
  unsigned char* b_tiles;  // stage s at b_tiles + s * B_BYTES
  unsigned char* epi;      // EPI_BYTES of store boxes
  std::uint64_t* full;     // STAGES barriers: the stage's TMA bytes have landed
  std::uint64_t* empty;    // STAGES barriers: every consumer is done with the stage
  __device__ explicit PipelineSmem(unsigned char* raw)
      : a_tiles(align1024(raw)),
        b_tiles(a_tiles + Cfg::STAGES * Cfg::A_BYTES),
        epi(b_tiles + Cfg::STAGES * Cfg::B_BYTES),
        full(reinterpret_cast<std::uint64_t*>(epi + Cfg::EPI_BYTES)),
        empty(full + Cfg::STAGES) {}
};

// Sets up a pipeline of `stages` slots (thread 0), then synchronises the CTA, or the whole cluster,
// whose CTAs multicast into each other's stages and release them. "full" completes on the
// producer's expect_tx arrival (plus the TMA bytes); "empty" once each of the `consumers` consumer
// warpgroups of every CTA of the cluster has released the stage (release_stage).
template <int CLUSTER>
__device__ __forceinline__ void init_pipeline(std::uint64_t* full, std::uint64_t* empty, int stages, unsigned consumers) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], consumers * CLUSTER);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if constexpr (CLUSTER > 1) cluster_sync_relaxed(); else __syncthreads();
}

// The producer thread's last waits, in a cluster, in place of a cluster barrier at the kernel's end:
// the CTA must not exit (and free its shared memory) while a peer's consumers may still arrive on
// its `empty` barriers, so the producer, having filled `produced` stages in all, waits until every
// consumer of the cluster has released the last `stages` of them (the earlier ones it waited for
// before refilling them). Every byte multicast into this CTA's stages has landed by then too: its
// own consumers waited for each stage to fill.
__device__ __forceinline__ void producer_tail(std::uint64_t* empty, int stages, int produced) {
  for (int it = produced; it < produced + stages; ++it) mbar_wait(&empty[it % stages], ((it / stages) & 1) ^ 1);
}

// A consumer warpgroup (thread ctid of 128) is done with a stage: it arrives on the stage's `empty`
// barrier in every CTA of the cluster, since each of their producers refills it. Lane r arrives in
// CTA r: one instruction for the warp, not a loop in one thread.
template <int CLUSTER>
__device__ __forceinline__ void release_stage(std::uint64_t* empty, int ctid) {
  if constexpr (CLUSTER == 1) {
    if (ctid == 0) mbar_arrive(empty);
  } else {
    if (ctid < CLUSTER) mbar_arrive_cluster(empty, unsigned(ctid));
  }
}

// Stores by 32-bit shared-memory address (st.shared). A store through a generic pointer into shared
// memory compiles to a generic ST with 64-bit address arithmetic.
__device__ __forceinline__ void st_shared(std::uint32_t addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr), "f"(v) : "memory");
}
__device__ __forceinline__ void st_shared(std::uint32_t addr, float v0, float v1) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(v0), "f"(v1) : "memory");
}
__device__ __forceinline__ void st_shared(std::uint32_t addr, std::uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// Shared-memory matrix descriptor with 128-byte swizzling (the layout TMA's SWIZZLE_128B writes).
//   K-major (A): rows of 64 elements (128 B), 8-row atoms of 1024 B: SBO = 1024, LBO unused.
//   MN-major (B): each k row holds 64 n-elements (128 B); 8 k-rows form a 1024-B atom (SBO = 1024 B,
//   the step to the next 8 k); the next 64 n-columns are another TMA box, LBO bytes further.
__device__ __forceinline__ std::uint64_t smem_desc_at(std::uint32_t addr, unsigned lbo_bytes, unsigned sbo_bytes) {
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16) |
         (std::uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32) | (std::uint64_t(1) << 62);
}
__device__ __forceinline__ std::uint64_t smem_desc(const void* p, unsigned lbo_bytes, unsigned sbo_bytes) {
  return smem_desc_at(dev::smem_addr(p), lbo_bytes, sbo_bytes);
}
// The same with 64-byte swizzling (swizzle mode 2, the layout TMA's SWIZZLE_64B writes): an MN-major
// tile of 32 16-bit columns, k rows of 64 bytes, 8 of them a 512-byte atom (SBO = 512).
__device__ __forceinline__ std::uint64_t smem_desc_64b(const void* p, unsigned lbo_bytes, unsigned sbo_bytes) {
  return (smem_desc(p, lbo_bytes, sbo_bytes) & ~(std::uint64_t(3) << 62)) | (std::uint64_t(2) << 62);
}

// The descriptor of the byte `bytes` after the one `desc` describes. The start address field holds
// address / 16 in 14 bits, and every shared-memory address (< 228 KB) fits it, so moving within
// shared memory is an add on the descriptor: cheaper than building a new one per wgmma.
__device__ __forceinline__ std::uint64_t desc_advance(std::uint64_t desc, unsigned bytes) { return desc + (bytes >> 4); }

// Unit `unit` of the schedule -> unit coordinates (a unit is a cluster's tiles: one, or a pair
// side by side in M or in N). Units are visited group_m unit-rows at a time, column by column inside a group,
// so the tiles resident on the GPU at one time share A and B panels in L2.
__device__ __forceinline__ void unit_coords(int unit, int units_m, int units_n, int group_m, int& um, int& un) {
  const int per_group = group_m * units_n;
  const int first = (unit / per_group) * group_m;
  const int rows = min(units_m - first, group_m);
  um = first + (unit % per_group) % rows;
  un = (unit % per_group) / rows;
}

}  // namespace gemmlab::tc::sm90
