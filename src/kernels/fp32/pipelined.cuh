// The FP32 CUDA-core kernel template: the library's SIMT kernel (kernels/library/simt.hpp) and the
// lab's FP32 ladder steps 5 to 9. Warp-tiled like step 4, fed by a multi-stage cp.async pipeline,
// with optional block rasterisation, split-K and a stream-K tail.
//
// Levels (CUTLASS's names):
//   block tile  BM x BN x BK      BM = 4 * TM * WARPS_M, BN = 64 * WARPS_N
//   warp tile   4*TM x 64         a 4 x 8 grid of lanes
//   thread tile TM x 8            TM = 8: four 4 x 4 pieces, 16 rows and 32 columns apart;
//                                 TM = 16: eight (4 row groups 16 apart): 128 FMAs per 6 shared loads
// Pipeline: STAGES shared-memory slots. cp.async writes tile t + STAGES - 1 while the warps
// multiply tile t, so global-memory latency is covered by STAGES - 1 tiles of math and no register
// staging is needed. Both operands land in shared memory k-row by k-row: A as As[k][m] (pitch
// BM + 4), B as Bs[k][n], whatever their layout in global memory (CopyPath below). Elements beyond
// the matrix are zero-filled by cp.async itself (src-size 0), so edges need no special path in the
// math.
// Problems: D = epilogue(op(A) op(B)) for row-major D (api/problem.hpp's normalised form), any
// leading dimensions, a batch (blockIdx.y is the item; a batch stride of 0 broadcasts an operand),
// C read from its own pointer and leading dimension (or D's), alpha and beta as values or device
// pointers; the bias and activation of kernels/library/epilogue.cuh (EpiKind below).
// Work per block: one tile (or, with split-K, one slice of K of it: blockIdx.z), or with a stream-K
// tail (stream_k_tail.hpp) a contiguous range of the last partial wave's k-tiles.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/launch_config.hpp"
#include "kernels/fp32/stream_k_tail.hpp"
#include "kernels/library/epilogue.cuh"

