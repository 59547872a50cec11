// The skinny kernel fed by the TMA (skinny.hpp, SkinnyConfig::bulk): the same swap-AB mma.sync
// products, fragments, split of k over a cluster and fixed order of sums as skinny.cuh, but W and
// X reach the warps through a pipeline of shared-memory stages that one producer thread fills with
// tensor copies (cp.async.bulk.tensor, one instruction per box of 128-byte rows) instead of each lane
// loading its own 16-byte vectors into registers.
//
// Why: a GEMV-like problem streams W once and is bound by the bytes it keeps in flight to DRAM.
// The register path keeps one k-step per warp in flight, as many as its registers allow (about
// 96 KB an SM); on an H200 that left it well short of cuBLAS, whose TMA pipeline keeps about 200 KB
// in flight (docs/shapes.md, "TMA stages for long decode operands"). Here the stages hold the bytes
// in flight, about 200 KB an SM, and cost no registers. A stage per call costs more to fill and
// drain than the register path's first loads, so it serves long operands (bulk_first in
// skinny.cu).
//
// Levels: a CTA (one an SM) owns 256 rows of W and a range of k-stages; a stage is 128 bytes of k
// (two warp k-steps), 32 KB of W in TMA boxes and one box for X; each of four consumer warps
// multiplies 64 of the rows by mma.sync (at most 16 short-side columns). With 17 to 64 columns a
// CTA owns 128 rows and each of two consumer warpgroups multiplies 64 by wgmma (wgmma_stage); the
// CTAs of a cluster split k as in skinny.cuh and add their sums in rank order through
// distributed shared memory, or (SkinnyConfig::persistent) a grid of a CTA an SM takes even shares
// of every tile's stages and adds the tiles it cuts through the workspace (skinny_bulk_gemm).
// 16-bit operands with at most 64 short-side columns, and FP32 ones multiplied as
// TF32 (m16n8k8, each operand rounded as the register path rounds it) with at most 16: a stage
// holds 128 bytes of each row of W either way, 64 of k or 32.
#pragma once

#include "kernels/library/skinny.cuh"
#include "kernels/tensor/sm90_ptx.cuh"
#include "kernels/tensor/sm90_store_ring.cuh"  // swizzle128
#include "kernels/tensor/wgmma_ops.cuh"

