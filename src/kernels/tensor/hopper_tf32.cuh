// The Hopper (sm_90a) TF32 GEMM behind tensor-core ladder step 8 (tc.swapped.tf32), and the
// library's TF32 kernel.
//
// Why a kernel of its own: wgmma reads TF32 operands from shared memory K-major only; there are no
// transpose bits for 32-bit types. So the kernel computes the transposed product,
//
//     D^T (N x M) = B^T (N x K) * A^T (K x M),
//
// where wgmma's first operand B^T comes from *registers* (any layout can be loaded there) and its
// second operand A^T is A's tile in shared memory, K-major as TF32 requires. Each accumulator row is
// a column n of D; the epilogue writes the transpose back. A must therefore be K-major (the library
// copies an M-major A into a K-major one first, or, when B is K-major, runs the transposed problem
// and has the epilogue write it column-major: Tf32Args::d_col_major); B may be either:
// N-major (B row-major, the ladder's case) or K-major (B_KMAJOR), which only changes where the
// fragments are read from.
//
// Levels: a CTA computes a BM (m) x 128 (n) tile of D, BM = 256, 128 or 64 (Tf32TileOf); each of its
// two consumer warpgroups owns 64 columns n and issues wgmma.m64n{BM}k8 with D = its 64 x BM slice
// of D^T (BM / 2 FP32 accumulators per thread). A producer warpgroup issues the TMA copies (A: one
// BM x 32 box; B: four boxes of 32 x 32, all 128-byte swizzled) into a 4-stage mbarrier pipeline
// (6 stages with BM = 128, whose stages are half the size, 8 with BM = 64); the grid is persistent and walks the tiles
// in grouped order for L2 reuse (over every item of a batch); D leaves through shared memory and TMA
// stores. The pipeline is that of hopper.cuh (steps 4 to 7); what differs is the operand path and the
// transposed epilogue. With clusters of 2 (CLUSTER), the two CTAs hold neighbouring tiles in n and
// share their A tile: each loads 128 of its 256 rows and multicasts them to both, halving A's
// traffic from L2.
//
// Register fragments of B^T. Per k8 step a thread holds a[0..3] = B^T(row r, k), with rows r = g and
// g + 8 (g = lane / 4) of its warp's 16 and k = t, t + 4 (t = lane % 4). Which column n of D a
// fragment row stands for is free (the epilogue only has to agree), so rows are mapped to n such that
// every load of a warp is free of bank conflicts in the swizzled B box. N-major B: the 8 rows g of a
// warp's half use two 16-byte chunks four apart (n = 4 * (c + 4 * (g / 4)) + g % 4), and the swizzle
// (chunk XOR k % 8) then spreads the warp's 4 k rows x 2 chunks over 8 distinct chunks, i.e. all 32
// banks. K-major B: rows n are 128-byte lines and the swizzle XORs the chunk with n % 8, so 8
// consecutive n (n % 8 = g) put the warp's 8 rows x 4 k in 32 distinct banks.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/library/epilogue.cuh"
#include "kernels/tensor/sm90_ptx.cuh"
#include "kernels/tensor/sm90_schedule.cuh"
#include "kernels/tensor/sm90_store_ring.cuh"
#include "kernels/tensor/tc_types.cuh"
#include "kernels/tensor/wgmma_ops.cuh"