namespace gemmlab::fp32 {

// How an operand's tile reaches shared memory, where A's is As[k][m] and B's is Bs[k][n]:
//   kTransposed  the operand is K-major (k contiguous in memory): 4-byte copies, element by
//                element, transposing (a copy cannot transpose wider pieces). A's path of old.
//   kDirect4     MN-major (m or n contiguous): 4-byte copies along m (or n), any leading dimension
//                and alignment.
//   kDirect16    MN-major with 16-byte aligned lines: 16-byte copies. B's path of old.
enum CopyPath : int { kTransposed = 0, kDirect4 = 1, kDirect16 = 2 };

// The epilogue of an instantiation:
//   kEpiPacked  the ladder's kernel of old, for packed row-major problems (lda = K, ldb = N,
//               ldd = N, C = D, one batch item, alpha and beta values): D = alpha * acc + beta * D.
//               Its code, and so its main loop's SASS, is the measured one (docs/kernels/fp32-ladder.md).
//   kEpiPlain   any leading dimensions, batch strides, C apart from D, alpha and beta as values or
//               device pointers.
//   kEpiFused   kEpiPlain and the bias and activation, through epi::finish.
// Each is compiled separately because ptxas assigns the main loop's registers with the epilogue in
// view: every general feature above, added to the measured kernel, moved its FMAs' registers (2 to
// 8 more register-file read cycles per k-tile for 128x256).
enum EpiKind : int { kEpiPacked = 0, kEpiPlain = 1, kEpiFused = 2 };

// The kernels' arguments come in two structs, each at most 128 bytes: nvcc passes a larger one
// through a pointer into the parameter space, and with the main loop's fields behind that pointer
// the loop compiled differently (other registers, LDS moved). PipelinedArgs holds what the main
// loop, the stream-K fix-up and the packed epilogue read, at the offsets of the ladder kernel's
// arguments of old (the parameters' layout changes how ptxas schedules the loop's address
// arithmetic too); StoreArgs what the general epilogues read.
struct PipelinedArgs {
  int M, N, K;
  // Operands: element (i, kk) of A at A[kk + i * lda] when K-major, else A[i + kk * lda]; of batch
  // item z at A + z * stride_a (likewise B with (kk, j)). 32-bit: the host refuses operands whose
  // copy offsets could reach 2^31 (simt_reject), so the per-thread offsets stay 32-bit registers.
  // kEpiPacked uses K and N, and holds alpha and beta here, as the kernel of old did (their bits).
  int lda, ldb;
  const float* A;
  const float* B;
  float* D;          // row-major, ldd between rows (StoreArgs), batch item z at D + z * stride_d
  int k_per_split;   // multiple of BK; == K rounded up when not splitting
  float* partial;    // split-K: [batch][splits][M][N] raw sums; nullptr: the epilogue writes D
  int group_m;       // rasterisation: tiles are visited in groups of group_m tile rows; 0 = row by row
  bool c_vec;        // every row of what store_tile writes (D or partial) and reads (C) is 16-byte
                     // aligned and N % 4 == 0: float4 epilogue
  StreamKTail tail;         // tail.tiles == 0: every block multiplies a whole tile (or split-K slice)
  float* tail_partials;     // [tail.slots()][BM * BN]: sums of the pieces that do not finish their tile
  unsigned* tail_arrivals;  // [tail.tiles]: pieces of each tail tile stored so far; zero between launches
  int stride_a, stride_b;
};

// C (row-major, ldc; batch item z at C + z * stride_c) is read when beta != 0; it may be D. When the
// problem reads no C, the host points C at D (never read) rather than at null.
struct StoreArgs {
  const float* C;
  std::int64_t ldd, ldc, stride_d, stride_c;
  epi::Params epi;  // alpha and beta (values or device pointers); kEpiFused: the bias and activation
};
static_assert(sizeof(PipelinedArgs) <= 128 && sizeof(StoreArgs) <= 128, "kernel argument structs of at most 128 bytes");
static_assert(offsetof(PipelinedArgs, lda) == 12 && offsetof(PipelinedArgs, A) == 24 && offsetof(PipelinedArgs, D) == 40 &&
                  offsetof(PipelinedArgs, k_per_split) == 48 && offsetof(PipelinedArgs, partial) == 56 &&
                  offsetof(PipelinedArgs, group_m) == 64 && offsetof(PipelinedArgs, tail) == 72 &&
                  offsetof(PipelinedArgs, stride_a) == 104,
              "the ladder kernel's argument offsets");

// A_COPY, B_COPY: CopyPath of each operand (kEpiPacked: K-major A, N-major B). EPI: EpiKind. TAIL:
// the stream-K tail kernel is compiled (and the whole-tile kernel lets it launch early).
template <int WARPS_M, int WARPS_N, int BK, int STAGES, int TM, int A_COPY, int B_COPY, int EPI, bool TAIL>
struct PipelinedConfig {
  static constexpr int kWarpsM = WARPS_M, kWarpsN = WARPS_N, kBK = BK, kStages = STAGES, kTM = TM;
  static constexpr int kACopy = A_COPY, kBCopy = B_COPY;
  static constexpr int kEpi = EPI;
  static_assert(EPI != kEpiPacked || (A_COPY == kTransposed && B_COPY != kTransposed), "packed problems are NN");
  static constexpr int WM = 4 * TM;  // warp tile rows
  static constexpr int BM = WM * WARPS_M, BN = 64 * WARPS_N;
  static constexpr int kThreads = 32 * WARPS_M * WARPS_N;
  static constexpr int A_PITCH = BM + 4;
  // A K-major B tile is transposed on the way in, as A's is: its 4 floats of padding per k row let
  // the 32 lanes of a warp (8 k of 4 columns) write 32 different banks. An N-major one is stored as
  // it comes, rows of BN floats.
  static constexpr int B_PITCH = B_COPY == kTransposed ? BN + 4 : BN;
  static constexpr int A_STAGE = BK * A_PITCH, B_STAGE = BK * B_PITCH;  // floats per stage
  static constexpr std::size_t kSmemBytes = std::size_t(STAGES) * (A_STAGE + B_STAGE) * sizeof(float);
  // Resident blocks the register budget is planned for (TM = 16 needs ~200 registers a thread). Four
  // blocks of 64 threads still allow 255 registers a thread, and make the 8 warps the model counts
  // as an SM's full rate (simt.cu, kSaturatingWarps).
  static constexpr int kMinBlocks =
      TM == 16 ? (kThreads >= 256 ? 1 : 2) : kThreads >= 512 ? 1 : kThreads >= 256 ? 2 : kThreads >= 128 ? 3 : 4;
  // The stream-K tail suits the configurations that fill an SM with one block (16-row thread
  // tiles, 256 threads), where a partial last wave idles whole SMs. (In the 128-thread ones its code
  // costs registers: 30 more with 8-row tiles, a spill with 16-row tiles and 4-byte B copies.)
  // It is compiled where TAIL asks for it: the configurations that may run it.
  static constexpr bool kStreamK = TAIL;
  static_assert(!TAIL || (TM == 16 && kThreads >= 256), "the stream-K tail is for one-block-per-SM configurations");
  // Three choices of multiply_tile's inner loop, all made by measurement on the H100
  // (docs/kernels/fp32-ladder.md, "Register banks and the inner loop"). All change
  // which registers ptxas assigns, and FMAs whose register-file reads fall in one bank (all even or
  // all odd, none from the reuse cache) are what these loops lose time to:
  // - kCrossBarrier: tile t + 1's barrier and first fragment loads before the last k of tile t.
  //   It made 64x128 (8x8, 128 threads) much faster, but it needs registers: under the 128-register
  //   budget of two 256-thread blocks (or one of 512) ptxas paid with bank conflicts (ten times the
  //   one-bank FMAs), and 128x128 (8x8) ran slower. So: only where a thread has ~170 registers or more.
  // - kSnakeOrder: every other FMA column bottom-up. A small gain for 128x256 (16x8); for 8-row
  //   tiles it tripled the one-bank FMAs of 64x128, which ran slower.
  static constexpr bool kCrossBarrier = kThreads * kMinBlocks <= 384;
  static constexpr bool kSnakeOrder = TM == 16;
  // - kPermutedOrder: the FMAs of one k in a searched order (multiply_tile). 128-row tiles with
  //   16-row thread tiles only: with 256-row tiles the stream-K tail kernel spilled 16 bytes.
  static constexpr bool kPermutedOrder = TM == 16 && BM == 128;
  static_assert(TM == 8 || TM == 16, "thread tiles of 8 or 16 rows");
  static_assert(BK % 8 == 0, "BK must be a multiple of 8");
  // Each copy path divides its tile evenly among the threads (multiply_tile's comments).
  static_assert(A_COPY != kTransposed || (BM % (kThreads / 8) == 0 && BM / (kThreads / 8) <= 32),
                "A K-major: passes of kThreads / 8 rows");
  static_assert(A_COPY != kDirect4 || (kThreads % BM == 0 && BK % (kThreads / BM) == 0), "A M-major, 4-byte copies");
  static_assert(A_COPY != kDirect16 || (kThreads % (BM / 4) == 0 && BK % (kThreads / (BM / 4)) == 0),
                "A M-major, 16-byte copies");
  static_assert(B_COPY != kTransposed || (BN % (kThreads / 8) == 0 && BN / (kThreads / 8) <= 32),
                "B K-major: passes of kThreads / 8 columns");
  static_assert(B_COPY == kTransposed || (BK * BN / (B_COPY == kDirect16 ? 4 : 1)) % kThreads == 0,
                "B N-major: tile loads must divide evenly");
  static_assert((BM * BK) % kThreads == 0, "tile loads must divide evenly");
};

// Tile coordinates of tile number `tile`, with optional grouping so that consecutive blocks share
// tiles of B (and of A within a group): better L2 reuse than plain row-by-row order.
__device__ __forceinline__ void tile_coords(int tile, int tiles_m, int tiles_n, int group_m, int& tm, int& tn) {
  if (group_m <= 0) {
    tm = tile / tiles_n;
    tn = tile % tiles_n;
    return;
  }
  const int per_group = group_m * tiles_n;
  const int first_m = (tile / per_group) * group_m;
  const int rows = min(tiles_m - first_m, group_m);
  tm = first_m + (tile % per_group) % rows;
  tn = (tile % per_group) / rows;
}

// acc = A[row0 .., k_begin .. k_end) x B[k_begin .. k_end), col0 ..] for this thread's outputs of
// the tile at (row0, col0) of batch item `item`. Returns with every copy landed; the caller
// synchronises before the next call reuses shared memory.
template <class Cfg, bool kInTail = false>
__device__ __forceinline__ void multiply_tile(const PipelinedArgs& p, float* smem, int row0, int col0, int k_begin,
                                              int k_end, int item, float (&acc)[Cfg::kTM][8]) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::kBK, STAGES = Cfg::kStages, THREADS = Cfg::kThreads;
  float* As = smem;                          // [STAGES][BK][A_PITCH]
  float* Bs = smem + STAGES * Cfg::A_STAGE;  // [STAGES][BK][B_PITCH]
  const int tiles_k = k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;
  // kEpiPacked: the code of old (lda = K, ldb = N, one item).
  constexpr bool PACKED = Cfg::kEpi == kEpiPacked;
  const int lda = PACKED ? p.K : p.lda, ldb = PACKED ? p.N : p.ldb;
  if constexpr (PACKED) item = 0;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  constexpr int TM = Cfg::kTM;
  const int wm = (warp / Cfg::kWarpsN) * Cfg::WM, wn = (warp % Cfg::kWarpsN) * 64;
  const int lm = (lane / 8) * 4, ln = (lane % 8) * 4;
  // Per-thread copy coordinates, fixed for the whole K loop (32-bit offsets: the host refuses
  // operands whose offsets could reach 2^31, and 32-bit arithmetic keeps the register count down).
  // The batch item's offset is part of them.
  //
  // A K-major (kTransposed): lanes take 8 consecutive k of 4 rows (32-byte global pieces, 32
  // distinct banks in As: the pitch is 4 mod 32).
  // A M-major (kDirect4 / kDirect16): lanes run along m, 1 or 4 floats each, and a warp covers 128
  // or 512 contiguous bytes of one k row (two k rows of a 64-row tile); its shared stores are as
  // contiguous as its loads, so conflict-free. A 16-byte piece that straddles M copies only its
  // elements inside the matrix (src-size 4, 8 or 12: cp.async zero-fills the rest).
  constexpr bool A_T = Cfg::kACopy == kTransposed;
  constexpr int A_W = Cfg::kACopy == kDirect16 ? 4 : 1;    // floats per copy
  constexpr int A_LANES = A_T ? 8 : BM / A_W;              // threads along the contiguous index
  constexpr int A_LINES = THREADS / A_LANES;               // rows (K-major) or k rows (M-major) per pass
  constexpr int A_ROWS_PER_PASS = A_LINES, A_PASSES = A_T ? BM / A_LINES : BK / A_LINES;
  constexpr int A_ITERS = BM * BK / A_W / THREADS;
  const int a_m = A_T ? threadIdx.x / 8 : (threadIdx.x % A_LANES) * A_W;
  const int a_k = A_T ? threadIdx.x % 8 : threadIdx.x / A_LANES;
  const int a_row_step = A_ROWS_PER_PASS * lda;  // K-major: A_LINES rows; M-major: A_LINES k rows
  unsigned a_rows_ok = 0;  // K-major: bit j: row a_m + j * A_ROWS_PER_PASS exists
  if constexpr (A_T) {
#pragma unroll
    for (int j = 0; j < A_PASSES; ++j)
      if (row0 + a_m + j * A_ROWS_PER_PASS < p.M) a_rows_ok |= 1u << j;
  }
  const int a_off = (PACKED ? 0 : item * p.stride_a) + (A_T ? (row0 + a_m) * lda + a_k : a_k * lda + row0 + a_m);
  // M-major: the bytes of this thread's piece inside the matrix (0 past M).
  const int a_bytes = A_T ? 4 : 4 * max(0, min(A_W, p.M - (row0 + a_m)));
  //
  // B N-major (kDirect16 / kDirect4): 16-byte pieces along rows (or 4-byte ones when rows are not
  // 16-byte aligned). A row of more pieces than the block has threads (4-byte pieces of 128 columns
  // with 64 threads) is copied in B_CHUNKS passes of THREADS pieces.
  // B K-major (kTransposed): as A K-major, lanes take 8 consecutive k of 4 columns, and the tile's
  // pitch of BN + 4 makes their 32 shared stores hit 32 banks.
  constexpr bool B_T = Cfg::kBCopy == kTransposed;
  constexpr int B_W = Cfg::kBCopy == kDirect16 ? 4 : 1;     // floats per copy
  constexpr int B_PIECES = B_T ? 8 : BN / B_W;  // K-major: lanes along k
  constexpr int B_CHUNKS = B_PIECES > THREADS ? B_PIECES / THREADS : 1, B_PER_ROW = B_PIECES / B_CHUNKS;
  constexpr int B_ROWS_PER_PASS = THREADS / B_PER_ROW;  // K-major: columns per pass
  constexpr int B_PASSES = BN / B_ROWS_PER_PASS;        // K-major only
  constexpr int B_ITERS = BK * BN / B_W / THREADS;
  static_assert(B_PIECES % B_CHUNKS == 0 && B_PER_ROW <= THREADS, "B N-major: whole rows a pass, or whole chunks of one");
  const int b_k = B_T ? threadIdx.x % 8 : threadIdx.x / B_PER_ROW;
  const int b_n = B_T ? threadIdx.x / 8 : (threadIdx.x % B_PER_ROW) * B_W;
  const bool b_col_ok = col0 + b_n < p.N;
  unsigned b_cols_ok = 0;  // K-major: bit j: column b_n + j * B_ROWS_PER_PASS exists
  if constexpr (B_T) {
#pragma unroll
    for (int j = 0; j < B_PASSES; ++j)
      if (col0 + b_n + j * B_ROWS_PER_PASS < p.N) b_cols_ok |= 1u << j;
  }
  const int b_col_step = B_ROWS_PER_PASS * ldb;  // K-major only
  const int b_off = (PACKED ? 0 : item * p.stride_b) + (B_T ? (col0 + b_n) * ldb + b_k : b_k * ldb + col0 + b_n);