namespace gemmlab::detail::skinny {

// One stage in shared memory: 256 rows of W (128 for wgmma) by 128 bytes of k (64 of k for 16-bit elements, 32 for
// FP32), in TMA boxes of 128-byte rows swizzled by the TMA (K-major W: a row of W per box row, four
// boxes of 64 rows; big-major W: a k per box row, each box 128 bytes of W rows, four boxes of 64
// rows of 16-bit elements or eight of 32 FP32 ones), then X's box (8 MT rows by the same k). The
// swizzle (16-byte chunk c of box row r at chunk c ^ (r % 8)) spreads the lanes' reads over the
// banks. Each mma.sync consumer warp multiplies 16 NT = 64 rows of W (at most 16 short-side
// columns). The wgmma form (kWg: 32 or 64 columns, a prefill chunk or a small batch) has a tile of
// 128 rows, a box of 64 for each of its two consumer warpgroups, a warp's share 16 of them: half
// the tile of the mma.sync form, so twice the CTAs over the same W, which is what an SM's measured
// rate there needs to draw the GPU's bandwidth (docs/shapes.md, "wgmma for 17 to 64 columns").
template <class E, int MT, bool kWK, bool kWg = false>
struct BulkLayout {
  static_assert(kWg == (MT >= 4), "mma.sync for 8 or 16 short-side columns, wgmma for 32 or 64");
  static constexpr int kConsumers = kWg ? 8 : 4;  // consumer warps; one more produces
  static constexpr int kThreads = 32 * (kConsumers + 1);
  static constexpr int NT = kWg ? 1 : 4;          // a warp's n16 tiles of W rows
  static constexpr int kWarpRows = 16 * NT;
  static constexpr int kTile = kWg ? 128 : 256;       // W rows of a CTA
  static constexpr int kBK = 128 / int(sizeof(E));    // k of a stage: two warp k-steps
  static constexpr int kBoxRows = kWK ? 64 : kBK;     // a W box's rows (K-major: W rows; big-major: k)
  static constexpr int kBoxW = kWK ? 64 : 128 / int(sizeof(E));  // the W rows a box holds
  static constexpr int kBoxes = kTile / kBoxW;
  static constexpr int kBoxBytes = kBoxRows * 128;
  static constexpr int kWBytes = kBoxes * kBoxBytes;
  static constexpr int kXRows = 8 * MT;
  static constexpr int kXBytes = kXRows * 128;
  static constexpr int kStageBytes = kWBytes + kXBytes;  // a multiple of 1024, the swizzle's alignment
  static constexpr int kStages = (232448 - 1024 - 256) / kStageBytes < 8 ? (232448 - 1024 - 256) / kStageBytes : 8;
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + 2 * kStages * 8;  // 1024: alignment slack
  static constexpr int kRegs = NT * MT * 4;
  static_assert(kWBytes == 128 * kTile && kStageBytes % 1024 == 0, "a stage is 128 bytes of each W row and X's box");
  static_assert(kStages >= 3, "a pipeline of at least three stages");
  static_assert(kConsumers * kRegs * 32 * 4 <= kStages * kStageBytes, "the sums reuse the stages' memory");
};

// Byte `b` of row `r` of a 128-byte-swizzled box at `box` (the layout the TMA epilogue writes).
__device__ __forceinline__ std::uint32_t swizzled(std::uint32_t box, int r, int b) {
  return box + std::uint32_t(tc::sm90::swizzle128(r, b));
}

template <int N>
__device__ __forceinline__ void lds(std::uint32_t* words, std::uint32_t at) {
  if constexpr (N == 4) {
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]), "=r"(words[3])
                 : "r"(at));
  } else if constexpr (N == 2) {
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];\n" : "=r"(words[0]), "=r"(words[1]) : "r"(at));
  } else {
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(words[0]) : "r"(at));
  }
}

// Where a lane's W words lie in a stage: K-major, rows off + 16 q + g (+ 8) of box `box`;
// big-major, bytes `byte` of each k row of box `box` (its 2 NT rows of W).
struct BulkLane {
  std::uint32_t box;
  int off, byte;
};
template <class E, class L, bool kWK>
__device__ __forceinline__ BulkLane bulk_lane(int warp, int g) {
  const int rows = warp * L::kWarpRows;  // the warp's first row in the tile
  if constexpr (kWK) return {std::uint32_t(rows / L::kBoxW * L::kBoxBytes), rows % L::kBoxW, 0};
  const int r = rows + 2 * (16 / L::kConsumers) * g;  // the lane's first row (2 NT of them)
  return {std::uint32_t(r / L::kBoxW * L::kBoxBytes), 0, r % L::kBoxW * int(sizeof(E))};
}

// The operands of the warp's k-step `st` (0 or 1) of the stage at `w_at` (W) and `x_at` (X's box):
// the words of the fragments skinny.cuh's load_step loads from global memory, as mma_step
// multiplies them. A step moves 64 bytes of each W row for both widths, so the byte offsets of the
// K-major reads are the same for both. The TMA filled whatever lies past k, past W's rows or past
// X's rows with zeros.
template <class E, int MT, int NT, bool kWK>
__device__ __forceinline__ void read_step(Step<E, MT, NT, kWK>& s, std::uint32_t w_at, const BulkLane& l,
                                          std::uint32_t x_at, int st, int g, int t) {
  using S = Step<E, MT, NT, kWK>;
  if constexpr (kWK) {
    const int b = 64 * st + 16 * t;  // lane t's 16 bytes of k
#pragma unroll
    for (int q = 0; q < NT; ++q)
#pragma unroll
      for (int r = 0; r < 2; ++r) lds<4>(s.w[q][r].v, swizzled(w_at + l.box, l.off + 16 * q + g + 8 * r, b));
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) lds<4>(s.x[0][mt].v, swizzled(x_at, mt * 8 + g, b));
  } else {
    // Half h's k rows, as load_step's: 16-bit, 2t + (16h + {0, 1, 8, 9}); FP32, t + (8h + {0, 4}).
    constexpr int kHalfK = 8 * kPerWord<E>;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int j = 0; j < S::kRows; ++j) {
        const int kr = kStepK<E> * st + kHalfK * h + kPerWord<E> * t + (kPerWord<E> == 2 ? (j & 1) + 8 * (j >> 1) : 4 * j);
        if constexpr (S::kRowWords == 8) {  // FP32: 8 rows of W, two 16-byte chunks, each swizzled
          lds<4>(s.w[h][j].v, swizzled(w_at + l.box, kr, l.byte));
          lds<4>(s.w[h][j].v + 4, swizzled(w_at + l.box, kr, l.byte + 16));
        } else {
          lds<S::kRowWords>(s.w[h][j].v, swizzled(w_at + l.box, kr, l.byte));
        }
      }
      // X's k slots t and t + 4 of the half's mma (pairs for 16-bit): 16 bytes apart for both widths.
      const int b = int(sizeof(E)) * (kStepK<E> * st + kHalfK * h + kPerWord<E> * t);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        lds<1>(&s.x[h][mt].v[0], swizzled(x_at, mt * 8 + g, b));
        lds<1>(&s.x[h][mt].v[1], swizzled(x_at, mt * 8 + g, b + 16));
      }
    }
  }
}

