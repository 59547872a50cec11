// The Hopper (sm_90a) GEMM template behind tensor-core ladder steps 3 to 7, and the library's
// BF16/FP16 kernel.
//
// Levels: a CTA computes a BM x BN tile of D (128 x 256 by default; 256 x 128 and 128 x 128 in
// step 7; 192 x 96, 128 x 64, 64 x 64 and 64 x 32 in the library); each of its two *consumer*
// warpgroups (4 warps, 128 threads; one where BM is 64, three where it is 192) owns its share of
// the rows and issues wgmma.m64nBNk16 for each 64 of them,
// which reads A and B straight from shared memory and accumulates 64 x BN FP32 values in registers
// (BN / 2 per thread and 64-row block). Tiles reach shared memory by TMA (cp.async.bulk.tensor): one thread describes a
// whole box, the copy engine moves it, swizzled for conflict-free reads, and counts the bytes on an
// mbarrier.
//
// Pipeline: STAGES slots, each with a "full" mbarrier (TMA bytes landed) and an "empty" one
// (consumers finished reading). The producer waits for empty, arms full with the byte count and
// issues the copies; consumers wait for full, issue their wgmmas (BK = 64 = 4 x k16), keep one
// batch in flight and release the slot of the batch before.
//
// The ladder's steps are compile-time features of this one kernel (Sm90Shape, named fields):
//   step 3  warp_specialized = false: two warpgroups, both consume; thread 0 also produces.
//   step 4  warp_specialized: a third warpgroup only produces (one thread issues TMA); with
//           setmaxnreg it gives registers back (40) and the consumers take them (232).
//   step 5  persistent: one CTA per SM loops over tiles in a grouped order (L2 reuse); the producer
//           runs into the next tile while consumers store the last one.
//   step 6  clusters of 2 CTAs on neighbouring tiles that share their larger operand tile: each
//           loads half of it and multicasts it to both (half that operand's traffic from L2).
//           128 x 256 tiles pair along M (cluster_m = 2, sharing B), 256 x 128 and 128 x 64 tiles
//           along N (cluster_n = 2, sharing A). (2 x 2 clusters, sharing both, were measured slower:
//           only 30 of them fit on 132 SMs; docs/kernels/tensor-ladder.md, 7.5.)
//   step 7  tma_epilogue: D leaves through shared memory and TMA stores (when beta == 0). The last
//           DEFER_BOXES boxes of a tile wait in registers and are stored during the next tile's
//           main loop, so that the tensor cores wait for only the rest (half with FP32 D, none with
//           16-bit D): all tiles finish together and their stores would otherwise queue at once.
// What the library adds to step 7 (docs/api.md):
//   layouts   a_k_major / b_k_major: each operand's tiles K-major or MN-major in shared memory.
//             wgmma reads both for 16-bit types (its transpose bits), so every combination of
//             row- and column-major storage and op() runs at the same speed, with no copy.
//   batches   3-D tensor maps (the third coordinate is the batch item; a broadcast operand
//             reads item 0), one launch whatever the batch: the persistent schedule walks the
//             tiles of all items.
//   groups    grouped: group g's rows of A and D are [offsets[g-1], offsets[g]), read on the GPU;
//             each CTA walks the groups' tiles in order with a cursor. A tile that ends past its
//             group's last row stores through registers with a row mask; TMA stores serve whole
//             tiles.
//   epilogue  fused: alpha, beta * C, the bias (per row or column) and the activation in the
//             kernel (kernels/library/epilogue.cuh), before the conversion of D.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/library/epilogue.cuh"
#include "kernels/tensor/sm90_ptx.cuh"
#include "kernels/tensor/sm90_schedule.cuh"
#include "kernels/tensor/sm90_store_ring.cuh"
#include "kernels/tensor/tc_types.cuh"
#include "kernels/tensor/wgmma_ops.cuh"