  auto load_stage = [&](int slot, int k0) {
    float* as = As + slot * Cfg::A_STAGE + a_k * Cfg::A_PITCH + a_m;
    float* bs = Bs + slot * Cfg::B_STAGE + b_k * Cfg::B_PITCH + b_n;
    if constexpr (A_T) {
#pragma unroll
      for (int i = 0; i < A_ITERS; ++i) {
        const int j = i % A_PASSES, kh = i / A_PASSES;  // row pass and 8-deep k half
        const bool ok = ((a_rows_ok >> j) & 1u) && k0 + kh * 8 + a_k < k_end;
        const float* src = p.A + (ok ? a_off + j * a_row_step + k0 + kh * 8 : 0);
        dev::cp_async<4>(as + kh * 8 * Cfg::A_PITCH + j * A_ROWS_PER_PASS, src, ok ? 4 : 0);
      }
    } else {
#pragma unroll
      for (int i = 0; i < A_ITERS; ++i) {  // k pass i: k row a_k + i * A_LINES of the tile
        const bool ok = a_bytes > 0 && k0 + a_k + i * A_LINES < k_end;
        const float* src = p.A + (ok ? a_off + i * a_row_step + k0 * lda : 0);
        dev::cp_async<4 * A_W>(as + i * A_LINES * Cfg::A_PITCH, src, ok ? a_bytes : 0);
      }
    }
    if constexpr (B_T) {
#pragma unroll
      for (int i = 0; i < B_ITERS; ++i) {
        const int j = i % B_PASSES, kh = i / B_PASSES;  // column pass and 8-deep k half
        const bool ok = ((b_cols_ok >> j) & 1u) && k0 + kh * 8 + b_k < k_end;
        const float* src = p.B + (ok ? b_off + j * b_col_step + k0 + kh * 8 : 0);
        dev::cp_async<4>(bs + kh * 8 * Cfg::B_PITCH + j * B_ROWS_PER_PASS, src, ok ? 4 : 0);
      }
    } else {
#pragma unroll
      for (int i = 0; i < B_ITERS; ++i) {
        const int c = i % B_CHUNKS, kr = i / B_CHUNKS, cn = c * B_PER_ROW * B_W;  // chunk, k pass, its column offset
        const bool col_ok = c == 0 ? b_col_ok : col0 + b_n + cn < p.N;
        const bool ok = col_ok && k0 + b_k + kr * B_ROWS_PER_PASS < k_end;
        const float* src = p.B + (ok ? b_off + (k0 + kr * B_ROWS_PER_PASS) * ldb + cn : 0);
        dev::cp_async<4 * B_W>(bs + kr * B_ROWS_PER_PASS * Cfg::B_PITCH + cn, src, ok ? 4 * B_W : 0);
      }
    }
  };

#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles_k) load_stage(s, k_begin + s * BK);
    dev::cp_async_commit();  // empty groups too: keeps the group count in step with the tiles
  }
  // Makes tile t visible to every thread and starts the copies of tile t + STAGES - 1 into the slot
  // of tile t - 1, whose last reads every thread issued before this barrier.
  auto next_tile = [&](int t) {
    dev::cp_async_wait<STAGES - 2>();  // tile t has landed (for this thread's copies) ...
    __syncthreads();                   // ... for everyone's, and everyone is done reading tile t - 1
    const int next = t + STAGES - 1;
    if (next < tiles_k) load_stage(next % STAGES, k_begin + next * BK);
    dev::cp_async_commit();
  };
  const float* const a_frag = As + wm + lm;  // this thread's fragments in slot 0
  const float* const b_frag = Bs + wn + ln;
  // The FMAs of one k, in both loops below: column by column (j outer), so that consecutive FMAs
  // share b[j] through the operand reuse cache. Row by row, b[j] and acc[i][j] are same-parity
  // registers (both come in aligned quads: LDS.128 and the float4 epilogue), which ran slower on
  // the H100 (docs/kernels/fp32-ladder.md, "Column-major FMA order"). kSnakeOrder runs every other
  // column bottom-up, so that a[i] can be shared across the column change too. ptxas reorders the
  // FMAs and assigns the registers either way, so the two loops are kept as measured.
  if constexpr (Cfg::kCrossBarrier) {
    // Tile t + 1's barrier comes before the last k of tile t, and its first fragments load while
    // that k's FMAs issue: no warp waits out a shared-load latency after the barrier. The loads of
    // k + 1 go one float4 after each FMA column. After the last tile the barrier still comes and the
    // fragments load from a stale slot, unused: one loop body without a branch (with a branch
    // between the two kinds of load, ptxas bunched the shared loads of every k with 4-cycle stalls,
    // and 128x256 ran slower: docs/kernels/fp32-ladder.md, "Cross-barrier prefetch").
    float a[2][TM], b[2][8];
    // Piece q of the fragments of k in slot `slot`: q < TM / 4 a float4 of A, then two of B.
    constexpr int PIECES = TM / 4 + 2;
    auto load_piece = [&](int buf, int slot, int k, int q) {
      const float* as = a_frag + slot * Cfg::A_STAGE + k * Cfg::A_PITCH;
      const float* bs = b_frag + slot * Cfg::B_STAGE + k * Cfg::B_PITCH;
      if (q < TM / 4)
        *reinterpret_cast<float4*>(&a[buf][4 * q]) = *reinterpret_cast<const float4*>(as + 16 * q);
      else
        *reinterpret_cast<float4*>(&b[buf][4 * (q - TM / 4)]) = *reinterpret_cast<const float4*>(bs + 32 * (q - TM / 4));
    };
    auto load_frag = [&](int buf, int slot, int k) {
#pragma unroll
      for (int q = 0; q < PIECES; ++q) load_piece(buf, slot, k, q);
    };
    if (tiles_k > 0) {
      next_tile(0);
      load_frag(0, 0, 0);
    }
    for (int t = 0, slot = 0; t < tiles_k; ++t) {
      const int next_slot = slot + 1 < STAGES ? slot + 1 : 0;
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        if (k + 1 == BK) next_tile(t + 1);
        const int ks = k + 1 < BK ? slot : next_slot, kn = (k + 1) % BK;  // BK is even: set 0 next
        // The FMA order with kPermutedOrder: columns in a fixed order (n ^ 1 in step n), and a fixed
        // permutation of the rows. It was chosen among several hundred orders by the register-file read
        // cycles they compiled to (an FMA whose register-file reads fall in one bank costs one cycle
        // more per extra read; scripts/device/ffma_banks.py): fewer extra cycles per k tile than the
        // plain order, and faster on the H100 (docs/kernels/fp32-ladder.md, "Register-file read
        // cycles and a searched FMA order"). The arrays are local on purpose: the same order
        // through a constexpr function compiled to more extra cycles. Other configurations keep the
        // plain order.
        // The stream-K tail kernel (kInTail) has an order of its own: compiled there, the one above
        // had ptxas issue six shared loads back to back in most k steps instead of spreading them
        // between the FMAs, and the tail ran slower (docs/kernels/fp32-ladder.md, section 8).
#pragma unroll
        for (int n = 0; n < 8; ++n) {
#pragma unroll
          for (int ii = 0; ii < TM; ++ii) {
            constexpr int columns[8] = {1, 0, 3, 2, 5, 4, 7, 6};
            constexpr int tail_columns[8] = {0, 4, 1, 5, 2, 6, 3, 7};
            const int j = Cfg::kPermutedOrder ? (kInTail ? tail_columns[n] : columns[n]) : n;
            const int i0 = Cfg::kSnakeOrder && n % 2 ? TM - 1 - ii : ii;
            constexpr int rows[16] = {13, 12, 15, 14, 5, 4, 7, 6, 9, 8, 11, 10, 1, 0, 3, 2};
            constexpr int tail_rows[16] = {6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1};
            const int i = Cfg::kPermutedOrder ? (kInTail ? tail_rows[i0] : rows[i0]) : i0;
            acc[i][j] += a[k & 1][i] * b[k & 1][j];
          }
          if (n < PIECES) load_piece((k + 1) & 1, ks, kn, n);
        }
      }
      slot = next_slot;
    }
  } else {
    // Each tile: the barrier, the first fragments (whose latency the first FMAs wait out), then k
    // by k, the fragments of k + 1 loading while the FMAs of k issue. This loop has its own
    // fragment loads on purpose: built on load_piece above, the 128x128 (8x8, 4 stages) loop
    // compiled to 109 one-bank FMAs per k tile instead of 10.
    for (int t = 0; t < tiles_k; ++t) {
      next_tile(t);
      const float* as = a_frag + (t % STAGES) * Cfg::A_STAGE;
      const float* bs = b_frag + (t % STAGES) * Cfg::B_STAGE;
      float a[2][TM], b[2][8];
      auto load_frag = [&](int buf, int k) {
#pragma unroll
        for (int g = 0; g < TM / 4; ++g)
          *reinterpret_cast<float4*>(&a[buf][4 * g]) = *reinterpret_cast<const float4*>(as + k * Cfg::A_PITCH + 16 * g);
        *reinterpret_cast<float4*>(&b[buf][0]) = *reinterpret_cast<const float4*>(bs + k * Cfg::B_PITCH);
        *reinterpret_cast<float4*>(&b[buf][4]) = *reinterpret_cast<const float4*>(bs + k * Cfg::B_PITCH + 32);
      };
      load_frag(0, 0);
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        if (k + 1 < BK) load_frag((k + 1) & 1, k + 1);
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
          for (int i = 0; i < TM; ++i) acc[i][j] += a[k & 1][i] * b[k & 1][j];
      }
    }
  }
  dev::cp_async_wait<0>();
}