// The wgmma form of a stage's products (kWg, 16-bit operands, 32 or 64 short-side columns; sm_90a):
// consumer warpgroup `wg` multiplies the stage's box `wg` (64 rows of W) as wgmma's A (a K-major
// box as it is, a big-major one transposed by the instruction, as the tile kernel reads an M-major
// A) by X's box as B (K-major, its 8 MT rows wgmma's N), four k16 steps a stage. The mma.sync
// form's fragments come from shared memory through the warps' registers, and its products bound
// an SM at 64 columns (docs/shapes.md, "The TMA-fed form for TF32, and for 17 to 64 columns");
// wgmma reads both operands from shared memory. Its accumulators have the K-major mma.sync
// fragments' layout (row g + 8 (e / 2), column 2 t + e % 2 of each 16 x 8 piece), so the sums are
// stashed and stored as those.
template <class T, int MT, bool kWK>
__device__ __forceinline__ void wgmma_stage(float (&acc)[MT][4], std::uint32_t w_at, std::uint32_t x_at, int wg) {
  namespace tc = gemmlab::tc::sm90;
  using L = BulkLayout<Elem<T>, MT, kWK, true>;
  constexpr int kTransA = kWK ? 0 : 1;
  // K-major boxes: a k16 step is 32 bytes along each 128-byte row; big-major: 16 rows of k.
  constexpr unsigned kAStep = kWK ? 32 : 16 * 128;
  const std::uint32_t box = w_at + std::uint32_t(wg * L::kBoxBytes);
  const std::uint64_t dx = tc::smem_desc_at(x_at, 16, 1024);
  float(&d)[4 * MT] = reinterpret_cast<float(&)[4 * MT]>(acc);
#pragma unroll
  for (int kk = 0; kk < L::kBK / 16; ++kk) {
    const std::uint64_t da = tc::smem_desc_at(box + kk * kAStep, kWK ? 16 : unsigned(L::kBoxBytes), 1024);
    const std::uint64_t db = tc::desc_advance(dx, 32 * kk);
    if constexpr (MT == 8) {
      if constexpr (std::is_same_v<T, __nv_bfloat16>) tc::wgmma_m64n64k16_bf16<kTransA, 0>(d, da, db, 1);
      else tc::wgmma_m64n64k16_f16<kTransA, 0>(d, da, db, 1);
    } else {
      if constexpr (std::is_same_v<T, __nv_bfloat16>) tc::wgmma_m64n32k16_bf16<kTransA, 0>(d, da, db, 1);
      else tc::wgmma_m64n32k16_f16<kTransA, 0>(d, da, db, 1);
    }
  }
}

// The even share of a persistent grid (Args::units over `ctas` CTAs, in order): where CTA c's share
// begins, and the CTA whose share holds unit u.
struct Share {
  int each, more;  // every CTA takes `each` units, the first `more` one more
  __device__ Share(int units, int ctas) : each(units / ctas), more(units % ctas) {}
  __device__ int begin(int c) const { return c * each + min(c, more); }
  __device__ int owner(int u) const {
    return u < more * (each + 1) ? u / (each + 1) : more + (u - more * (each + 1)) / each;
  }
};