namespace gemmlab::tc::sm90 {

// BM = 128 serves problems of few rows (m <= 128) and few tiles: half the rows of padding or twice
// the tiles of 256-row ones; BM = 64 the same against 128-row ones (m <= 64, small problems).
template <int BM_>
struct Tf32TileOf {
  static constexpr int BM = BM_, BN = 128, BK = 32;       // BK: 32 floats = one 128-B row
  static constexpr int STAGES = BM == 256 ? 4 : BM == 128 ? 6 : 8;
  static constexpr int kConsumers = 2, kThreads = 3 * 128;
  static constexpr int kAccum = BM / 2;                   // 64 x BM FP32 per consumer warpgroup
  static constexpr int A_BYTES = BM * BK * 4;             // one TMA box of BM rows x 128 B
  static constexpr int B_BOX_COLS = 32;                   // n per B box (N-major: 128 B rows; K-major: 32 rows)
  static constexpr int B_BOX_BYTES = BK * B_BOX_COLS * 4; // 4 KB
  static constexpr int B_BYTES = BK * BN * 4;             // 16 KB: four boxes
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  // Epilogue: per warpgroup and pass, a 64 (m) x 64 (n) piece of D as two 64 x 32 boxes (8 KB
  // each), through a ring of one pass (sm90_store_ring.cuh).
  static constexpr int EPI_PASSES = BM / 64;
  using Ring = StoreRing<2, 2, EPI_PASSES>;
  static constexpr int EPI_BYTES = kConsumers * Ring::kBytes;
  static constexpr std::size_t kSmemBytes = pipeline_smem_bytes(STAGES, A_BYTES, B_BYTES, EPI_BYTES);
  static_assert(BM == 64 || BM == 128 || BM == 256, "wgmma wrappers exist for m64n64k8, m64n128k8 and m64n256k8 TF32");
  static_assert(kSmemBytes <= 232448, "more shared memory than an sm_90 CTA may have (227 KB)");
};
using Tf32Tile = Tf32TileOf<256>;  // the ladder's tile

struct Tf32Args {
  int M, N, K;
  int batch;             // batch items
  int a_bcast, b_bcast;  // that operand's batch stride is 0: every item reads item 0
  float* D;              // the direct epilogue's addressing: row-major, ldd between rows, stride_d between items
  const float* C;        // read when beta != 0 (may be D)
  int d_col_major;       // 1: D and C are stored column-major instead (ldd, ldc between columns), and the
                         // direct epilogue writes each accumulator row (a column of D) along contiguous
                         // memory; 2: the same with 8-byte aligned pairs of rows (float2 stores)
  long long ldd, ldc, stride_d, stride_c;
  epi::Params epi;       // alpha, beta, bias, activation
  int group_m;           // tile rows per raster group
  int tma_store;         // D's rows (columns where d_col_major) and items are 16-byte aligned: the TMA
                         // epilogue may be used (beta == 0); tm_c maps them
  StreamK sk;            // the stream-K tail (sk.tail.units == 0: whole tiles only)
  int k_split;           // split-K: k-tiles per batch item, as in HopperArgs::k_split (0: none)
};

// Column n (0..63, inside the warpgroup's 64) of D held by fragment row (warp, half h, g).
template <bool B_KMAJOR>
__device__ __forceinline__ int tf32_fragment_col(int warp, int h, int g) {
  if constexpr (B_KMAJOR) {
    return 16 * warp + 8 * h + g;
  } else {
    const int i = 2 * warp + h;  // 8 (warp, half) pairs: two boxes of 32 columns, 4 chunk pairs each
    return (i / 4) * 32 + 4 * (i % 4 + 4 * (g / 4)) + g % 4;
  }
}

// Byte offset of (row r, float column x) in a box of 128-byte rows written with TMA's 128-B swizzle.
__device__ __forceinline__ int swizzle128_f32(int r, int x) { return swizzle128(r, 4 * x); }

__device__ __forceinline__ std::uint32_t lds32(const void* p) {
  std::uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(dev::smem_addr(p)));
  return v;
}