// Writes this thread's outputs of the tile at (row0, col0) of batch item `item` from its registers:
// D = alpha * acc + beta * C (kEpiFused: the bias and activation too, as epi::finish computes them,
// as every library kernel applies them), or with split-K the raw sums into this slice's plane of
// the workspace. alpha and beta are read here, after the main loop, not kept in registers through
// it. It serves the packed epilogue, and the general ones in the stream-K tail kernel; the
// whole-tile kernel's general epilogues go through shared memory (store_tile_staged), which in the
// tail kernel (254 registers) spilled.
template <class Cfg>
__device__ __forceinline__ void store_tile(const PipelinedArgs& p, const StoreArgs& o, const float (&acc)[Cfg::kTM][8],
                                           int row0, int col0, int item) {
  constexpr int TM = Cfg::kTM;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / Cfg::kWarpsN) * Cfg::WM, wn = (warp % Cfg::kWarpsN) * 64;
  const int lm = (lane / 8) * 4, ln = (lane % 8) * 4;
  const bool vec_out = p.c_vec;
  if constexpr (Cfg::kEpi == kEpiPacked) {
    // The ladder kernel's epilogue of old, as it was (C = D, packed rows; alpha and beta in lda/ldb).
    const float alpha = __int_as_float(p.lda), beta = __int_as_float(p.ldb);
    float* out_base = p.partial ? p.partial + std::size_t(blockIdx.z) * p.M * p.N : p.D;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = row0 + wm + lm + (i / 4) * 16 + i % 4;
      if (r >= p.M) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int c = col0 + wn + ln + 32 * h;
        if (c >= p.N) continue;
        float* out = out_base + std::size_t(r) * p.N + c;
        if (p.partial) {
          if (vec_out) {
            *reinterpret_cast<float4*>(out) = make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
              if (c + j < p.N) out[j] = acc[i][4 * h + j];
          }
        } else if (vec_out) {
          dev::epilogue4(out, acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3], alpha, beta);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (c + j < p.N) out[j] = dev::epilogue(acc[i][4 * h + j], alpha, beta, &out[j]);
        }
      }
    }
  } else {
    const epi::Scalars s = epi::scalars(o.epi);
    // Split-K: plane (item, slice) of the [batch][splits][M][N] workspace. Else D, and C beside it.
    float* const out_base = p.partial ? p.partial + (std::size_t(item) * gridDim.z + blockIdx.z) * std::size_t(p.M) * p.N
                                      : p.D + std::int64_t(item) * o.stride_d;
    const std::int64_t ld_out = p.partial ? std::int64_t(p.N) : o.ldd;
    const float* const in_base = o.C + std::int64_t(item) * o.stride_c;
    // The tile's stores, with the activation in form kExp (epi::with_activation_form): the fused
    // kernel branches on the activation once a tile, not once a value, so that the unrolled code of
    // its 128 values holds one activation's instructions, not every activation's. The bias is read
    // value by value: 8 per-column values held through the stores spilled here.
    auto store = [&](auto kExp, const epi::ActForm& form) {
      // One value, as epi::finish computes it, the activation in its form.
      auto finish = [&](float sum, float c_value, float bias) {
        float v = s.alpha * sum;
        if (s.beta != 0.0f) v += s.beta * c_value;
        return epi::activate_form<decltype(kExp)::value>(v + bias, form);
      };
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int r = row0 + wm + lm + (i / 4) * 16 + i % 4;
        if (r >= p.M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int c = col0 + wn + ln + 32 * h;
          if (c >= p.N) continue;
          float* const out = out_base + r * ld_out + c;
          const float* const in = in_base + r * o.ldc + c;
          const float* const a = &acc[i][4 * h];
          if (p.partial) {
            if (vec_out) {
              *reinterpret_cast<float4*>(out) = make_float4(a[0], a[1], a[2], a[3]);
            } else {
#pragma unroll
              for (int j = 0; j < 4; ++j)
                if (c + j < p.N) out[j] = a[j];
            }
          } else if constexpr (Cfg::kEpi == kEpiFused) {
            if (vec_out) {
              float cv[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // C's four values, read only when beta != 0
              if (s.beta != 0.0f) {
                const float4 v = *reinterpret_cast<const float4*>(in);
                cv[0] = v.x, cv[1] = v.y, cv[2] = v.z, cv[3] = v.w;
              }
              float v[4];
#pragma unroll
              for (int j = 0; j < 4; ++j)
                v[j] = finish(a[j], cv[j], epi::bias_at<float>(o.epi, item, r, c + j));
              *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
              for (int j = 0; j < 4; ++j)
                if (c + j < p.N)
                  out[j] = finish(a[j], s.beta != 0.0f ? in[j] : 0.0f, epi::bias_at<float>(o.epi, item, r, c + j));
            }
          } else if (vec_out) {
            // dev::epilogue4's arithmetic, with C read from its own row.
            float4 v = make_float4(s.alpha * a[0], s.alpha * a[1], s.alpha * a[2], s.alpha * a[3]);
            if (s.beta != 0.0f) {
              const float4 x = *reinterpret_cast<const float4*>(in);
              v.x += s.beta * x.x, v.y += s.beta * x.y, v.z += s.beta * x.z, v.w += s.beta * x.w;
            }
            *reinterpret_cast<float4*>(out) = v;
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
              if (c + j < p.N) out[j] = dev::epilogue(a[j], s.alpha, s.beta, in + j);
          }
        }
      }
    };
    if constexpr (Cfg::kEpi == kEpiFused) {
      if (!p.partial) {
        epi::with_activation_form(o.epi.act, store);
        return;
      }
    }
    store(std::false_type{}, epi::ActForm{});
  }
}