namespace gemmlab::tc::sm90 {

// ---- configuration ---------------------------------------------------------------------------

// What one instantiation is: its tile, pipeline and the ladder's features, by name.
struct Sm90Shape {
  int bm = 128, bn = 256, stages = 4;
  bool warp_specialized = true;       // step 4
  bool persistent = true;             // step 5
  int cluster_m = 1, cluster_n = 1;   // step 6
  bool tma_epilogue = true;           // step 7
  bool a_k_major = true;              // A's tiles: K-major (A row-major, op none) or M-major
  bool b_k_major = false;             // B's tiles: K-major or N-major (B row-major, op none)
  bool fused = false;                 // bias and activation in the epilogue
  bool grouped = false;               // grouped GEMM: rows of A and D split by device offsets
};

template <Precision P, class OutT, Sm90Shape S>
struct HopperConfig {
  using T = operand_t<P>;
  using Out = OutT;
  static constexpr Precision kPrecision = P;
  static constexpr Sm90Shape kShape = S;
  static constexpr int BM = S.bm, BN = S.bn, BK = 64, STAGES = S.stages;
  static constexpr bool kWarpSpecialized = S.warp_specialized, kPersistent = S.persistent,
                        kTmaEpilogue = S.tma_epilogue, kAKMajor = S.a_k_major, kBKMajor = S.b_k_major,
                        kFused = S.fused, kGrouped = S.grouped;
  // Cluster of kClusterM x kClusterN CTAs (1 x 1, 2 x 1 or 1 x 2); CTA rank r holds its tile r.
  static constexpr int kClusterM = S.cluster_m, kClusterN = S.cluster_n, kCluster = kClusterM * kClusterN;
  // The last step may finish with a stream-K tail; not with clusters and 16-bit D, where the extra
  // registers of the fix-up make ptxas spill (that configuration stays data-parallel), and not in
  // grouped launches, whose tile count only the GPU knows.
  static constexpr bool kStreamK = S.persistent && S.tma_epilogue && !S.grouped && !(kCluster > 1 && sizeof(OutT) == 2);
  // Step 3 (no producer warpgroup: a consumer thread loads each stage only S - 1 k-tiles ahead of
  // its use) reads 2-D tensor maps, as it did before the library; the others read 3-D ones, whose
  // third coordinate is the batch item. Step 3 measured slower with 3-D loads
  // (docs/kernels/tensor-ladder.md, step 3).
  static constexpr bool k2dMaps = !S.warp_specialized;
  // 64-row tiles have one consumer warpgroup (wgmma's M is 64), 192-row ones three (64 rows each);
  // the rest two.
  static constexpr int kConsumers = BM == 64 ? 1 : BM == 192 ? 3 : 2;
  static constexpr int kThreads = (kConsumers + (S.warp_specialized ? 1 : 0)) * 128;
  static constexpr int kConsumerRows = BM / kConsumers;  // rows of D per consumer warpgroup
  static constexpr int kRowBlocks = kConsumerRows / 64;  // its wgmma.m64 row blocks
  static constexpr int kBlockAccum = BN / 2;             // FP32 accumulators per thread and row block
  static constexpr int kAccum = kRowBlocks * kBlockAccum;
  // TMA boxes. K-major tiles are rows of BK elements (128 bytes); A arrives in boxes of 128 rows, B
  // in boxes of 64. MN-major tiles are BK rows of 64 elements (128 bytes) per box. Pairs of 128 x 64
  // tiles sharing A take K-major A in boxes of 64 rows, so that each CTA loads one of the two (the
  // shared memory holds the same bytes either way: a box of 128 rows is two of 64 end to end), and
  // so do 192-row tiles (three boxes).
  static constexpr int A_BOX_ROWS = kAKMajor && (BM / kClusterN) % 128 == 0 ? 128 : 64;  // rows (K-major) or columns (M-major) per box
  static constexpr int A_BOX_BYTES = A_BOX_ROWS * BK * int(sizeof(T));
  static constexpr int A_BYTES = BM * BK * int(sizeof(T));   // 16 or 32 KB
  static constexpr int B_BYTES = BK * BN * int(sizeof(T));   // 4, 8, 16, 24 or 32 KB
  // B's boxes hold 64 columns (N-major) or rows (K-major), or all BN of a narrower tile, or 32 of a
  // 96-wide one (whole boxes): an N-major box of 32 columns has rows of 64 bytes, which take TMA's
  // 64-byte swizzle (and wgmma's descriptor says so), since the 128-byte one needs rows of 128.
  static constexpr int B_BOX = BN < 64 ? BN : BN % 64 != 0 ? 32 : 64;
  static constexpr int B_BOX_BYTES = BK * B_BOX * int(sizeof(T));
  static constexpr bool kBSwizzle64 = !kBKMajor && B_BOX * int(sizeof(T)) == 64;
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;  // the TMA bytes a full stage waits for
  // The TMA epilogue stores a warpgroup's tile as EPI_BOXES boxes of 64 rows x 128 bytes (BOX_COLS
  // elements), one box per pass, through a ring of two boxes (sm90_store_ring.cuh); of one where the
  // tile is one box (128 x 64 with 16-bit D), of three where it is three (128 x 192 with 16-bit D:
  // the ring must divide the tile, and a ring of one would store a tile's boxes one after another).
  // A 32-column tile of 16-bit D is one box of 64-byte rows, in the 64-byte swizzle; a 96-column
  // one three such boxes (boxes divide the tile).
  static constexpr int kFullBoxCols = 128 / int(sizeof(OutT));
  static constexpr int BOX_COLS = BN % kFullBoxCols == 0 ? kFullBoxCols : BN < kFullBoxCols ? BN : kFullBoxCols / 2;
  static constexpr int BOX_ROW_BYTES = BOX_COLS * int(sizeof(OutT));  // 128, or 64
  static constexpr int EPI_BOXES = kRowBlocks * BN / BOX_COLS;
  using Ring = StoreRing<(EPI_BOXES < 2 || EPI_BOXES % 2 ? EPI_BOXES : 2), 1, EPI_BOXES>;
  // The deferred epilogue: the last DEFER_BOXES boxes of a tile wait in registers (16 per box and
  // thread) and leave during the next tile's main loop, one every few k-tiles, while its wgmmas run.
  // Four boxes (64 registers) are half the tile with FP32 D and all of it with 16-bit D; more would
  // not fit beside the 128 accumulators. 256 x 128 tiles with FP32 D keep three: four spill there;
  // so do pairs of 128 x 256 tiles with FP32 D since the batch item became a coordinate of the
  // stores (4 bytes spilled with four).
  // 128 x 128, 128 x 64, 64 x 64 and 192 x 96 tiles keep none: they serve shapes with one or two tiles per CTA, where
  // there is little to hide, and 128 x 128 measured slower with it (docs/kernels/tensor-ladder.md, 7.3).
  static constexpr int DEFER_MAX = (BN <= 128 && BM != 256) ? 0 : ((BM == 256 || kCluster > 1) && sizeof(OutT) == 4) ? 3 : 4;
  static constexpr int DEFER_BOXES = S.tma_epilogue ? (EPI_BOXES < DEFER_MAX ? EPI_BOXES : DEFER_MAX) : 0;
  static constexpr int RING_BYTES = S.tma_epilogue ? kConsumers * Ring::kBytes : 0;
  // The staged epilogue (a D the TMA cannot address, through the ring: copy_box_out) in every
  // kernel with the ring but the dense fused ones of 128 accumulators a thread (128 x 256 tiles):
  // there the copy's loop beside the accumulators and the bias made ptxas spill, and they keep the
  // direct stores (docs/shapes.md, "The staged epilogue").
  static constexpr bool kStagedEpilogue = S.tma_epilogue && !(S.fused && !S.grouped && kAccum == 128);
  // The fused epilogue's bias for the tile (per column: BN values, per row: BM), as FP32, after the ring.
  static constexpr int BIAS_FLOATS = S.fused ? (BM > BN ? BM : BN) : 0;
  static constexpr int EPI_BYTES = RING_BYTES + 4 * BIAS_FLOATS;
  static constexpr std::size_t kSmemBytes = pipeline_smem_bytes(STAGES, A_BYTES, B_BYTES, EPI_BYTES);
  static_assert(kSmemBytes <= 232448, "more shared memory than an sm_90 CTA may have (227 KB)");
  static_assert(BIAS_FLOATS <= kConsumers * 128, "each consumer thread stages one bias value");
  static_assert(BN == 32 || BN == 64 || BN == 96 || BN == 128 || BN == 192 || BN == 256,
                "wgmma wrappers exist for n = 32, 64, 96, 128, 192 and 256");
  static_assert((BM == 128 && BN != 96) || (BM == 256 && BN == 128) || (BM == 64 && BN <= 128 && BN != 96) ||
                    (BM == 192 && BN == 96 && kCluster == 1 && !S.fused && !S.grouped && S.warp_specialized),
                "128 x 256, 256 x 128, 128 x 128, 128 x 64, 64 x 128, 64 x 64, 64 x 32, or 192 x 96 (three consumers, "
                "128 registers a thread: alone, plain epilogue, dense)");
  static_assert(BN >= 64 || (BM == 64 && kCluster == 1), "32-column tiles have 64 rows and no cluster");
  static_assert(kCluster == 1 || (kCluster == 2 && (kClusterM == 2 ? BN > BM : BM > BN)),
                "clusters of 2 share the larger operand tile: 2 x 1 with 128 x 256 tiles, 1 x 2 with 256 x 128 or 128 x 64");
  static_assert(kCluster == 1 || S.warp_specialized, "clusters need the producer warpgroup (its producer_tail)");
  static_assert(!S.grouped || (kCluster == 1 && S.persistent && S.warp_specialized),
                "grouped launches are persistent, warp-specialised and without clusters");
  static_assert(P == Precision::bf16 || P == Precision::fp16, "the sm_90a kernels take 16-bit operands");
};

struct HopperArgs {
  int M, N, K;        // D is M x N per batch item (grouped: M rows in all)
  int batch;          // batch items (1 when grouped)
  int a_bcast, b_bcast;  // that operand's batch stride is 0: every item reads item 0
  void* D;            // the direct epilogue's addressing: row-major, ldd between rows, stride_d between items
  const void* C;      // read when beta != 0 (may be D)
  long long ldd, ldc, stride_d, stride_c;
  epi::Params epi;    // alpha, beta, bias, activation
  int group_m;        // tile rows per raster group (persistent order)
  int tma_store;      // D's rows and items are 16-byte aligned: the TMA epilogue may be used
  int pair_stores;    // two adjacent outputs may be stored as one 8- (or 4-) byte access
  StreamK sk;         // the stream-K tail (sk.tail.units == 0: whole units only)
  int groups;         // grouped: group count and the device offsets (cumulative row ends)
  const int* offsets;
  // Split-K (0: none): batch item z multiplies k-tiles [z * k_split, (z + 1) * k_split) of one A and
  // B (the host marks both broadcast) into its own FP32 D, which a second kernel adds up
  // (kernels/library/split_k.cuh). k-tiles past K read zeros (the TMA fills them).
  int k_split;
};

// One wgmma.m64nBNk16 into the accumulators of one 64-row block, with each operand's tile K-major
// (transpose bit 0) or MN-major (1).
template <class Cfg>
__device__ __forceinline__ void wgmma_tile(float (&d)[Cfg::kBlockAccum], std::uint64_t da, std::uint64_t db, int scale_d) {
  constexpr int TA = Cfg::kAKMajor ? 0 : 1, TB = Cfg::kBKMajor ? 0 : 1;
  if constexpr (Cfg::kPrecision == Precision::bf16) {
    if constexpr (Cfg::BN == 256) wgmma_m64n256k16_bf16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 192) wgmma_m64n192k16_bf16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 128) wgmma_m64n128k16_bf16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 96) wgmma_m64n96k16_bf16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 64) wgmma_m64n64k16_bf16<TA, TB>(d, da, db, scale_d);
    else wgmma_m64n32k16_bf16<TA, TB>(d, da, db, scale_d);
  } else {
    if constexpr (Cfg::BN == 256) wgmma_m64n256k16_f16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 192) wgmma_m64n192k16_f16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 128) wgmma_m64n128k16_f16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 96) wgmma_m64n96k16_f16<TA, TB>(d, da, db, scale_d);
    else if constexpr (Cfg::BN == 64) wgmma_m64n64k16_f16<TA, TB>(d, da, db, scale_d);
    else wgmma_m64n32k16_f16<TA, TB>(d, da, db, scale_d);
  }
}