// CLUSTER = 2: the two CTAs of a cluster hold neighbouring tiles in n with the same rows m, so
// they share the A tile: each loads half of its rows and multicasts them to both. FUSED: the bias
// and the activation are applied in the epilogue. BM_: the tile's rows (Tf32TileOf).
template <int CLUSTER, bool B_KMAJOR = false, bool FUSED = false, int BM_ = 256>
__global__ void __launch_bounds__(Tf32TileOf<BM_>::kThreads, 1)
    hopper_tf32_gemm(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
                     const __grid_constant__ CUtensorMap tm_c, const Tf32Args args) {
  using Cfg = Tf32TileOf<BM_>;
  constexpr int S = Cfg::STAGES, BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  extern __shared__ unsigned char smem_raw[];
  const auto [a_tiles, b_tiles, epi, full, empty] = PipelineSmem<Cfg>(smem_raw);

  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of 1 or 2 CTAs");
  const int wg = threadIdx.x / 128;
  const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;
  if (threadIdx.x == 0) {  // as hopper_gemm's
    prefetch_tensormap(&tm_a), prefetch_tensormap(&tm_b);
    if (args.tma_store) prefetch_tensormap(&tm_c);
  }
  init_pipeline<CLUSTER>(full, empty, S, Cfg::kConsumers);
  dev::start_in_stream_order();

  // A unit is CLUSTER tiles side by side in n, one per CTA of a cluster; the units of batch item i
  // follow those of item i - 1.
  const int tiles_m = (args.M + BM - 1) / BM, tiles_n = (args.N + BN - 1) / BN;
  const int units_n = (tiles_n + CLUSTER - 1) / CLUSTER;
  const int per_item = tiles_m * units_n, units = per_item * args.batch,
            k_tiles = args.k_split > 0 ? args.k_split : (args.K + BK - 1) / BK;
  const int group_m = args.group_m > 0 ? args.group_m : tiles_m;
  const Schedule sched(units, k_tiles, blockIdx.x / CLUSTER, gridDim.x / CLUSTER, args.sk.tail);
  // Unit u -> tile (tm, tn) of batch item `item`.
  auto tile_of = [&](int u, int& tm, int& tn, int& item) {
    item = u / per_item;
    int un;
    unit_coords(u - item * per_item, tiles_m, units_n, group_m, tm, un);
    tn = un * CLUSTER + int(rank);
  };

  if (wg == 0) {  // producer warpgroup: one thread issues every copy
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int it = 0;
      sched.for_each<true>([&](int u, int kb, int ke) {
        int tm, tn, item;
        tile_of(u, tm, tn, item);
        const int a_z = args.a_bcast ? 0 : item, b_z = args.b_bcast ? 0 : item;
        for (int kt = kb; kt < ke; ++kt, ++it) {
          const int s = it % S, k = (kt + item * args.k_split) * BK;
          const std::uint32_t full_s = dev::smem_addr(&full[s]);
          mbar_wait(&empty[s], ((it / S) & 1) ^ 1);
          mbar_expect_tx(full_s, Cfg::STAGE_BYTES);
          const std::uint32_t a = dev::smem_addr(a_tiles + s * Cfg::A_BYTES);
          if constexpr (CLUSTER == 1) {
            tma_load_3d(a, &tm_a, full_s, k, tm * BM, a_z);
          } else {  // this CTA's half of the shared A tile's rows, for both
            constexpr int rows = BM / CLUSTER;
            tma_load_multicast_3d(a + int(rank) * rows * 128, &tm_a, full_s, k, tm * BM + int(rank) * rows, a_z, 0x3);
          }
          const std::uint32_t b = dev::smem_addr(b_tiles + s * Cfg::B_BYTES);
          // Box j: 32 columns of B, as 32 k-rows of 32 n (N-major) or 32 n-rows of 32 k (K-major).
          for (int j = 0; j < BN / Cfg::B_BOX_COLS; ++j) {
            const int n = tn * BN + j * Cfg::B_BOX_COLS;
            if constexpr (B_KMAJOR) tma_load_3d(b + j * Cfg::B_BOX_BYTES, &tm_b, full_s, k, n, b_z);
            else tma_load_3d(b + j * Cfg::B_BOX_BYTES, &tm_b, full_s, n, k, b_z);
          }
        }
      });
      if constexpr (CLUSTER > 1) producer_tail(empty, S, it);  // peers may still arrive on our barriers
    }
    if constexpr (CLUSTER == 1) __syncwarp();  // as hopper_gemm's producer (its comment says why)
    return;
  }
  setmaxnreg_inc<232>();

  // ---- consumers -------------------------------------------------------------------------------
  const int ci = wg - 1;  // columns ci*64 .. ci*64+63 of the CTA tile
  const int ctid = threadIdx.x % 128, warp = ctid / 32, lane = ctid % 32, g = lane / 4, t = lane % 4;
  const bool leader = ctid == 0;

  // Where this thread's fragment values sit in a B stage: for half h, box (2ci + col/32) and the
  // fragment row's column inside it.
  int frag_box[2], frag_col[2];
  for (int h = 0; h < 2; ++h) {
    const int col = tf32_fragment_col<B_KMAJOR>(warp, h, g);
    frag_box[h] = 2 * ci + col / 32;
    frag_col[h] = col % 32;
  }
  // a[kk][q] holds half h = q % 2 at k = 8kk + t + 4 (q / 2).
  //   N-major: the swizzle depends on the k row % 8 only, so the four offsets of kk = 0 serve every
  //   kk, 8 rows (1 KB) further on each time.
  //   K-major: rows are columns n, k runs along them in 16-byte chunks (4 floats), and the swizzle
  //   XORs the chunk index (2kk + q/2) with n % 8 = g. The byte offset of chunk g, lane t, in the row
  //   has bits 4-6 equal to g, so XORing the offset with (2kk + q/2) << 4 gives the swizzled chunk:
  //   one XOR per load.
  std::uint32_t frag_off[4];
  for (int q = 0; q < 4; ++q)
    frag_off[q] = B_KMAJOR ? std::uint32_t(frag_box[q % 2] * Cfg::B_BOX_BYTES + frag_col[q % 2] * 128 + (g << 4) + 4 * t)
                           : std::uint32_t(frag_box[q % 2] * Cfg::B_BOX_BYTES + swizzle128_f32(t + 4 * (q / 2), frag_col[q % 2]));
  auto load_fragments = [&](const unsigned char* b, std::uint32_t (&a)[4][4]) {
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk)
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        if constexpr (B_KMAJOR) a[kk][q] = lds32(b + (frag_off[q] ^ std::uint32_t((2 * kk + q / 2) << 4)));
        else a[kk][q] = lds32(b + frag_off[q] + kk * 8 * 128);
      }
  };

  // Where D(m = 8j + 2t + e, n of half h) goes in a pass's two boxes, for j % 8 = 0. Addresses kept
  // as these four offsets plus compile-time constants (here and for the fragments above) cut the
  // kernel's instructions and made it faster (docs/kernels/tensor-ladder.md, 8.3).
  //   Row-major D: box b holds the pass's 64 rows m by the columns n 32b to 32b + 31, so n picks
  //   the box and the column, m the row (its swizzle depends on 2t + e only; j adds 8 rows).
  //   Column-major D (d_col_major, the transposed problem of TT and of a column-major D, whose B is
  //   always N-major): box b holds the warpgroup's 64 columns n as rows by the pass's m 32b to
  //   32b + 31, so m picks the box and the 16-byte chunk, n the row. The chunk of m = 8j + 2t + e
  //   is 2 (j % 4) + t / 2, XORed with n % 8: the offset of j % 4 = 0 XORed with (j % 4) << 5.
  const bool col_major_store = !B_KMAJOR && args.d_col_major != 0;
  std::uint32_t epi_off[2][2];
  for (int h = 0; h < 2; ++h)
    for (int e = 0; e < 2; ++e)
      epi_off[h][e] = col_major_store ? swizzle128_f32(tf32_fragment_col<B_KMAJOR>(warp, h, g), 2 * t + e)
                                      : (frag_box[h] - 2 * ci) * kStoreBoxBytes + swizzle128_f32(2 * t + e, frag_col[h]);
  typename Cfg::Ring ring(epi + ci * Cfg::Ring::kBytes, 1 + ci, leader);
  float d[Cfg::kAccum];
  std::uint32_t frag[2][4][4];  // two sets of B^T fragments: this k-tile and the next
  int it = 0;
  int pending_flag = -1;  // stream-K: a published slot whose flag is not raised yet
  sched.for_each<true>([&](int u, int kb, int ke) {
    int tm, tn, item;
    tile_of(u, tm, tn, item);
    // Per k-tile: issue the 4 wgmmas of this k-tile from one register set, then, while they run,
    // load the next k-tile's fragments into the other set. wgmma_wait<1> returns when the batch
    // before is done, so the set it read is free and its stage can be released. (ptxas would
    // serialise every wgmma of the kernel if a register that an in-flight wgmma reads were written;
    // two sets selected at compile time, by unrolling the loop by 2, avoid that.)
    int prev = -1;  // the stage of the batch still in flight
    if (kb < ke) {
      mbar_wait(&full[it % S], (it / S) & 1);
      load_fragments(b_tiles + (it % S) * Cfg::B_BYTES, frag[0]);
    }
    auto step = [&](auto set, int kt) {
      constexpr int F = decltype(set)::value;
      const int s = it % S;
      wgmma_fence();
      const unsigned char* at = a_tiles + s * Cfg::A_BYTES;
#pragma unroll
      for (int kk = 0; kk < BK / 8; ++kk)
        if constexpr (BM == 256)
          wgmma_m64n256k8_tf32_rs(d, frag[F][kk], smem_desc(at + kk * 32, 16, 1024), (kt > kb || kk > 0) ? 1 : 0);
        else if constexpr (BM == 128)
          wgmma_m64n128k8_tf32_rs(d, frag[F][kk], smem_desc(at + kk * 32, 16, 1024), (kt > kb || kk > 0) ? 1 : 0);
        else
          wgmma_m64n64k8_tf32_rs(d, frag[F][kk], smem_desc(at + kk * 32, 16, 1024), (kt > kb || kk > 0) ? 1 : 0);
      wgmma_commit();
      wgmma_wait<1>();
      if (prev >= 0) release_stage<CLUSTER>(&empty[prev], ctid);
      prev = s;
      ++it;
      if (kt + 1 < ke) {
        mbar_wait(&full[it % S], (it / S) & 1);
        load_fragments(b_tiles + (it % S) * Cfg::B_BYTES, frag[F ^ 1]);
      }
    };
    for (int kt = kb; kt < ke; kt += 2) {
      step(std::integral_constant<int, 0>{}, kt);
      if (kt + 1 < ke) step(std::integral_constant<int, 1>{}, kt + 1);
    }
    wgmma_wait<0>();
    if (prev >= 0) release_stage<CLUSTER>(&empty[prev], ctid);
    // A stream-K item that does not hold k-tile 0 hands its sums to the tile's finisher.
    if (!settle_item<CLUSTER, Cfg::kConsumers>(sched, args.sk, u, kb, ke, d, rank, ci, ctid, pending_flag)) return;
    if (tn >= tiles_n) return;  // the cluster's spare CTA (odd number of tile columns)

    // ---- epilogue: d[4j + 2h + e] = D(m = 8j + 2t + e, n = tf32_fragment_col(warp, h, g)) -------
    // alpha and beta are read here, per tile, rather than kept in registers through the main loop.
    const epi::Scalars scal = epi::scalars(args.epi);
    const int row0 = tm * BM, col0 = tn * BN + ci * 64;
    // The TMA store clips a partial tile, but its values are all computed: rows and columns past
    // D's edge read the last bias value, since the bias ends at D's edge (compute-sanitizer found
    // the reads past it).
    // Where the TMA cannot store a row-major D (its rows off 16 bytes), the same passes are copied
    // out by the warpgroup's threads (copy_box_out, sm90_store_ring.cuh): a store instruction then
    // writes 128 bytes of one row, where from the fragments it writes 16- or 32-byte pieces of 4
    // rows. Not in the 256-row kernels of an N-major B, where the copy's loop beside their
    // accumulators and fragments made ptxas spill, nor for a column-major D (docs/shapes.md, "The
    // staged epilogue"); dispatch gives such a D 128-row tiles where K is short (tf32.cpp).
    constexpr bool kStaged = B_KMAJOR || BM < 256;
    const bool staged = kStaged && !args.tma_store && args.d_col_major == 0;
    if ((args.tma_store || staged) && scal.beta == 0.0f) {
      // The passes, each value finished by fin(v, m, n). FUSED picks the activation's form once
      // per tile (epi::with_activation_form), and a per-column bias's two values of the thread (its
      // columns n for h = 0, 1) once per tile: a bias load and an activation switch per value had
      // made the fused epilogue costly (docs/kernels/tensor-ladder.md, 7.10).
      // kCol: D column-major (epi_off above); tm_c then maps D's columns as its rows.
      auto passes = [&](auto col_major, auto&& fin) {
        constexpr bool kCol = decltype(col_major)::value;
#pragma unroll
        for (int pass = 0; pass < Cfg::EPI_PASSES; ++pass) {
          unsigned char* cs = ring.begin_pass(pass);
          const std::uint32_t cs_addr = dev::smem_addr(cs);
          // m = 8 jj + 2t + e of the pass.
#pragma unroll
          for (int jj = 0; jj < 8; ++jj)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
              for (int e = 0; e < 2; ++e) {
                const int i = 4 * (pass * 8 + jj) + 2 * h + e;
                const int m = row0 + pass * 64 + 8 * jj + 2 * t + e;
                const std::uint32_t at = kCol ? (jj / 4) * kStoreBoxBytes + (epi_off[h][e] ^ std::uint32_t((jj % 4) << 5))
                                              : epi_off[h][e] + jj * 8 * 128;
                st_shared(cs_addr + at, fin(scal.alpha * d[i], m, h));
              }
          if constexpr (kCol) {
            ring.end_pass(cs, [&](unsigned char* box, int b) { tma_store_3d(&tm_c, box, row0 + pass * 64 + 32 * b, col0, item); });
          } else if (!staged) {
            ring.end_pass(cs, [&](unsigned char* box, int b) { tma_store_3d(&tm_c, box, col0 + 32 * b, row0 + pass * 64, item); });
          } else if constexpr (kStaged) {
            ring.end_pass_local();
            float* D = args.D + std::size_t(item) * args.stride_d;
#pragma unroll
            for (int b = 0; b < 2; ++b)  // box b: rows m of the pass, columns col0 + 32 b on
              copy_box_out<float, 32, 128, 1>(cs_addr + std::uint32_t(b * kStoreBoxBytes), D, args.ldd, row0 + pass * 64,
                                              col0 + 32 * b, args.M, args.N, ctid);
          }
        }
      };
      // Only an N-major B's kernels store column-major D (no code for it where it cannot occur).
      auto store_tile = [&](auto&& fin) {
        if constexpr (!B_KMAJOR)
          if (col_major_store) return passes(std::true_type{}, fin);
        passes(std::false_type{}, fin);
      };
      // (In pairs of 256-row tiles with a K-major B the form's pass made ptxas spill 8 bytes: those
      // keep the bias load and the activation's switch per value.)
      if constexpr (FUSED && CLUSTER == 2 && B_KMAJOR && BM == 256) {
        store_tile([&](float v, int m, int h) {
          const int n = col0 + tf32_fragment_col<B_KMAJOR>(warp, h, g);
          return epi::activate(v + epi::bias_at<float>(args.epi, item, min(m, args.M - 1), min(n, args.N - 1)), args.epi.act);
        });
      } else if constexpr (FUSED) {
        const bool per_col = args.epi.bias_kind == epi::kPerColumn;
        float col_bias[2];
        for (int h = 0; h < 2; ++h)
          col_bias[h] = per_col ? epi::bias_at<float>(args.epi, item, 0, min(col0 + tf32_fragment_col<B_KMAJOR>(warp, h, g), args.N - 1)) : 0.0f;
        epi::with_activation_form(args.epi.act, [&](auto exp_form, const epi::ActForm& form) {
          store_tile([&](float v, int m, int h) {
            const float bias = per_col ? col_bias[h] : epi::bias_at<float>(args.epi, item, min(m, args.M - 1), 0);
            return epi::activate_form<decltype(exp_form)::value>(v + bias, form);
          });
        });
      } else {
        store_tile([](float v, int, int) { return v; });
      }
    } else if (args.d_col_major == 2) {
      // D (and C) column-major with 8-byte aligned pairs: a thread's m and m + 1 (e = 0, 1) are
      // neighbours in memory, so it stores them as one float2, and 4 lanes fill a 32-byte sector.
      float* D = args.D + std::size_t(item) * args.stride_d;
      const float* C = args.C + std::size_t(item) * args.stride_c;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int n = col0 + tf32_fragment_col<B_KMAJOR>(warp, h, g);
        if (n >= args.N) continue;
#pragma unroll
        for (int j = 0; j < Cfg::kAccum / 4; ++j) {
          const int m = row0 + 8 * j + 2 * t;
          if (m >= args.M) continue;
          float v[2];
#pragma unroll
          for (int e = 0; e < 2; ++e) v[e] = scal.alpha * d[4 * j + 2 * h + e];
          const std::size_t at_d = std::size_t(n) * args.ldd + m, at_c = std::size_t(n) * args.ldc + m;
          if (m + 1 < args.M) {
            if (scal.beta != 0.0f) {
              const float2 c = *reinterpret_cast<const float2*>(C + at_c);
              v[0] += scal.beta * c.x, v[1] += scal.beta * c.y;
            }
            if constexpr (FUSED)
#pragma unroll
              for (int e = 0; e < 2; ++e) v[e] = epi::activate(v[e] + epi::bias_at<float>(args.epi, item, m + e, n), args.epi.act);
            *reinterpret_cast<float2*>(D + at_d) = make_float2(v[0], v[1]);
          } else {
            if (scal.beta != 0.0f) v[0] += scal.beta * C[at_c];
            if constexpr (FUSED) v[0] = epi::activate(v[0] + epi::bias_at<float>(args.epi, item, m, n), args.epi.act);
            D[at_d] = v[0];
          }
        }
      }
    } else {
      float* D = args.D + std::size_t(item) * args.stride_d;
      const float* C = args.C + std::size_t(item) * args.stride_c;
      // Element (m, n) at m * ld + n, or at n * ld + m when D is column-major.
      const std::size_t step_m = args.d_col_major ? 1 : std::size_t(args.ldd), step_n = args.d_col_major ? std::size_t(args.ldd) : 1;
      const std::size_t c_step_m = args.d_col_major ? 1 : std::size_t(args.ldc), c_step_n = args.d_col_major ? std::size_t(args.ldc) : 1;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int n = col0 + tf32_fragment_col<B_KMAJOR>(warp, h, g);
        if (n >= args.N) continue;
#pragma unroll
        for (int j = 0; j < Cfg::kAccum / 4; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int m = row0 + 8 * j + 2 * t + e;
            if (m >= args.M) continue;
            // epi::finish's arithmetic, with the activation's code only where FUSED.
            float v = scal.alpha * d[4 * j + 2 * h + e];
            if (scal.beta != 0.0f) v += scal.beta * C[std::size_t(m) * c_step_m + std::size_t(n) * c_step_n];
            if constexpr (FUSED) v = epi::activate(v + epi::bias_at<float>(args.epi, item, m, n), args.epi.act);
            D[std::size_t(m) * step_m + std::size_t(n) * step_n] = v;
          }
      }
    }
  });
  raise_pending(args.sk, pending_flag, ctid);
  ring.drain();
}

}  // namespace gemmlab::tc::sm90