// kEpiPlain and kEpiFused in the whole-tile kernel: store_tile's work through shared memory. The
// tile's sums go to shared memory half a tile at a time (BM / 2 rows of BN floats), and the block
// then writes D from there row by row, each thread the same 4 columns in every row, in a loop that
// is not unrolled. The main loop's accumulators are dead once stored, so the general epilogue
// (batch offsets, ldd, C apart from D, scalars through pointers, bias, activation) adds no register
// pressure to the kernel: with it unrolled over the accumulators, ptxas compiled the 128x256 main
// loop with its shared loads bunched back to back instead of spread between the FMAs, and the
// whole tiles ran slower than the packed kernel's (docs/kernels/fp32-ladder.md, "The general
// epilogues through shared memory"). The split-K slices' raw sums (p.partial) leave the same way.
template <class Cfg>
__device__ __forceinline__ void store_tile_staged(const PipelinedArgs& p, const StoreArgs& o,
                                                  const float (&acc)[Cfg::kTM][8], float* smem, int row0, int col0,
                                                  int item) {
  constexpr int TM = Cfg::kTM, BM = Cfg::BM, BN = Cfg::BN, THREADS = Cfg::kThreads, HALF = BM / 2;
  constexpr int QUADS = BN / 4, ROWS = THREADS / QUADS;  // a row's float4s; rows a step
  static_assert(THREADS % QUADS == 0 && HALF % ROWS == 0, "whole rows a step, whole steps a half");
  static_assert(std::size_t(HALF) * BN * sizeof(float) <= Cfg::kSmemBytes, "half a tile fits the pipeline's shared memory");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / Cfg::kWarpsN) * Cfg::WM, wn = (warp % Cfg::kWarpsN) * 64;
  const int lm = (lane / 8) * 4, ln = (lane % 8) * 4;
  // This thread's 4 columns in every row it writes, and its first row of a half.
  const int tc = (threadIdx.x % QUADS) * 4, tr = threadIdx.x / QUADS;
  const int c = col0 + tc;
  const bool vec_out = p.c_vec;
  const epi::Scalars s = epi::scalars(o.epi);
  // Split-K: plane (item, slice) of the [batch][splits][M][N] workspace. Else D, and C beside it.
  float* const out_base = p.partial ? p.partial + (std::size_t(item) * gridDim.z + blockIdx.z) * std::size_t(p.M) * p.N
                                    : p.D + std::int64_t(item) * o.stride_d;
  const std::int64_t ld_out = p.partial ? std::int64_t(p.N) : o.ldd;
  const float* const in_base = o.C + std::int64_t(item) * o.stride_c;
  const bool per_row = Cfg::kEpi == kEpiFused && o.epi.bias_kind == epi::kPerRow;
  float col_bias[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if constexpr (Cfg::kEpi == kEpiFused) {
    if (o.epi.bias_kind == epi::kPerColumn) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (c + j < p.N) col_bias[j] = epi::bias_at<float>(o.epi, item, 0, c + j);
    }
  }
  auto halves = [&](auto kExp, const epi::ActForm& form) {
    // One value: epi::finish's arithmetic, the activation in its form.
    auto finish = [&](float sum, float c_value, float bias) {
      float v = s.alpha * sum;
      if (s.beta != 0.0f) v += s.beta * c_value;
      return Cfg::kEpi == kEpiFused ? epi::activate_form<decltype(kExp)::value>(v + bias, form) : v;
    };
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      __syncthreads();  // every warp is done with the pipeline's stages (q = 0) or with half 0 (q = 1)
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int r = wm + lm + (i / 4) * 16 + i % 4;  // row in the tile
        if (r / HALF != q) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *reinterpret_cast<float4*>(smem + (r - q * HALF) * BN + wn + ln + 32 * h) =
              make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
      }
      __syncthreads();