// Where unit u of the schedule lies: its tile (tm, tn) in its batch item or group, and the rows of
// A and D it covers. A unit is the cluster's tiles: kClusterM x kClusterN of them, this CTA's at
// (rank_m, rank_n).
struct TilePos {
  int tm, tn;
  int item;      // batch item, or group
  int row_base;  // first row of the item (grouped: the group's first row in the stacked A and D)
  int row_end;   // rows of D from row_base + tm * BM up to row_end belong to this tile's item
};

// Walks the units of a launch: dense (batch items of units_m x units_n units each, raster order in
// groups of group_m unit rows) or grouped (the groups' units in order, tile rows fastest, so that the
// tiles sharing a B panel run together). Units are visited in increasing order by every CTA, so the
// grouped cursor only moves forward: one pass over the offsets per CTA and launch.
template <class Cfg>
struct UnitWalker {
  int units_m, units_n, per_item, group_m, rank_m, rank_n, M;
  // grouped cursor: group g, its first unit, rows [start, end), units of a tile column
  int g = 0, g_unit = 0, g_start = 0, g_end = 0, g_units_m = 0;
  const int* offsets = nullptr;
  int groups = 0;

  __device__ UnitWalker(const HopperArgs& a, int rank_m_, int rank_n_) : rank_m(rank_m_), rank_n(rank_n_), M(a.M) {
    const int tiles_m = (a.M + Cfg::BM - 1) / Cfg::BM, tiles_n = (a.N + Cfg::BN - 1) / Cfg::BN;
    units_m = (tiles_m + Cfg::kClusterM - 1) / Cfg::kClusterM;
    units_n = (tiles_n + Cfg::kClusterN - 1) / Cfg::kClusterN;
    per_item = units_m * units_n;
    group_m = a.group_m > 0 ? a.group_m : units_m;
    if constexpr (Cfg::kGrouped) {
      offsets = a.offsets, groups = a.groups;
      enter(0, 0, 0);
    }
  }
  // Group g's rows (a decreasing or out-of-range offset makes the group empty).
  __device__ void enter(int group, int first_unit, int start) {
    g = group, g_unit = first_unit, g_start = start;
    g_end = group < groups ? offsets[group] : start;
    g_end = g_end < start ? start : (g_end > M ? M : g_end);
    g_units_m = (g_end - start + Cfg::BM - 1) / Cfg::BM;
  }
  // Every unit of the launch.
  __device__ int total(int batch) const {
    if constexpr (Cfg::kGrouped) {
      int units = 0, start = 0;
      for (int i = 0; i < groups; ++i) {
        int end = offsets[i];
        end = end < start ? start : (end > M ? M : end);
        units += (end - start + Cfg::BM - 1) / Cfg::BM * units_n;
        start = end;
      }
      return units;
    } else {
      return per_item * batch;
    }
  }
  __device__ TilePos at(int u) {
    TilePos t;
    if constexpr (Cfg::kGrouped) {
      while (u >= g_unit + g_units_m * units_n && g < groups) enter(g + 1, g_unit + g_units_m * units_n, g_end);
      const int v = u - g_unit;
      t.tm = v % g_units_m, t.tn = v / g_units_m;
      t.item = g, t.row_base = g_start, t.row_end = g_end;
    } else {
      const int item = per_item == 0 ? 0 : u / per_item;
      int um, un;
      unit_coords(u - item * per_item, units_m, units_n, group_m, um, un);
      t.tm = um * Cfg::kClusterM + rank_m, t.tn = un * Cfg::kClusterN + rank_n;
      t.item = item, t.row_base = 0, t.row_end = M;
    }
    return t;
  }
};

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
  if (threadIdx.x == 0) {  // the producer thread's first copies, and the TMA epilogue's stores
    prefetch_tensormap(&tm_a), prefetch_tensormap(&tm_b);
    if (args.tma_store) prefetch_tensormap(&tm_c);
  }
  init_pipeline<Cfg::kCluster>(full, empty, S, Cfg::kConsumers);
  dev::start_in_stream_order();  // before the walker reads a grouped call's offsets

  const int tiles_m = (args.M + BM - 1) / BM, tiles_n = (args.N + BN - 1) / BN;
  const int rank_m = Cfg::kClusterM > 1 ? int(rank) : 0, rank_n = Cfg::kClusterN > 1 ? int(rank) : 0;
  const int k_tiles = args.k_split > 0 ? args.k_split : (args.K + BK - 1) / BK;
  const int cluster_id = blockIdx.x / Cfg::kCluster, clusters = gridDim.x / Cfg::kCluster;
  UnitWalker<Cfg> walker(args, rank_m, rank_n);
  const int units = walker.total(args.batch);
  const int first_unit = cluster_id, unit_step = Cfg::kPersistent ? clusters : units;
  // Persistent grids walk whole units round-robin, then their share of the stream-K tail.
  const Schedule sched(units, k_tiles, cluster_id, clusters, args.sk.tail);

  // ---- producer: one thread walks the same sequence of (tile, k-tile) as the consumers ---------
  // Operand coordinates: A's rows start at a_row, its batch item is a_z; B's columns at b_col.
  auto produce = [&](int it, const TilePos& t, int kt) {
    const int s = it % S;
    // 32-bit shared addresses (the producer warpgroup keeps 40 registers)
    const std::uint32_t full_s = dev::smem_addr(full + s), empty_s = dev::smem_addr(empty + s);
    const std::uint32_t a = dev::smem_addr(a_tiles) + s * Cfg::A_BYTES, b = dev::smem_addr(b_tiles) + s * Cfg::B_BYTES;
    const int a_row = t.row_base + t.tm * BM, b_col = t.tn * BN, k = (kt + t.item * args.k_split) * BK;
    const int a_z = Cfg::kGrouped || args.a_bcast ? 0 : t.item;
    const int b_z = args.b_bcast ? 0 : t.item;  // grouped: item is the group
    mbar_wait(empty_s, ((it / S) & 1) ^ 1);
    mbar_expect_tx(full_s, Cfg::STAGE_BYTES);
    constexpr int a_boxes = BM / Cfg::A_BOX_ROWS, b_boxes = BN / Cfg::B_BOX;
    // One box of A or B: K-major boxes are addressed (k, row), MN-major ones (row, k).
    auto load_a = [&](int j, bool multicast) {
      const int x = Cfg::kAKMajor ? k : a_row + Cfg::A_BOX_ROWS * j, y = Cfg::kAKMajor ? a_row + Cfg::A_BOX_ROWS * j : k;
      if constexpr (Cfg::k2dMaps) tma_load(a + j * Cfg::A_BOX_BYTES, &tm_a, full_s, x, y);
      else if (multicast) tma_load_multicast_3d(a + j * Cfg::A_BOX_BYTES, &tm_a, full_s, x, y, a_z, 0x3);
      else tma_load_3d(a + j * Cfg::A_BOX_BYTES, &tm_a, full_s, x, y, a_z);
    };
    auto load_b = [&](int j, bool multicast) {
      const int x = Cfg::kBKMajor ? k : b_col + Cfg::B_BOX * j, y = Cfg::kBKMajor ? b_col + Cfg::B_BOX * j : k;
      if constexpr (Cfg::k2dMaps) tma_load(b + j * Cfg::B_BOX_BYTES, &tm_b, full_s, x, y);
      else if (multicast) tma_load_multicast_3d(b + j * Cfg::B_BOX_BYTES, &tm_b, full_s, x, y, b_z, 0x3);
      else tma_load_3d(b + j * Cfg::B_BOX_BYTES, &tm_b, full_s, x, y, b_z);
    };
    // The tile both CTAs of a cluster need (A with pairs along N, B along M): each loads half of
    // its boxes, for both.
    if constexpr (Cfg::kClusterN > 1) {
#pragma unroll
      for (int j = int(rank) * a_boxes / 2; j < (int(rank) + 1) * a_boxes / 2; ++j) load_a(j, true);
    } else {
#pragma unroll
      for (int j = 0; j < a_boxes; ++j) load_a(j, false);
    }
    if constexpr (Cfg::kClusterM > 1) {
#pragma unroll
      for (int j = int(rank) * b_boxes / 2; j < (int(rank) + 1) * b_boxes / 2; ++j) load_b(j, true);
    } else {
#pragma unroll
      for (int j = 0; j < b_boxes; ++j) load_b(j, false);
    }
  };

  if constexpr (Cfg::kWarpSpecialized) {
    if (wg == 0) {  // producer warpgroup
      // Registers go to the two consumers (one consumer has 255 without them: 256 threads a CTA;
      // three have 128, room enough for 48 accumulators).
      if constexpr (Cfg::kConsumers == 2) setmaxnreg_dec<40>();
      if (threadIdx.x == 0) {
        int it = 0;
        sched.template for_each<Cfg::kStreamK>([&](int u, int kb, int ke) {
          const TilePos t = walker.at(u);
          for (int kt = kb; kt < ke; ++kt) produce(it++, t, kt);
        });
        if constexpr (Cfg::kCluster > 1) producer_tail(empty, S, it);  // peers may still arrive on our barriers
      }
      // The warp leaves converged where that compiles without a stack frame: ptxas allocates the
      // registers over the whole kernel, and without this __syncwarp the fused 128 x 128 tiles took a
      // 16-byte frame, with it the pairs of 128 x 64 tiles with 16-bit D spilled 4 bytes.
      if constexpr (Cfg::kCluster == 1) __syncwarp();
      return;
    }
    if constexpr (Cfg::kConsumers == 2) setmaxnreg_inc<232>();
  }

  // ---- consumers -------------------------------------------------------------------------------
  const int ci = Cfg::kWarpSpecialized ? wg - 1 : wg;  // consumer index: rows ci*kConsumerRows .. (ci+1)*kConsumerRows - 1
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
  // Two adjacent outputs as D stores them: a float2, or two 16-bit values in one word.
  using Pair = std::conditional_t<sizeof(OutT) == 4, float2, std::uint32_t>;
  auto make_pair = [&](float v0, float v1) -> Pair {
    if constexpr (sizeof(OutT) == 4) {
      return make_float2(v0, v1);
    } else {
      OutT pair[2] = {epi::from_f32<OutT>(v0), epi::from_f32<OutT>(v1)};
      return *reinterpret_cast<const std::uint32_t*>(pair);
    }
  };
  // Pair p of box bx of the tile in d: group q = p / 2, rows r (p even) or r + 8 (p odd), times
  // alpha. alpha is read from the kernel's parameters at each use, not held in a register: at the
  // epilogue the accumulators and the deferred boxes leave none (one more spilled 4 bytes with
  // 128 x 256 pairs). When alpha is a device pointer the host passes 1 here and d is scaled in place
  // first; the fused epilogue has applied alpha already.
  auto box_pair = [&](int bx, int p) {
    const float* g = d + (bx / kBoxesPerBlock) * Cfg::kBlockAccum + 4 * ((bx % kBoxesPerBlock) * kGroupsPerBox + p / 2);
    if constexpr (Cfg::kFused) return make_pair(g[2 * (p % 2)], g[2 * (p % 2) + 1]);
    else return make_pair(args.epi.alpha * g[2 * (p % 2)], args.epi.alpha * g[2 * (p % 2) + 1]);
  };
  // The fused epilogue before the TMA stores: d = act(alpha * d + bias) in place, one accumulator group
  // at a time (rows r and r + 8, columns c and c + 1), so that only the accumulators are live. (Applied
  // inside box_pair instead, while the deferred boxes fill, it kept 16-bit D's 64 held registers, the
  // accumulators and the bias values live together, and ptxas spilled a kilobyte.)
  // It runs while the tensor cores wait, on two warps per scheduler, so its instruction count is its
  // time: the bias comes from the tile's copy in shared memory (stage_bias), two values per
  // accumulator group (columns c and c + 1, or rows r and r + 8) at an offset that moves by a
  // constant per group.
  float* const tile_bias = reinterpret_cast<float*>(epi + Cfg::RING_BYTES);
  auto fuse_in_place = [&](float alpha) {
    const int kind = args.epi.bias_kind;
    const bool per_col = kind == epi::kPerColumn;
    // Group (rb, j): its first value at tile_bias[first + rb * rb_step + j * j_step], its second
    // `second` further.
    const int first = per_col ? 2 * (lane % 4) : ci * Cfg::kConsumerRows + warp * 16 + lane / 4;
    const int j_step = per_col ? 8 : 0, rb_step = per_col ? 0 : 64, second = per_col ? 1 : 8;
    epi::with_activation_form(args.epi.act, [&](auto exp_form, const epi::ActForm& form) {
#pragma unroll
      for (int grp = 0; grp < Cfg::kAccum / 4; ++grp) {
        const int rb = grp / (BN / 8), j = grp % (BN / 8);
        float b0 = 0.0f, b1 = 0.0f;
        if (kind != epi::kNoBias) {
          const float* b = tile_bias + first + rb * rb_step + j * j_step;
          b0 = b[0], b1 = b[second];
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const float bias = (per_col ? i % 2 : i / 2) ? b1 : b0;  // element i: row r + 8 (i / 2), column c + i % 2
          d[4 * grp + i] = epi::activate_form<decltype(exp_form)::value>(alpha * d[4 * grp + i] + bias, form);
        }
      }
    });
  };
  // The tile's bias into tile_bias, as FP32: one value per consumer thread, loaded before the
  // barrier that waits for every consumer's reads of the last tile's. Rows and columns past D's edge
  // in a partial tile take the last bias value: theirs are never stored, and the bias vector ends at
  // D's edge (compute-sanitizer found the reads past it).
  constexpr int kBiasBarrier = 1 + Cfg::kConsumers;  // after the consumers' own (1 + ci)
  auto stage_bias = [&](const TilePos& t) {
    const bool per_col = args.epi.bias_kind == epi::kPerColumn;
    const int i = ci * 128 + ctid, extent = per_col ? BN : BM;
    const int at = min((per_col ? t.tn * BN : t.row_base + t.tm * BM) + i, (per_col ? args.N : args.M) - 1);
    const float v = i < extent ? epi::bias_at<OutT>(args.epi, t.item, at, at) : 0.0f;  // row or column `at`
    named_barrier(kBiasBarrier, Cfg::kConsumers * 128);
    if (i < extent) tile_bias[i] = v;
    named_barrier(kBiasBarrier, Cfg::kConsumers * 128);
  };
  typename Cfg::Ring ring(epi + ci * Cfg::Ring::kBytes, 1 + ci, leader);
  // Box bx of the tile whose warpgroup rows start at D row `row0` and columns at col0, of batch item
  // z: written into the ring's next slot from pairs[], then stored by TMA (the engine clips the
  // matrix edges). Pair p lands at row r = warp*16 + lane/4 (+8 for odd p), bytes of group p / 2 in
  // the box's swizzle (128 bytes, or 64 for a box of 64-byte rows).
  auto store_box = [&](int bx, int row0, int col0, int z, const Pair (&pairs)[kPairsPerBox]) {
    unsigned char* box = ring.begin_pass(bx);
    const std::uint32_t box_addr = dev::smem_addr(box);
    const int r = warp * 16 + lane / 4, lane_byte = 2 * (lane % 4) * int(sizeof(OutT));
#pragma unroll
    for (int p = 0; p < kPairsPerBox; ++p) {
      const int row = r + 8 * (p % 2), byte = (p / 2) * 8 * int(sizeof(OutT)) + lane_byte;
      const std::uint32_t addr = box_addr + (Cfg::BOX_ROW_BYTES == 128 ? swizzle128(row, byte) : swizzle64(row, byte));
      if constexpr (sizeof(OutT) == 4) st_shared(addr, pairs[p].x, pairs[p].y);
      else st_shared(addr, pairs[p]);
    }
    ring.end_pass(box, [&](unsigned char* b, int) {
      tma_store_3d(&tm_c, b, col0 + (bx % kBoxesPerBlock) * Cfg::BOX_COLS, row0 + (bx / kBoxesPerBlock) * 64, z);
    });
  };
  // The staged epilogue, where the TMA cannot address D: boxes bx0 .. bx0 + kRingBoxes - 1 of the
  // tile written into the whole ring as store_box writes one, then copied out by the warpgroup
  // (copy_box_out), rows masked at row_end, columns at N. As many boxes at once as the ring holds,
  // so that fewer accumulators wait in registers beside the copy's loop.
  constexpr int kRingBoxes = Cfg::Ring::kBytes / kStoreBoxBytes;
  auto store_boxes_staged = [&](int bx0, int row0, int col0, OutT* D, int row_end) {
    unsigned char* ring_base = ring.begin_ring();
    const std::uint32_t base_addr = dev::smem_addr(ring_base);
    const int r = warp * 16 + lane / 4, lane_byte = 2 * (lane % 4) * int(sizeof(OutT));
#pragma unroll
    for (int b = 0; b < kRingBoxes; ++b)
#pragma unroll
      for (int p = 0; p < kPairsPerBox; ++p) {
        const Pair pair = box_pair(bx0 + b, p);
        const int row = r + 8 * (p % 2), byte = (p / 2) * 8 * int(sizeof(OutT)) + lane_byte;
        const std::uint32_t addr = base_addr + std::uint32_t(b * kStoreBoxBytes) +
                                   (Cfg::BOX_ROW_BYTES == 128 ? swizzle128(row, byte) : swizzle64(row, byte));
        if constexpr (sizeof(OutT) == 4) st_shared(addr, pair.x, pair.y);
        else st_shared(addr, pair);
      }
    ring.end_pass_local();
#pragma unroll
    for (int b = 0; b < kRingBoxes; ++b) {
      const int bx = bx0 + b;
      const int box_row = row0 + (bx / kBoxesPerBlock) * 64, box_col = col0 + (bx % kBoxesPerBlock) * Cfg::BOX_COLS;
      const std::uint32_t box = base_addr + std::uint32_t(b * kStoreBoxBytes);
      if (args.pair_stores)
        copy_box_out<OutT, Cfg::BOX_COLS, Cfg::BOX_ROW_BYTES, 2>(box, D, args.ldd, box_row, box_col, row_end, args.N, ctid);
      else
        copy_box_out<OutT, Cfg::BOX_COLS, Cfg::BOX_ROW_BYTES, 1>(box, D, args.ldd, box_row, box_col, row_end, args.N, ctid);
    }
  };
  // The deferred boxes of the last tile: held[b] is box EPI_BOXES - DEFER_BOXES + b of the tile at
  // (held_row0, held_col0) of batch item held_z, waiting to be stored while held_pending.
  constexpr int kDefer = Cfg::DEFER_BOXES > 0 ? Cfg::DEFER_BOXES : 1;
  Pair held[kDefer][kPairsPerBox];
  int held_row0 = 0, held_col0 = 0, held_z = 0;
  bool held_pending = false;
  // Deferred box b (a constant wherever this is called: held is indexed by constants only).
  auto store_held = [&](int b) {
    store_box(Cfg::EPI_BOXES - Cfg::DEFER_BOXES + b, held_row0, held_col0, held_z, held[b]);
  };
  // One box every defer_stride() k-tiles from k-tile 1 (a power of two, at most 8, small enough for
  // all of them to leave within K). Measured at 4096^3 (BF16, FP32 D): one box on each of k-tiles
  // 0 to 3 slowed the main loop by most of what the deferral saves; every 4th to 16th k-tile was
  // faster (docs/kernels/tensor-ladder.md, 7.3). Worked out from K where it is
  // used rather than kept in registers through the main loop (the batch item of the held boxes
  // needs the one it frees: with both, 128 x 256 pairs spilled 4 bytes).
  auto defer_stride = [&] {
    int stride = 8;
    while (stride > 1 && stride * Cfg::DEFER_BOXES > k_tiles) stride /= 2;
    return stride;
  };

  int it = 0;
  int pending_flag = -1;  // stream-K: a published slot whose flag is not raised yet
  // Without a producer warpgroup, thread 0 keeps the pipeline S - 1 k-tiles ahead of its own reads.
  // It walks the same schedule with counters (the next k-tile p_kt of the p_unit-th unit, whose tile
  // it works out once): this code runs between its warpgroup's wgmmas, which wait for it, and
  // dividing one running count to find the unit and k-tile of every copy held them up
  // (docs/kernels/tensor-ladder.md, step 3).
  int produced = 0, p_unit = 0, p_kt = 0;
  TilePos p_tile{};
  UnitWalker<Cfg> producer_walker = walker;
  auto produce_ahead = [&](int upto) {
    if constexpr (!Cfg::kWarpSpecialized) {
      if (threadIdx.x == 0) {
        while (produced < upto) {
          const int u = first_unit + p_unit * unit_step;
          if (u >= units) break;
          if (p_kt == 0) p_tile = producer_walker.at(u);
          produce(produced, p_tile, p_kt);
          ++produced;
          if (++p_kt == k_tiles) p_kt = 0, ++p_unit;
        }
      }
      __syncwarp();
    }
  };
  produce_ahead(S - 1);

  sched.template for_each<Cfg::kStreamK>([&](int u, int kb, int ke) {
    int prev = -1;
    // One k-tile in two halves: issue its wgmmas, then wait for the batch before (whose stage is
    // released and refilled). A deferred box is written between the two, while two batches run.
    auto issue = [&](int kt) {
      const int s = it % S;
      mbar_wait(&full[s], (it / S) & 1);
      wgmma_fence();
      // This warpgroup's rows of A in stage s. K-major: rows of 128 bytes, row block rb 64 rows
      // further, a k16 step 32 bytes. M-major: a box of 64 rows per row block, a k16 step 16 rows
      // of 128 bytes. B likewise: K-major 32 bytes per k16, N-major 16 rows.
      const unsigned char* a_stage = a_tiles + s * Cfg::A_BYTES;
      const std::uint64_t da = Cfg::kAKMajor
                                   ? smem_desc(a_stage + ci * Cfg::kConsumerRows * 128, 16, 1024)
                                   : smem_desc(a_stage + ci * Cfg::kRowBlocks * Cfg::A_BOX_BYTES, Cfg::A_BOX_BYTES, 1024);
      // (An N-major B of 32 columns: k rows of 64 bytes, 512-byte atoms of 8 rows, in the 64-byte swizzle.)
      const std::uint64_t db = Cfg::kBKMajor   ? smem_desc(b_tiles + s * Cfg::B_BYTES, 16, 1024)
                               : Cfg::kBSwizzle64 ? smem_desc_64b(b_tiles + s * Cfg::B_BYTES, Cfg::B_BOX_BYTES, 512)
                                                  : smem_desc(b_tiles + s * Cfg::B_BYTES, Cfg::B_BOX_BYTES, 1024);
      constexpr unsigned a_rb_step = Cfg::kAKMajor ? 64 * 128 : Cfg::A_BOX_BYTES, a_k_step = Cfg::kAKMajor ? 32 : 16 * 128;
      constexpr unsigned b_k_step = Cfg::kBKMajor ? 32 : 16 * Cfg::B_BOX * unsigned(sizeof(T));
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
#pragma unroll
        for (int rb = 0; rb < Cfg::kRowBlocks; ++rb)
          wgmma_tile<Cfg>(block_accum(rb), desc_advance(da, rb * a_rb_step + kk * a_k_step),
                          desc_advance(db, kk * b_k_step), (kt > kb || kk > 0) ? 1 : 0);
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
          const int stride = defer_stride(), at = kb + b * stride + (stride > 1 ? 1 : 0);
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
      if (!settle_item<Cfg::kCluster, Cfg::kConsumers>(sched, args.sk, u, kb, ke, d, rank, ci, ctid, pending_flag)) return;
    }

    // ---- epilogue ------------------------------------------------------------------------------
    // The tile's place, and alpha and beta, are worked out here rather than kept in registers
    // through the main loop, which needs none of them.
    // (A dense launch's walker is rebuilt from the arguments: cheaper than keeping its fields in
    // registers through the main loop, where the consumers have none to spare. A grouped one keeps its
    // cursor.)
    const TilePos t = Cfg::kGrouped ? walker.at(u) : UnitWalker<Cfg>(args, rank_m, rank_n).at(u);
    const epi::Scalars scal = epi::scalars(args.epi);
    const int row0 = t.row_base + t.tm * BM + ci * Cfg::kConsumerRows, col0 = t.tn * BN;
    if (!Cfg::kGrouped && Cfg::kCluster > 1 && (t.tm >= tiles_m || t.tn >= tiles_n)) return;  // the cluster's spare CTA
    // TMA stores need beta == 0 and every row of this warpgroup inside the item (or group): a
    // grouped tile reaching past its group stores through the masked path below.
    const bool whole_rows = !Cfg::kGrouped || row0 + Cfg::kConsumerRows <= t.row_end;
    const int z = Cfg::kGrouped ? 0 : t.item;
    // Every consumer thread of the CTA takes part (a barrier), whichever way its rows are stored.
    if constexpr (Cfg::kFused) {
      if (args.epi.bias_kind != epi::kNoBias) stage_bias(t);
    }
    const bool tma = Cfg::kTmaEpilogue && scal.beta == 0.0f && args.tma_store && whole_rows;
    // Where the TMA cannot store this warpgroup's rows (D's rows off 16 bytes, or a grouped tile's
    // rows past its group) and beta is 0, the same boxes are copied out by the threads (staged).
    const bool staged = Cfg::kStagedEpilogue && scal.beta == 0.0f && !tma;
    // Direct stores' D and C (any beta, any alignment, rows masked at the item's end).
    OutT* const D = static_cast<OutT*>(args.D) + (Cfg::kGrouped ? 0 : std::size_t(t.item) * args.stride_d);
    const OutT* const C = static_cast<const OutT*>(args.C) + (Cfg::kGrouped ? 0 : std::size_t(t.item) * args.stride_c);
    const int row_end = Cfg::kGrouped ? t.row_end : args.M;
    // With 16-bit D the fused kernel's bias and activation run in one pass over the accumulators in
    // place for both ways of storing, so that the kernel holds the form's code once: the direct
    // stores' epi::finish per value, its bias load and activation switch unrolled over every
    // accumulator, made the kernel several times the plain one's length, and its warps waited for
    // instructions even where that code never ran (docs/kernels/tensor-ladder.md 7.10). With beta,
    // alpha * acc + beta * C goes into d first, masked at D's edges, and the pass takes alpha 1.
    // (With FP32 D this cost ptxas a stack frame: those keep finish per value in the direct stores.)
    constexpr bool kFuseFirst = Cfg::kFused && sizeof(OutT) == 2;
    if constexpr (kFuseFirst) {
      float alpha = scal.alpha;
      if (!tma && scal.beta != 0.0f) {
#pragma unroll
        for (int rb = 0; rb < Cfg::kRowBlocks; ++rb)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int rr = row0 + rb * 64 + warp * 16 + lane / 4 + 8 * h;
            if (rr >= row_end) continue;
            const OutT* in_row = C + std::size_t(rr) * args.ldc;
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
              const int c = col0 + 8 * j + 2 * (lane % 4);
              float* v = d + rb * Cfg::kBlockAccum + 4 * j + 2 * h;
              if (c < args.N) v[0] = scal.alpha * v[0] + scal.beta * epi::to_f32(in_row[c]);
              if (c + 1 < args.N) v[1] = scal.alpha * v[1] + scal.beta * epi::to_f32(in_row[c + 1]);
            }
          }
        alpha = 1.0f;
      }
      fuse_in_place(alpha);
    }
    if (tma || staged) {
      if constexpr (Cfg::kFused && !kFuseFirst) {
        fuse_in_place(scal.alpha);
      } else if constexpr (!Cfg::kFused) {
        if (args.epi.alpha_ptr) {
#pragma unroll
          for (int i = 0; i < Cfg::kAccum; ++i) d[i] *= scal.alpha;
        }
      }
      if constexpr (Cfg::kStagedEpilogue) {
        if (staged) {  // every box now: the threads' copies cannot be left to run behind the next main loop
          static_assert(Cfg::EPI_BOXES % kRingBoxes == 0, "the ring divides the tile");
#pragma unroll
          for (int bx = 0; bx < Cfg::EPI_BOXES; bx += kRingBoxes) store_boxes_staged(bx, row0, col0, D, row_end);
          return;
        }
      }
      // The first boxes now, through the ring (the tensor cores wait meanwhile); the last
      // DEFER_BOXES into registers, for the next tile's main loop (or the end of the kernel).
#pragma unroll
      for (int bx = 0; bx < Cfg::EPI_BOXES - Cfg::DEFER_BOXES; ++bx) {
        Pair pairs[kPairsPerBox];
#pragma unroll
        for (int p = 0; p < kPairsPerBox; ++p) pairs[p] = box_pair(bx, p);
        store_box(bx, row0, col0, z, pairs);
      }
      if constexpr (Cfg::DEFER_BOXES > 0) {
#pragma unroll
        for (int b = 0; b < Cfg::DEFER_BOXES; ++b)
#pragma unroll
          for (int p = 0; p < kPairsPerBox; ++p) held[b][p] = box_pair(Cfg::EPI_BOXES - Cfg::DEFER_BOXES + b, p);
        held_row0 = row0, held_col0 = col0, held_z = z, held_pending = true;
      }
    } else {
      // One output from its sum: with 16-bit D the fused kernel's d is final already; FP32 D's
      // fused kernel takes epi::finish; elsewhere alpha and beta only (the bias and the
      // activation's code, a branch per value, made the unrolled epilogue outgrow the instruction
      // cache and slowed the unfused ladder steps: tensor-ladder.md 7.10).
      auto value = [&](float acc, const OutT* in, int rr, int cc) -> OutT {
        if constexpr (kFuseFirst) {
          return epi::from_f32<OutT>(acc);
        } else if constexpr (Cfg::kFused) {
          return epi::finish<OutT>(args.epi, scal, acc, in, epi::bias_at<OutT>(args.epi, t.item, rr, cc));
        } else {
          float v = scal.alpha * acc;
          if (scal.beta != 0.0f) v += scal.beta * epi::to_f32(*in);
          return epi::from_f32<OutT>(v);
        }
      };
      // The common case in one tight pass: beta 0 (or d final), and whole pairs in every row and
      // column of this warpgroup's part of the tile: one paired store per two outputs. (The
      // general pass below checks each value and issues both kinds of store, predicated: three
      // stores per pair.)
      if constexpr (!Cfg::kFused || kFuseFirst) {
        if ((kFuseFirst || scal.beta == 0.0f) && args.pair_stores && col0 + BN <= args.N &&
            row0 + Cfg::kConsumerRows <= row_end) {
          const float mul = kFuseFirst ? 1.0f : scal.alpha;
#pragma unroll
          for (int rb = 0; rb < Cfg::kRowBlocks; ++rb)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int rr = row0 + rb * 64 + warp * 16 + lane / 4 + 8 * h;
              Pair* out = reinterpret_cast<Pair*>(D + std::size_t(rr) * args.ldd + col0 + 2 * (lane % 4));
#pragma unroll
              for (int j = 0; j < BN / 8; ++j) {
                const float* v = d + rb * Cfg::kBlockAccum + 4 * j + 2 * h;
                out[4 * j] = make_pair(mul * v[0], mul * v[1]);  // columns 8j + 2 (lane % 4), + 1
              }
            }
          return;
        }
      }
      // The thread's rows: row block rb, rows r and r + 8 (h), each pointer worked out once; its columns:
      // group j, c and c + 1.
