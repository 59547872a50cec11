// The Hopper (sm_90a) GEMM template behind tensor-core ladder steps 3 to 7.
//
// Levels: a CTA computes a BM x BN tile of C (128 x 256 by default; 256 x 128 and 128 x 128 in
// step 7); each of its two *consumer* warpgroups (4 warps, 128 threads) owns BM / 2 rows and
// issues wgmma.m64nBNk16 for each 64 of them, which reads A and B straight from shared memory and
// accumulates 64 x BN FP32 values in registers (128 per thread whatever the tile). Tiles reach
// shared memory by TMA (cp.async.bulk.tensor): one thread describes a whole 128 x 64 or 64 x 64
// box, the copy engine moves it, swizzled for conflict-free reads, and counts the bytes on an
// mbarrier.
//
// Pipeline: STAGES slots, each with a "full" mbarrier (TMA bytes landed) and an "empty" one
// (consumers finished reading). The producer waits for empty, arms full with the byte count and
// issues the copies; consumers wait for full, issue their wgmmas (BK = 64 = 4 x k16), keep one
// batch in flight and release the slot of the batch before.
//
// The ladder's steps are compile-time features of this one kernel (Cfg):
//   step 3  kWarpSpecialized = false: two warpgroups, both consume; thread 0 also produces.
//   step 4  kWarpSpecialized = true: a third warpgroup only produces (one thread issues TMA); with
//           setmaxnreg it gives registers back (40) and the consumers take them (232).
//   step 5  kPersistent: one CTA per SM loops over tiles in a grouped order (L2 reuse); the producer
//           runs into the next tile while consumers store the last one.
//   step 6  clusters of 2 CTAs on neighbouring tiles that share their larger operand tile: each
//           loads half of it and multicasts it to both (half that operand's traffic from L2).
//           128 x 256 tiles pair along M (kClusterM = 2, sharing B), 256 x 128 tiles along N
//           (kClusterN = 2, sharing A). (2 x 2 clusters, sharing both, were measured 20% slower at
//           4096^3: only 30 of them fit on 132 SMs; docs/kernels/tensor-ladder.md.)
//   step 7  kTmaEpilogue: C leaves through shared memory and TMA stores (when beta == 0). The last
//           DEFER_BOXES boxes of a tile wait in registers and are stored during the next tile's
//           main loop, so that the tensor cores wait for only the rest (half with FP32 C, none with
//           16-bit C): all tiles finish together and their stores would otherwise queue at once.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/tensor/sm90_ptx.cuh"
#include "kernels/tensor/sm90_schedule.cuh"
#include "kernels/tensor/sm90_store_ring.cuh"
#include "kernels/tensor/tc_types.cuh"
#include "kernels/tensor/wgmma_ops.cuh"