#pragma unroll 1
      for (int rt = tr; rt < HALF; rt += ROWS) {
        const int r = row0 + q * HALF + rt;
        if (r >= p.M || c >= p.N) continue;
        const float4 a4 = *reinterpret_cast<const float4*>(smem + rt * BN + tc);
        const float a[4] = {a4.x, a4.y, a4.z, a4.w};
        float* const out = out_base + r * ld_out + c;
        if (p.partial) {
          if (vec_out) {
            *reinterpret_cast<float4*>(out) = a4;
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
              if (c + j < p.N) out[j] = a[j];
          }
          continue;
        }
        const float* const in = in_base + r * o.ldc + c;
        const float row_bias = per_row ? epi::bias_at<float>(o.epi, item, r, 0) : 0.0f;
        if (vec_out) {
          float4 cv = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // C, read only when beta != 0
          if (s.beta != 0.0f) cv = *reinterpret_cast<const float4*>(in);
          *reinterpret_cast<float4*>(out) =
              make_float4(finish(a[0], cv.x, per_row ? row_bias : col_bias[0]), finish(a[1], cv.y, per_row ? row_bias : col_bias[1]),
                          finish(a[2], cv.z, per_row ? row_bias : col_bias[2]), finish(a[3], cv.w, per_row ? row_bias : col_bias[3]));
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (c + j < p.N) out[j] = finish(a[j], s.beta != 0.0f ? in[j] : 0.0f, per_row ? row_bias : col_bias[j]);
        }
      }
    }
  };
  if constexpr (Cfg::kEpi == kEpiFused)
    epi::with_activation_form(o.epi.act, halves);
  else
    halves(std::false_type{}, epi::ActForm{});
}