#pragma unroll
      for (int rb = 0; rb < Cfg::kRowBlocks; ++rb)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int rr = row0 + rb * 64 + warp * 16 + lane / 4 + 8 * h;
          if (rr >= row_end) continue;
          OutT* out_row = D + std::size_t(rr) * args.ldd;
          const OutT* in_row = C + std::size_t(rr) * args.ldc;
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            const int c = col0 + 8 * j + 2 * (lane % 4);
            if (c >= args.N) continue;
            const float* v = d + rb * Cfg::kBlockAccum + 4 * j + 2 * h;
            OutT* out = out_row + c;
            const OutT o0 = value(v[0], in_row + c, rr, c);
            if (c + 1 < args.N) {
              const OutT o1 = value(v[1], in_row + c + 1, rr, c + 1);
              if (args.pair_stores) {
                const OutT both[2] = {o0, o1};
                if constexpr (sizeof(OutT) == 4) *reinterpret_cast<float2*>(out) = *reinterpret_cast<const float2*>(both);
                else *reinterpret_cast<std::uint32_t*>(out) = *reinterpret_cast<const std::uint32_t*>(both);
              } else {
                out[0] = o0, out[1] = o1;
              }
            } else {
              out[0] = o0;
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
}

}  // namespace gemmlab::tc::sm90