// W's tensor map: 3-D (inner, outer, batch item), boxes of 128-byte rows (K-major: kBK of k by 64
// rows; big-major: 128 bytes of rows by kBK of k); X's: (k, small, item), boxes of kBK of k by
// 8 MT rows; both 128-byte swizzled. kWg: the stage's products by wgmma (wgmma_stage), else by
// mma.sync. Two schedules:
// - a CTA a tile (Args::units 0): CTA x multiplies tile x / splits, the CTAs of a cluster split
//   its stages (Args::steps_each and steps_more count them per CTA) and add their sums in rank
//   order through distributed shared memory;
// - persistent (SkinnyConfig::persistent): the grid's CTAs take even shares of all the (tile,
//   stage) units in order, so a long W keeps every SM streaming whatever its tile count. A tile
//   whose stages fall to two or more CTAs is cut: each stores its sums to its slot in the
//   workspace and counts itself in; the CTA that completes the count adds the slots in the order
//   of the CTAs (whichever finished last) and stores D. No CTA waits for another.
template <class T, class TD, int MT, bool kWK, bool kWg = false>
__global__ void __launch_bounds__(BulkLayout<Elem<T>, MT, kWK, kWg>::kThreads, 1)
    skinny_bulk_gemm(const __grid_constant__ CUtensorMap w_map, const __grid_constant__ CUtensorMap x_map, const Args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  namespace tc = gemmlab::tc::sm90;
  using E = Elem<T>;
  using L = BulkLayout<E, MT, kWK, kWg>;
  constexpr int NT = L::NT, kRegs = L::kRegs, kStages = L::kStages, kConsumers = L::kConsumers;
  static_assert(!kWg || sizeof(E) == 2, "wgmma: 16-bit operands");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  unsigned char* smem = tc::align1024(smem_raw);
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + kStages * L::kStageBytes);
  std::uint64_t* empty = full + kStages;
  const std::uint32_t base = dev::smem_addr(smem);
  if (threadIdx.x == 0) {
    tc::prefetch_tensormap(&w_map), tc::prefetch_tensormap(&x_map);
    for (int s = 0; s < kStages; ++s) tc::mbar_init(&full[s], 1), tc::mbar_init(&empty[s], kConsumers);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  dev::start_in_stream_order();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  const epi::Scalars sc = epi::scalars(p.epi);
  // A tile's sums, as the warps stash them, reuse the stages' memory once every stage is consumed.
  float* red = reinterpret_cast<float*>(smem);
  constexpr int kValues = kRegs * 32, kAll = kConsumers * kValues;
  std::uint32_t n = 0;  // stages used so far, across tiles: slot n % kStages, use n / kStages

  // Stages [first, first + count) of the tile of W rows from tile0 in batch item `item`, through
  // the pipeline; the warps' sums then lie in `red`.
  auto multiply = [&](std::int64_t item, std::int64_t tile0, std::int64_t first, std::int64_t count) {
    float acc[NT][MT][4] = {};
    if (warp == kConsumers) {
      // The producer: one thread, kBoxes + 1 boxes a stage.
      if (lane == 0) {
        const int wz = p.stride_w == 0 ? 0 : int(item), xz = p.stride_x == 0 ? 0 : int(item);
        for (std::int64_t i = 0; i < count; ++i, ++n) {
          const int slot = int(n % kStages);
          tc::mbar_wait(dev::smem_addr(&empty[slot]), ((n / kStages) & 1) ^ 1);
          const int k0 = int((first + i) * L::kBK);
          const std::uint32_t bar = dev::smem_addr(&full[slot]);
          const std::uint32_t at = base + std::uint32_t(slot * L::kStageBytes);
          tc::mbar_expect_tx(bar, unsigned(L::kStageBytes));
#pragma unroll
          for (int w = 0; w < L::kBoxes; ++w) {
            const int rows = int(tile0) + w * L::kBoxW;
            if (kWK)
              tc::tma_load_3d(at + std::uint32_t(w * L::kBoxBytes), &w_map, bar, k0, rows, wz);
            else
              tc::tma_load_3d(at + std::uint32_t(w * L::kBoxBytes), &w_map, bar, rows, k0, wz);
          }
          tc::tma_load_3d(at + std::uint32_t(L::kWBytes), &x_map, bar, k0, 0, xz);
        }
      } else {
        n += std::uint32_t(count);
      }
    } else if constexpr (kWg) {
      // Stage i's products are issued, then those of stage i - 1 waited for and its slot released.
      int prev = -1;
      for (std::int64_t i = 0; i < count; ++i, ++n) {
        const int slot = int(n % kStages);
        tc::mbar_wait(dev::smem_addr(&full[slot]), (n / kStages) & 1);
        const std::uint32_t at = base + std::uint32_t(slot * L::kStageBytes);
        tc::wgmma_fence();
        wgmma_stage<T, MT, kWK>(acc[0], at, at + std::uint32_t(L::kWBytes), warp / 4);
        tc::wgmma_commit();
        tc::wgmma_wait<1>();
        if (prev >= 0 && lane == 0) tc::mbar_arrive(&empty[prev]);
        prev = slot;
      }
      tc::wgmma_wait<0>();
      if (prev >= 0 && lane == 0) tc::mbar_arrive(&empty[prev]);
    } else {
      const BulkLane l = bulk_lane<E, L, kWK>(warp, g);
      for (std::int64_t i = 0; i < count; ++i, ++n) {
        const int slot = int(n % kStages);
        tc::mbar_wait(dev::smem_addr(&full[slot]), (n / kStages) & 1);
        const std::uint32_t at = base + std::uint32_t(slot * L::kStageBytes);
#pragma unroll
        for (int st = 0; st < 2; ++st) {
          Step<E, MT, NT, kWK> cur;
          read_step(cur, at, l, at + std::uint32_t(L::kWBytes), st, g, t);
          mma_step<T>(acc, cur);
        }
        __syncwarp();
        if (lane == 0) tc::mbar_arrive(&empty[slot]);
      }
    }
    // Every stage is consumed, so every copy has landed: the sums may overwrite the stages.
    __syncthreads();
    if (warp < kConsumers) stash_sums(red + warp * kValues, acc, lane);
    __syncthreads();
  };
  // Value v of a tile's sums (the tile of W rows from tile0), added up: the epilogue and the store.
  // Value v is warp v / kValues's, whose rows start kWarpRows rows apart (wgmma: warp w % 4 of
  // warpgroup w / 4, 16 (w % 4) rows into the warpgroup's 64, in the K-major fragments' rows).
  auto store = [&](std::int64_t item, std::int64_t tile0, int v, float sum) {
    const int w = v / kValues;
    if constexpr (kWg) store_sum<TD, MT, NT, true>(p, sc, item, tile0 + 64 * (w / 4) + 16 * (w % 4), v % kValues, sum);
    else store_sum<TD, MT, NT, kWK>(p, sc, item, tile0 + w * L::kWarpRows, v % kValues, sum);
  };

  if (p.units == 0) {
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = int(cluster.block_rank());
    const std::int64_t tile0 = std::int64_t(blockIdx.x / unsigned(p.splits)) * L::kTile;
    const std::int64_t first = rank * p.steps_each + min(std::int64_t(rank), p.steps_more);
    const std::int64_t count = p.steps_each + (rank < p.steps_more ? 1 : 0);
    for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
      multiply(item, tile0, first, count);
      cluster.sync();
      const int per = (kAll + p.splits - 1) / p.splits;
      const int v_end = min(kAll, (rank + 1) * per);
      for (int v = rank * per + int(threadIdx.x); v < v_end; v += L::kThreads) {
        float sum = 0.0f;
        for (int other = 0; other < p.splits; ++other) sum += cluster.map_shared_rank(red, other)[v];
        store(item, tile0, v, sum);
      }
      tc::fence_proxy_async();  // the TMA's writes to the stages come after the threads' reads
      cluster.sync();           // the other CTAs have read this one's sums, and the stages are free again
    }
    return;
  }

  const Share share(p.units, int(gridDim.x));
  const int cta = int(blockIdx.x), begin = share.begin(cta), end = share.begin(cta + 1);
  constexpr int kQuads = kAll / 4;  // a tile's sums as float4s
  const float4* red4 = reinterpret_cast<const float4*>(red);
  for (int u = begin; u < end;) {
    const int tile = u / p.stages, first = u - tile * p.stages, count = min(p.stages - first, end - u);
    const std::int64_t tile0 = std::int64_t(tile) * L::kTile;
    multiply(0, tile0, first, count);
    if (count == p.stages) {
      for (int v = int(threadIdx.x); v < kAll; v += L::kThreads) store(0, tile0, v, red[v]);
    } else {
      // A cut tile: this CTA's sums go to its slot (0 for the first tile of its share, 1 for the
      // last), then the CTA whose count completes the tile's adds every slot in CTA order.
      float4* slots = reinterpret_cast<float4*>(p.partials);
      float4* part = slots + (std::int64_t(cta) * 2 + (u == begin ? 0 : 1)) * kQuads;
      for (int q = int(threadIdx.x); q < kQuads; q += L::kThreads) part[q] = red4[q];
      __threadfence();
      __syncthreads();
      // The tile's CTAs: lo (whose share holds its first stage; no other cut tile has the same
      // lo, so its counter is the tile's) to hi. Only lo's share can begin in an earlier tile,
      // which makes this one its last (slot 1); the others' begin here (slot 0).
      const int lo = share.owner(tile * p.stages), hi = share.owner(tile * p.stages + p.stages - 1);
      int completes = 0;
      if (threadIdx.x == 0) {
        completes = atomicAdd(&p.flags[lo], 1u) == unsigned(hi - lo);
        if (completes) p.flags[lo] = 0;  // every CTA of the tile has counted: zero for the next launch
      }
      if (__syncthreads_or(completes)) {
        __threadfence();
        const int lo_slot = share.begin(lo) / p.stages == tile ? 0 : 1;
        for (int q = int(threadIdx.x); q < kQuads; q += L::kThreads) {
          float4 sum = __ldcg(slots + (std::int64_t(lo) * 2 + lo_slot) * kQuads + q);
#pragma unroll 4
          for (int c = lo + 1; c <= hi; ++c) {
            const float4 x = __ldcg(slots + std::int64_t(c) * 2 * kQuads + q);
            sum.x += x.x, sum.y += x.y, sum.z += x.z, sum.w += x.w;
          }
          store(0, tile0, 4 * q, sum.x), store(0, tile0, 4 * q + 1, sum.y);
          store(0, tile0, 4 * q + 2, sum.z), store(0, tile0, 4 * q + 3, sum.w);
        }
      }
    }
    // `red` is read before the next tile's copies land in the stages (the TMA's proxy after the
    // threads' own).
    tc::fence_proxy_async();
    __syncthreads();
    u += count;
  }