// Stream-K tail: acc holds this block's piece (block b of the tail) of tail tile t. Returns true
// when acc then holds the whole tile's sums and the caller writes C: at once when the piece is the
// tile's only one. Otherwise every piece stores its sums to its slot and counts itself in, and the
// piece that arrives last adds all the slots, its own included, in piece order: the result does not
// depend on which piece that is, and acc is free while the sums are formed (adding the own piece
// from registers instead keeps two sets of 4 x TM x 2 values live, and ptxas spills). A slot holds
// each thread's quads at [q][thread]: coalesced float4 stores, and the block that adds them back has
// the same threads at the same outputs.
template <class Cfg>
__device__ __forceinline__ bool finish_piece(const PipelinedArgs& p, int b, int t, float (&acc)[Cfg::kTM][8]) {
  constexpr int TM = Cfg::kTM, QUADS = 2 * TM, THREADS = Cfg::kThreads;
  constexpr std::size_t SLOT = std::size_t(Cfg::BM) * Cfg::BN / 4;  // float4s per slot
  const StreamKTail& tail = p.tail;
  const int first = tail.first_block(t), pieces = tail.pieces(t);
  if (pieces == 1) return true;
  float4* const slots = reinterpret_cast<float4*>(p.tail_partials) + threadIdx.x;
  float4* const mine = slots + std::size_t(tail.slot(b, t)) * SLOT;
#pragma unroll
  for (int q = 0; q < QUADS; ++q)
    mine[q * THREADS] = make_float4(acc[q / 2][4 * (q % 2)], acc[q / 2][4 * (q % 2) + 1], acc[q / 2][4 * (q % 2) + 2],
                                    acc[q / 2][4 * (q % 2) + 3]);
  // Release: this block's sums reach L2 before its arrival is counted.
  __threadfence();
  __syncthreads();
  bool last = false;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&p.tail_arrivals[t], 1u) + 1 == unsigned(pieces);
    if (last) p.tail_arrivals[t] = 0;  // every piece has arrived: ready for the next launch
    __threadfence();                   // acquire: the other pieces' sums, read below
  }
  // A barrier that also hands thread 0's answer to every thread: no __shared__ flag, so the tiles'
  // dynamic shared memory starts at offset 0 as in the whole-tile kernel.
  if (!__syncthreads_or(last)) return false;
  // The pieces of a tile have consecutive blocks and one tile, so consecutive slots. Piece by piece,
  // all of a piece's loads at once (one dependent load after another would wait out the L2 latency
  // 2 x TM times per piece). .cg: from L2, where the other blocks' sums are, not from this SM's L1.
  const float4* piece = slots + std::size_t(tail.slot(first, t)) * SLOT;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  for (int j = 0; j < pieces; ++j, piece += SLOT) {
#pragma unroll
    for (int q = 0; q < QUADS; ++q) {
      const float4 v = __ldcg(piece + q * THREADS);
      float* const a = &acc[q / 2][4 * (q % 2)];
      a[0] += v.x, a[1] += v.y, a[2] += v.z, a[3] += v.w;
    }
  }
  return true;
}

// One block per tile, or per split-K slice of one (blockIdx.z). With a stream-K tail, the grid
// holds the whole tiles only, and pipelined_tail_gemm follows it.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) pipelined_gemm(PipelinedArgs p, StoreArgs o) {
  extern __shared__ __align__(16) float smem[];
  // Then the stream-K tail kernel that may follow, which writes other tiles of C and reads nothing
  // this grid writes, may start as soon as every block of this grid has started (launch_pipelined).
  dev::start_in_stream_order();
  const int tiles_m = (p.M + Cfg::BM - 1) / Cfg::BM, tiles_n = (p.N + Cfg::BN - 1) / Cfg::BN;
  int tm, tn;
  tile_coords(blockIdx.x, tiles_m, tiles_n, p.group_m, tm, tn);
  const int item = blockIdx.y;  // batch item
  const int k_begin = blockIdx.z * p.k_per_split;
  float acc[Cfg::kTM][8];
  multiply_tile<Cfg>(p, smem, tm * Cfg::BM, tn * Cfg::BN, k_begin, min(p.K, k_begin + p.k_per_split), item, acc);
  if constexpr (Cfg::kEpi == kEpiPacked)
    store_tile<Cfg>(p, o, acc, tm * Cfg::BM, tn * Cfg::BN, item);
  else
    store_tile_staged<Cfg>(p, o, acc, smem, tm * Cfg::BM, tn * Cfg::BN, item);
}