namespace gemmlab::tc::sm90 {

// ---- configuration ---------------------------------------------------------------------------

template <Precision P, class OutT, int BM_, int BN_, int STAGES_, bool WS, bool PERSISTENT, int CLUSTER_M, int CLUSTER_N,
          bool TMA_EPI>
struct HopperConfig {
  using T = operand_t<P>;
  using Out = OutT;
  static constexpr Precision kPrecision = P;
  static constexpr int BM = BM_, BN = BN_, BK = 64, STAGES = STAGES_;
  static constexpr bool kWarpSpecialized = WS, kPersistent = PERSISTENT, kTmaEpilogue = TMA_EPI;
  // Cluster of kClusterM x kClusterN CTAs (1 x 1, 2 x 1 or 1 x 2); CTA rank r holds its tile r.
  static constexpr int kClusterM = CLUSTER_M, kClusterN = CLUSTER_N, kCluster = CLUSTER_M * CLUSTER_N;
  // The last step may finish with a stream-K tail; not with clusters and 16-bit C, where the extra
  // registers of the fix-up make ptxas spill (that configuration stays data-parallel).
  static constexpr bool kStreamK = PERSISTENT && TMA_EPI && !(kCluster > 1 && sizeof(OutT) == 2);
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = (kConsumers + (WS ? 1 : 0)) * 128;
  static constexpr int kConsumerRows = BM / kConsumers;  // rows of C per consumer warpgroup
  static constexpr int kRowBlocks = kConsumerRows / 64;  // its wgmma.m64 row blocks
  static constexpr int kBlockAccum = BN / 2;             // FP32 accumulators per thread and row block
  static constexpr int kAccum = kRowBlocks * kBlockAccum;
  static constexpr int A_BOX_ROWS = 128;  // A arrives in boxes of 128 rows x BK
  static constexpr int A_BOX_BYTES = A_BOX_ROWS * BK * int(sizeof(T));
  static constexpr int A_BYTES = BM * BK * int(sizeof(T));   // 16 or 32 KB
  static constexpr int B_BYTES = BK * BN * int(sizeof(T));   // 16 or 32 KB
  static constexpr int B_BOX_BYTES = BK * 64 * int(sizeof(T));  // one 64-column TMA box of B
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;  // the TMA bytes a full stage waits for
  // The TMA epilogue stores a warpgroup's tile as EPI_BOXES boxes of 64 rows x 128 bytes (BOX_COLS
  // elements), one box per pass, through a ring of two boxes (sm90_store_ring.cuh).
  static constexpr int BOX_COLS = 128 / int(sizeof(OutT));
  static constexpr int EPI_BOXES = kRowBlocks * BN / BOX_COLS;
  using Ring = StoreRing<2, 1, EPI_BOXES>;
  // The deferred epilogue: the last DEFER_BOXES boxes of a tile wait in registers (16 per box and
  // thread) and leave during the next tile's main loop, one every few k-tiles, while its wgmmas run.
  // Four boxes (64 registers) are half the tile with FP32 C and all of it with 16-bit C; more would
  // not fit beside the 128 accumulators. 256 x 128 tiles with FP32 C keep three: four spill there.
  // 128 x 128 tiles keep none: they serve shapes with one or two tiles per CTA, where there is
  // little to hide, and measured 2 to 5% slower with it (1000^3 to 2048^3).
  static constexpr int DEFER_MAX = (BM == 128 && BN == 128) ? 0 : (BM == 256 && sizeof(OutT) == 4) ? 3 : 4;
  static constexpr int DEFER_BOXES = TMA_EPI ? (EPI_BOXES < DEFER_MAX ? EPI_BOXES : DEFER_MAX) : 0;
  static constexpr int EPI_BYTES = TMA_EPI ? kConsumers * Ring::kBytes : 0;
  static constexpr std::size_t kSmemBytes = pipeline_smem_bytes(STAGES, A_BYTES, B_BYTES, EPI_BYTES);
  static_assert(BN == 128 || BN == 256, "wgmma wrappers exist for n = 128 and 256");
  static_assert(BM == 128 || (BM == 256 && BN == 128), "128 accumulators per thread at most: 128 x 256, 256 x 128 or 128 x 128");
  static_assert(kCluster == 1 || (kCluster == 2 && (CLUSTER_M == 2 ? BN > BM : BM > BN)),
                "clusters of 2 share the larger operand tile: 2 x 1 with 128 x 256 tiles, 1 x 2 with 256 x 128");
  static_assert(P == Precision::bf16 || P == Precision::fp16, "the sm_90a kernels take 16-bit operands");
};

struct HopperArgs {
  int M, N, K;
  float alpha, beta;
  void* C;           // row-major M x N of Cfg::Out (the direct epilogue writes through it)
  int group_m;       // tile rows per raster group (persistent order)
  int tma_store;     // C's rows are 16-byte aligned: the TMA epilogue may be used
  int pair_stores;   // N even: two adjacent outputs are stored as one 8- (or 4-) byte access
  StreamK sk;        // the stream-K tail (sk.tail_units == 0: whole units only)
};

// One wgmma.m64nBNk16 into the accumulators of one 64-row block.
template <class Cfg>
__device__ __forceinline__ void wgmma_tile(float (&d)[Cfg::kBlockAccum], std::uint64_t da, std::uint64_t db, int scale_d) {
  if constexpr (Cfg::kPrecision == Precision::bf16) {
    if constexpr (Cfg::BN == 256) wgmma_m64n256k16_bf16(d, da, db, scale_d);
    else wgmma_m64n128k16_bf16(d, da, db, scale_d);
  } else {
    if constexpr (Cfg::BN == 256) wgmma_m64n256k16_f16(d, da, db, scale_d);
    else wgmma_m64n128k16_f16(d, da, db, scale_d);
  }
}

// Two adjacent outputs (columns c, c+1 of row r) from the accumulators, with alpha and beta.
template <class OutT>
__device__ __forceinline__ void store_pair(OutT* out, float v0, float v1, float alpha, float beta) {
  if constexpr (sizeof(OutT) == 4) {
    float2 v = make_float2(alpha * v0, alpha * v1);
    if (beta != 0.0f) {
      const float2 o = *reinterpret_cast<const float2*>(out);
      v.x += beta * o.x, v.y += beta * o.y;
    }
    *reinterpret_cast<float2*>(out) = v;
  } else {
    store_output(out, v0, alpha, beta);
    store_output(out + 1, v1, alpha, beta);
  }
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    hopper_gemm(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
                const __grid_constant__ CUtensorMap tm_c, const HopperArgs args) {
  using T = typename Cfg::T;
  using OutT = typename Cfg::Out;
  constexpr int S = Cfg::STAGES, BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  extern __shared__ unsigned char smem_raw[];
  const auto [a_tiles, b_tiles, epi, full, empty] = PipelineSmem<Cfg>(smem_raw);

  const int wg = threadIdx.x / 128;  // warpgroup
  const unsigned rank = Cfg::kCluster > 1 ? cluster_rank() : 0;
  init_pipeline<Cfg::kCluster>(full, empty, S, Cfg::kConsumers);

  const int tiles_m = (args.M + BM - 1) / BM, tiles_n = (args.N + BN - 1) / BN;
  // A unit is the cluster's tiles: kClusterM x kClusterN of them, this CTA's at (rank_m, rank_n).
  const int units_m = (tiles_m + Cfg::kClusterM - 1) / Cfg::kClusterM;
  const int units_n = (tiles_n + Cfg::kClusterN - 1) / Cfg::kClusterN;
  const int units = units_m * units_n;
  const int rank_m = Cfg::kClusterM > 1 ? int(rank) : 0, rank_n = Cfg::kClusterN > 1 ? int(rank) : 0;
  const int k_tiles = (args.K + BK - 1) / BK;
  const int cluster_id = blockIdx.x / Cfg::kCluster, clusters = gridDim.x / Cfg::kCluster;
  const int first_unit = cluster_id, unit_step = Cfg::kPersistent ? clusters : units;
  // Persistent grids walk whole units round-robin, then their share of the stream-K tail.
  const Schedule sched(units, k_tiles, cluster_id, clusters, args.sk.tail_units, args.sk.owner_k);
  const int group_m = args.group_m > 0 ? args.group_m : units_m;
  auto tile_of = [&](int u, int& tm, int& tn) {
    int um, un;
    unit_coords(u, units_m, units_n, group_m, um, un);
    tm = um * Cfg::kClusterM + rank_m, tn = un * Cfg::kClusterN + rank_n;
  };

  // ---- producer: one thread walks the same sequence of (tile, k-tile) as the consumers ---------
  auto produce = [&](int it, int tm, int tn, int kt) {
    const int s = it % S;
    // 32-bit shared addresses (the producer warpgroup keeps 40 registers)
    const std::uint32_t full_s = dev::smem_addr(full + s), empty_s = dev::smem_addr(empty + s);
    const std::uint32_t a = dev::smem_addr(a_tiles) + s * Cfg::A_BYTES, b = dev::smem_addr(b_tiles) + s * Cfg::B_BYTES;
    mbar_wait(empty_s, ((it / S) & 1) ^ 1);
    mbar_expect_tx(full_s, Cfg::STAGE_BYTES);
    constexpr int a_boxes = BM / Cfg::A_BOX_ROWS, b_boxes = BN / 64;
    // The tile both CTAs of a cluster need (A with pairs along N, B along M): each loads half of
    // its boxes, for both.
    if constexpr (Cfg::kClusterN > 1) {
#pragma unroll
      for (int j = int(rank) * a_boxes / 2; j < (int(rank) + 1) * a_boxes / 2; ++j)
        tma_load_multicast(a + j * Cfg::A_BOX_BYTES, &tm_a, full_s, kt * BK, tm * BM + Cfg::A_BOX_ROWS * j, 0x3);
    } else {
#pragma unroll
      for (int j = 0; j < a_boxes; ++j) tma_load(a + j * Cfg::A_BOX_BYTES, &tm_a, full_s, kt * BK, tm * BM + Cfg::A_BOX_ROWS * j);
    }
    if constexpr (Cfg::kClusterM > 1) {
#pragma unroll
      for (int j = int(rank) * b_boxes / 2; j < (int(rank) + 1) * b_boxes / 2; ++j)
        tma_load_multicast(b + j * Cfg::B_BOX_BYTES, &tm_b, full_s, tn * BN + 64 * j, kt * BK, 0x3);
    } else {
#pragma unroll
      for (int j = 0; j < b_boxes; ++j) tma_load(b + j * Cfg::B_BOX_BYTES, &tm_b, full_s, tn * BN + 64 * j, kt * BK);
    }
  };

  if constexpr (Cfg::kWarpSpecialized) {
    if (wg == 0) {  // producer warpgroup
      setmaxnreg_dec<40>();
      if (threadIdx.x == 0) {
        int it = 0;
        sched.template for_each<Cfg::kStreamK>([&](int u, int kb, int ke) {
          int tm, tn;
          tile_of(u, tm, tn);
          for (int kt = kb; kt < ke; ++kt) produce(it++, tm, tn, kt);
        });
      }
      __syncwarp();  // the cluster barrier is .aligned: the warp must arrive converged
      if constexpr (Cfg::kCluster > 1) cluster_sync();  // peers may still arrive on our barriers
      return;
    }
    setmaxnreg_inc<232>();
  }

  // ---- consumers -------------------------------------------------------------------------------
  const int ci = Cfg::kWarpSpecialized ? wg - 1 : wg;  // consumer index: rows ci*BM/2 .. (ci+1)*BM/2 - 1
  const int ctid = threadIdx.x % 128, warp = ctid / 32, lane = ctid % 32;
  const bool leader = ctid == 0;
  auto release = [&](int s) { release_stage<Cfg::kCluster>(&empty[s], ctid); };

  // Accumulators: row block rb (rows rb*64 .. rb*64+63 of this warpgroup's) at d[rb * kBlockAccum].
  float d[Cfg::kAccum];
  auto block_accum = [&](int rb) -> float(&)[Cfg::kBlockAccum] {
    return *reinterpret_cast<float(*)[Cfg::kBlockAccum]>(d + rb * Cfg::kBlockAccum);
  };
  // ---- the TMA epilogue's pieces. Accumulator group j (4 values) of row block rb covers rows
  // rb*64 + warp*16 + lane/4 (+8) and columns 8j + 2*(lane%4) (+1) of this warpgroup's part of the
  // tile. A box holds kGroupsPerBox groups: 2 x kGroupsPerBox pairs of adjacent outputs per thread.
  constexpr int kGroupsPerBox = Cfg::BOX_COLS / 8, kPairsPerBox = 2 * kGroupsPerBox;
  constexpr int kBoxesPerBlock = BN / Cfg::BOX_COLS;
  // Two adjacent outputs as C stores them: a float2, or two 16-bit values in one word.
  using Pair = std::conditional_t<sizeof(OutT) == 4, float2, std::uint32_t>;
  auto make_pair = [&](float v0, float v1) -> Pair {
    if constexpr (sizeof(OutT) == 4) {
      return make_float2(args.alpha * v0, args.alpha * v1);
    } else {
      OutT pair[2] = {from_float<OutT>(args.alpha * v0), from_float<OutT>(args.alpha * v1)};
      return *reinterpret_cast<const std::uint32_t*>(pair);
    }
  };
  // Pair p of box bx of the tile in d: group q = p / 2, rows r (p even) or r + 8 (p odd).
  auto box_pair = [&](int bx, int p) {
    const float* g = d + (bx / kBoxesPerBlock) * Cfg::kBlockAccum + 4 * ((bx % kBoxesPerBlock) * kGroupsPerBox + p / 2);
    return make_pair(g[2 * (p % 2)], g[2 * (p % 2) + 1]);
  };
  typename Cfg::Ring ring(epi + ci * Cfg::Ring::kBytes, 1 + ci, leader);
  // Box bx of the tile whose warpgroup rows start at C row `row0` and columns at col0: written into
  // the ring's next slot from pairs[], then stored by TMA (the engine clips the matrix edges). Pair p
  // lands at row r = warp*16 + lane/4 (+8 for odd p), bytes of group p / 2 in the 128-B swizzle.
  auto store_box = [&](int bx, int row0, int col0, const Pair (&pairs)[kPairsPerBox]) {
    unsigned char* box = ring.begin_pass(bx);
    const std::uint32_t box_addr = dev::smem_addr(box);
    const int r = warp * 16 + lane / 4, lane_byte = 2 * (lane % 4) * int(sizeof(OutT));
#pragma unroll
    for (int p = 0; p < kPairsPerBox; ++p) {
      const std::uint32_t addr = box_addr + swizzle128(r + 8 * (p % 2), (p / 2) * 8 * int(sizeof(OutT)) + lane_byte);
      if constexpr (sizeof(OutT) == 4) st_shared(addr, pairs[p].x, pairs[p].y);
      else st_shared(addr, pairs[p]);
    }
    ring.end_pass(box, [&](unsigned char* b, int) {
      tma_store(&tm_c, b, col0 + (bx % kBoxesPerBlock) * Cfg::BOX_COLS, row0 + (bx / kBoxesPerBlock) * 64);
    });
  };
  // The deferred boxes of the last tile: held[b] is box EPI_BOXES - DEFER_BOXES + b of the tile at
  // (held_row0, held_col0), waiting to be stored while held_pending.
  constexpr int kDefer = Cfg::DEFER_BOXES > 0 ? Cfg::DEFER_BOXES : 1;
  Pair held[kDefer][kPairsPerBox];
  int held_row0 = 0, held_col0 = 0;
  bool held_pending = false;
  // Deferred box b (a constant wherever this is called: held is indexed by constants only).
  auto store_held = [&](int b) { store_box(Cfg::EPI_BOXES - Cfg::DEFER_BOXES + b, held_row0, held_col0, held[b]); };
  // One box every defer_stride k-tiles from k-tile 1 (a power of two, at most 8, small enough for
  // all of them to leave within K). Measured at 4096^3 (BF16, FP32 C): one box on each of k-tiles
  // 0 to 3 slowed the main loop by about 1600 cycles a tile, most of what the deferral saves
  // (99.5% of cuBLAS); every 4th to 16th k-tile, 100.2 to 100.6%.
  int defer_stride = 8;
  while (defer_stride > 1 && defer_stride * Cfg::DEFER_BOXES > k_tiles) defer_stride /= 2;
  const int defer_phase = defer_stride > 1 ? 1 : 0;

  int it = 0;
  int pending_flag = -1;  // stream-K: a published slot whose flag is not raised yet
  // Without a producer warpgroup, thread 0 keeps the pipeline S - 1 k-tiles ahead of its own reads.
  int produced = 0;
  auto produce_ahead = [&](int upto) {
    if constexpr (!Cfg::kWarpSpecialized) {
      if (threadIdx.x == 0) {
        // Walk the same schedule: produced counts k-tiles across units.
        while (produced < upto) {
          const int unit_index = produced / k_tiles, kt = produced % k_tiles;
          const int u = first_unit + unit_index * unit_step;
          if (u >= units) break;
          int tm, tn;
          tile_of(u, tm, tn);
          produce(produced, tm, tn, kt);
          ++produced;
        }
      }
      __syncwarp();
    }
  };
  produce_ahead(S - 1);

  sched.template for_each<Cfg::kStreamK>([&](int u, int kb, int ke) {
    int tm, tn;
    tile_of(u, tm, tn);
    int prev = -1;
    // One k-tile in two halves: issue its wgmmas, then wait for the batch before (whose stage is
    // released and refilled). A deferred box is written between the two, while two batches run.
    auto issue = [&](int kt) {
      const int s = it % S;
      mbar_wait(&full[s], (it / S) & 1);
      wgmma_fence();
      // This warpgroup's rows of A in stage s, row block rb 64 rows (of 128 bytes) further; B's k16
      // step is 16 rows of 128 bytes.
      const std::uint64_t da = smem_desc(a_tiles + s * Cfg::A_BYTES + ci * Cfg::kConsumerRows * 128, 16, 1024);
      const std::uint64_t db = smem_desc(b_tiles + s * Cfg::B_BYTES, Cfg::B_BOX_BYTES, 1024);
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
#pragma unroll
        for (int rb = 0; rb < Cfg::kRowBlocks; ++rb)
          wgmma_tile<Cfg>(block_accum(rb), desc_advance(da, rb * 64 * 128 + kk * 32), desc_advance(db, kk * 16 * 128),
                          (kt > kb || kk > 0) ? 1 : 0);
      wgmma_commit();
    };
    auto finish = [&] {
      wgmma_wait<1>();  // the batch before this one is done: its slot can be refilled
      if (prev >= 0) release(prev);
      prev = it % S;
      ++it;
      produce_ahead(it - 1 + S);
    };
    int kt = kb;
    // The last tile's deferred boxes: box b during k-tile kb + b * stride + phase (the loops
    // between them are short; the main loop below has no store code in it), or right after the
    // last k-tile when K is shorter. Written out per box, so that held is indexed by constants.
    if constexpr (Cfg::DEFER_BOXES > 0) {
      if (held_pending) {
#pragma unroll
        for (int b = 0; b < Cfg::DEFER_BOXES; ++b) {
          const int at = kb + b * defer_stride + defer_phase;
          for (; kt < at && kt < ke; ++kt) issue(kt), finish();
          if (kt < ke) issue(kt);
          store_held(b);
          if (kt < ke) finish(), ++kt;
        }
        held_pending = false;
      }
    }
    for (; kt < ke; ++kt) issue(kt), finish();
    wgmma_wait<0>();
    if (prev >= 0) release(prev);
    // held is free until this tile's epilogue fills it again: say so, or the compiler keeps its 64
    // registers through the stream-K fix-up and the direct epilogue (and spills there).
#pragma unroll
    for (int b = 0; b < kDefer; ++b)
#pragma unroll
      for (int p = 0; p < kPairsPerBox; ++p) held[b][p] = Pair{};
    // A stream-K item that does not hold k-tile 0 hands its sums to the unit's finisher.
    if constexpr (Cfg::kStreamK) {
      if (!settle_item<Cfg::kCluster>(sched, args.sk, u, kb, ke, d, rank, ci, ctid, pending_flag)) return;
    }

    // ---- epilogue ------------------------------------------------------------------------------
    const int row0 = tm * BM + ci * Cfg::kConsumerRows, col0 = tn * BN;
    if (Cfg::kCluster > 1 && (tm >= tiles_m || tn >= tiles_n)) return;  // the cluster's spare CTA (odd tile count)
    if (Cfg::kTmaEpilogue && args.beta == 0.0f && args.tma_store) {
      // The first boxes now, through the ring (the tensor cores wait meanwhile); the last
      // DEFER_BOXES into registers, for the next tile's main loop (or the end of the kernel).
#pragma unroll
      for (int bx = 0; bx < Cfg::EPI_BOXES - Cfg::DEFER_BOXES; ++bx) {
        Pair pairs[kPairsPerBox];
#pragma unroll
        for (int p = 0; p < kPairsPerBox; ++p) pairs[p] = box_pair(bx, p);
        store_box(bx, row0, col0, pairs);
      }
      if constexpr (Cfg::DEFER_BOXES > 0) {
#pragma unroll
        for (int b = 0; b < Cfg::DEFER_BOXES; ++b)
#pragma unroll
          for (int p = 0; p < kPairsPerBox; ++p) held[b][p] = box_pair(Cfg::EPI_BOXES - Cfg::DEFER_BOXES + b, p);
        held_row0 = row0, held_col0 = col0, held_pending = true;
      }
    } else {
      OutT* C = static_cast<OutT*>(args.C);
#pragma unroll
      for (int grp = 0; grp < Cfg::kAccum / 4; ++grp) {  // accumulator group: row block rb, column group j
        const int rb = grp / (BN / 8), j = grp % (BN / 8);
        const int r = row0 + rb * 64 + warp * 16 + lane / 4, c = col0 + 8 * j + 2 * (lane % 4);
        if (c >= args.N) continue;
        for (int h = 0; h < 2; ++h) {
          const int rr = r + 8 * h;
          if (rr >= args.M) continue;
          OutT* out = C + std::size_t(rr) * args.N + c;
          if (args.pair_stores && c + 1 < args.N) {
            store_pair(out, d[4 * grp + 2 * h], d[4 * grp + 2 * h + 1], args.alpha, args.beta);
          } else {  // odd N: rows start at odd element offsets, store one by one
            store_output(out, d[4 * grp + 2 * h], args.alpha, args.beta);
            if (c + 1 < args.N) store_output(out + 1, d[4 * grp + 2 * h + 1], args.alpha, args.beta);
          }
        }
      }
    }
  });
  if constexpr (Cfg::DEFER_BOXES > 0) {  // the last tile's deferred boxes
    if (held_pending) {
#pragma unroll
      for (int b = 0; b < Cfg::DEFER_BOXES; ++b) store_held(b);
    }
  }
  if constexpr (Cfg::kStreamK) raise_pending(args.sk, pending_flag, ctid);
  if constexpr (Cfg::kTmaEpilogue) ring.drain();
  if constexpr (Cfg::kCluster > 1) cluster_sync();
}

}  // namespace gemmlab::tc::sm90