#else
  __trap();  // skinny_reject refuses GPUs before sm_90
#endif
}

using BulkKernel = void (*)(CUtensorMap, CUtensorMap, Args);

// The wgmma instantiation (sm_90a) for 16-bit operands and mt of 4 or 8.
template <class T, class TD>
BulkKernel bulk_wgmma_kernel_for(int mt, bool w_kmajor) {
  if (mt == 4) return w_kmajor ? skinny_bulk_gemm<T, TD, 4, true, true> : skinny_bulk_gemm<T, TD, 4, false, true>;
  if (mt == 8) return w_kmajor ? skinny_bulk_gemm<T, TD, 8, true, true> : skinny_bulk_gemm<T, TD, 8, false, true>;
  return nullptr;
}

// The mma.sync instantiation for mt groups of 8 short-side columns (1 or 2) and W's layout.
template <class T, class TD>
BulkKernel bulk_kernel_for(int mt, bool w_kmajor) {
  if (mt == 1) return w_kmajor ? skinny_bulk_gemm<T, TD, 1, true> : skinny_bulk_gemm<T, TD, 1, false>;
  if (mt == 2) return w_kmajor ? skinny_bulk_gemm<T, TD, 2, true> : skinny_bulk_gemm<T, TD, 2, false>;
  return nullptr;
}

}  // namespace gemmlab::detail::skinny