// The stream-K tail, launched after pipelined_gemm on the same stream: block b multiplies its range
// of the tail's k-tiles (stream_k_tail.hpp), piece by piece. A kernel of its own because the piece
// loop and the fix-up change how ptxas compiles the main loop: with both paths in pipelined_gemm,
// its whole tiles ran slower on the H100 (docs/kernels/fp32-ladder.md, step 8).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) pipelined_tail_gemm(PipelinedArgs p, StoreArgs o) {
  extern __shared__ __align__(16) float smem[];
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::kBK;
  const int tiles_m = (p.M + BM - 1) / BM, tiles_n = (p.N + BN - 1) / BN;
  const StreamKTail& tail = p.tail;
  const int b = blockIdx.x;
  // Block b's range of iterations is [begin, end) (32-bit counts, plan_stream_k_tail: fewer
  // registers), and its pieces run from the last to the first. Every piece but the first starts at
  // k-tile 0 of its tile, the first (run last) inside one: so every block multiplies about the same
  // k-tile at the same time (all within k_tiles minus the range length), as the whole tiles do, and
  // reads the A and B panels it shares with the others from L2. In range order, each block would start
  // at a k-tile of its own: at 4096^3 on the H100 the tail then read more DRAM bytes than three
  // whole waves (docs/kernels/fp32-ladder.md, step 8).
  const int begin = int(tail.begin(b));
  float acc[Cfg::kTM][8];
  for (int i = int(tail.begin(b + 1)); i > begin;) {  // the next piece: iterations [i0, i) of tail tile t
    const int t = (i - 1) / tail.k_tiles, i0 = max(begin, t * tail.k_tiles);
    __syncthreads();  // the previous piece has finished reading shared memory
    int tm, tn;
    tile_coords(tail.whole + t, tiles_m, tiles_n, p.group_m, tm, tn);
    multiply_tile<Cfg, true>(p, smem, tm * BM, tn * BN, (i0 - t * tail.k_tiles) * BK,
                             min(p.K, (i - t * tail.k_tiles) * BK), 0, acc);
    if (finish_piece<Cfg>(p, b, t, acc)) store_tile<Cfg>(p, o, acc, tm * BM, tn * BN, 0);
    i = i0;
  }
  // Launched early (programmatic dependent launch), this grid may finish before the whole-tile grid
  // it overlaps: waiting for that grid here makes the tail's end the GEMM's end, so whatever follows
  // on the stream sees all of C. (Without the early launch it has finished already: no wait.)
  dev::wait_for_prerequisite_grid();
}

// Split-K, second pass: D = epilogue(sum of the slices' partial sums), the slices added in order
// (deterministic). blockIdx.y is the batch item; grid-stride over the item's M x N elements.
struct ReduceArgs {
  int M, N, splits;
  const float* partial;  // [batch][splits][M][N]
  float* D;
  const float* C;
  std::int64_t ldd, ldc, stride_d, stride_c;
  epi::Params epi;
};

template <int EPI>
__global__ void splitk_reduce(const ReduceArgs a) {
  dev::start_in_stream_order();
  const std::int64_t total = std::int64_t(a.M) * a.N, step = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= total) return;
  const int item = blockIdx.y;
  const float* const part = a.partial + std::int64_t(item) * a.splits * total;
  float* const d = a.D + std::int64_t(item) * a.stride_d;
  const float* const c = a.C + std::int64_t(item) * a.stride_c;
  const epi::Scalars s = epi::scalars(a.epi);
  // Row and column of element i, stepped along with it: no division per element.
  int r = int(i / a.N), col = int(i % a.N);
  const int step_r = int(step / a.N), step_c = int(step % a.N);
  for (; i < total; i += step) {
    float sum = 0.0f;
    for (int z = 0; z < a.splits; ++z) sum += part[z * total + i];
    float* const out = d + std::int64_t(r) * a.ldd + col;
    const float* const in = c + std::int64_t(r) * a.ldc + col;
    if constexpr (EPI == kEpiFused) *out = epi::finish<float>(a.epi, s, sum, in, epi::bias_at<float>(a.epi, item, r, col));
    else *out = dev::epilogue(sum, s.alpha, s.beta, in);
    r += step_r, col += step_c;
    if (col >= a.N) col -= a.N, ++r;
  }
}

// Host side -------------------------------------------------------------------------------------

// Launches one configuration: the whole tiles (or split-K slices) of every batch item, then the
// stream-K tail if any. The kernels' shared-memory limits were raised beforehand (prepare_pipelined:
// once per device, when the library's Context is made). early_tail: the tail grid is launched with
// programmatic dependent launch, so that its blocks take the SMs the whole-tile grid frees one by
// one, instead of waiting until its last block ends. early_start: the whole-tile grid is launched
// so too, behind the kernel ahead of it on the stream (the library's launches on sm_90,
// detail::KernelLaunch; LaunchConfig).
template <class Cfg>
void launch_pipelined(const PipelinedArgs& a, const StoreArgs& o, unsigned whole_tiles, int batch, int splits, bool early_tail,
                      cudaStream_t s, bool early_start) {
  if (whole_tiles > 0) {
    const LaunchConfig launch(dim3(whole_tiles, unsigned(batch), unsigned(splits)), dim3(Cfg::kThreads), Cfg::kSmemBytes,
                              s, 1, early_start);
    GEMMLAB_CUDA(launch(pipelined_gemm<Cfg>, a, o));
  }
  if constexpr (Cfg::kStreamK) {
    if (a.tail.tiles > 0) {
      const LaunchConfig launch(dim3(unsigned(a.tail.blocks)), dim3(Cfg::kThreads), Cfg::kSmemBytes, s, 1,
                                early_tail && whole_tiles > 0);
      GEMMLAB_CUDA(launch(pipelined_tail_gemm<Cfg>, a, o));
    }
  }
}

// Raises the dynamic shared-memory limit of the configuration's kernels on the current device, and
// returns the blocks of the whole-tile kernel resident on one SM (the occupancy calculator's count:
// registers, shared memory, threads).
template <class Cfg>
int prepare_pipelined() {
  GEMMLAB_CUDA(cudaFuncSetAttribute(pipelined_gemm<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::kSmemBytes)));
  if constexpr (Cfg::kStreamK)
    GEMMLAB_CUDA(cudaFuncSetAttribute(pipelined_tail_gemm<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(Cfg::kSmemBytes)));
  int blocks = 0;
  GEMMLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pipelined_gemm<Cfg>, Cfg::kThreads, Cfg::kSmemBytes));
  return blocks;
}

}  // namespace gemmlab::fp32
