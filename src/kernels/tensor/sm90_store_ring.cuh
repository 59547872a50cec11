// The TMA-store epilogue of the persistent sm_90a kernels: a ring of shared-memory boxes per
// consumer warpgroup that C leaves through, shared by hopper.cuh and hopper_tf32.cuh; and, for a C
// the TMA cannot address, the staged form, whose boxes the threads copy out (copy_box_out).
//
// A warpgroup waits only until the slot it is about to write has been read by the store issued a
// ring earlier, not for every store, so the stores still in flight when a tile's last box is
// written drain while the next tile's main loop runs.
//
// What it buys, measured on the H100 (docs/kernels/tensor-ladder.md, 7.2 and 7.3): by itself,
// nothing. A tile's stores move as many bytes per cycle and SM with FP32 C as with 16-bit C, every
// SM storing at once: a bandwidth limit, then, not the ring's depth. What helps is not waiting for
// the stores: hopper.cuh keeps a tile's last boxes in registers and stores them during the next
// tile's main loop.
//
// Boxes are 64 rows x 128 bytes with TMA's 128-byte swizzle. Writes go in passes of PASS boxes
// (one bulk-async group each): the warpgroup waits for a free pass, writes its boxes, and its
// leader thread issues their stores.
#pragma once

#include <cuda.h>

#include "kernels/tensor/sm90_ptx.cuh"

namespace gemmlab::tc::sm90 {

constexpr int kStoreBoxBytes = 64 * 128;

// Byte offset of (row r, byte b of the row) in a 64 x 128-byte box written with the 128-B swizzle:
// the 16-byte chunk index is XORed with the row's position in its group of 8, which spreads the 8
// rows a warp writes at once over different banks.
__device__ __forceinline__ int swizzle128(int r, int byte) {
  return r * 128 + (((byte >> 4) ^ (r & 7)) << 4) + (byte & 15);
}
// The same in a box of 64-byte rows with the 64-byte swizzle (a 32-column tile of 16-bit D): the
// chunk index (0 to 3) is XORed with bits 1 and 2 of the row, the bits 7 and 8 of its offset.
__device__ __forceinline__ int swizzle64(int r, int byte) {
  return r * 64 + (((byte >> 4) ^ ((r >> 1) & 3)) << 4) + (byte & 15);
}

// A tile is written in TILE_PASSES passes; the ring holds a whole number of passes and divides
// the tile's passes, so that a pass's slot depends only on its index in the tile (no counter to
// carry from tile to tile in scarce registers).
template <int RING, int PASS, int TILE_PASSES>
class StoreRing {
  static_assert(RING % PASS == 0, "the ring holds whole passes");
  static constexpr int kPasses = RING / PASS;
  static_assert(TILE_PASSES % kPasses == 0, "the ring divides the tile");

 public:
  static constexpr int kBytes = RING * kStoreBoxBytes;

  // base: this warpgroup's kBytes of shared memory (1024-byte aligned); barrier: a named barrier of
  // the warpgroup's 128 threads; leader: the one thread that issues and waits for the stores.
  __device__ StoreRing(unsigned char* base, int barrier, bool leader) : base_(base), barrier_(barrier), leader_(leader) {}

  // Waits until the boxes of pass `pass` (0 .. TILE_PASSES - 1) of a tile are free, that is read
  // by the stores issued a ring earlier, and returns the first of them; box b of the pass is at the
  // result + b * kStoreBoxBytes.
  __device__ unsigned char* begin_pass(int pass) {
    if (leader_) tma_store_wait_read<kPasses - 1>();
    named_barrier(barrier_, 128);
    return base_ + (pass % kPasses) * PASS * kStoreBoxBytes;
  }

  // After every thread has written the pass: makes the writes visible to the TMA engine, then the
  // leader calls issue(box pointer, b) for each box b (one tma_store each) and closes the group.
  template <class Issue>
  __device__ void end_pass(unsigned char* pass, Issue&& issue) {
    fence_proxy_async();
    named_barrier(barrier_, 128);
    if (leader_) {
#pragma unroll
      for (int b = 0; b < PASS; ++b) issue(pass + b * kStoreBoxBytes, b);
      tma_store_commit();
    }
  }

  // For boxes the warpgroup copies out itself (copy_box_out) instead of the TMA. begin_ring waits
  // until every box of the ring is free (no store in flight reads it; the barrier also keeps the
  // ring from being overwritten before every thread has read the last boxes it copied out) and
  // returns the first; end_pass_local makes every thread's writes visible to all 128 threads.
  __device__ unsigned char* begin_ring() {
    if (leader_) tma_store_wait_read<0>();
    named_barrier(barrier_, 128);
    return base_;
  }
  __device__ void end_pass_local() const { named_barrier(barrier_, 128); }

  // Before the CTA exits: every store has read its boxes (shared memory is released at exit). The
  // writes themselves need not have landed: nothing in this grid reads D, and the grid's writes are
  // visible to the next kernel in the stream (and to a dependent launch's griddepcontrol.wait) once
  // it completes. Waiting for them cost each CTA the round trip to L2 at its very end, on the
  // critical path of a one-wave problem.
  __device__ void drain() const {
    if (leader_) tma_store_wait_read<0>();
  }

 private:
  unsigned char* base_;
  int barrier_;
  bool leader_;
};

// The staged epilogue, for a D the TMA cannot address (rows or batch items not 16-byte multiples:
// an odd N, a sub-matrix view): a box written as for the TMA store (64 rows x COLS outputs, rows of
// ROW_BYTES in the 128- or 64-byte swizzle at shared address `box`) is copied to D by the
// warpgroup's 128 threads, consecutive threads on consecutive outputs of a row, so that a store
// instruction writes whole sectors; from the accumulators' own layout a warp's store touches 4 or 8
// rows a few bytes each (partial sectors), which on short-K shapes was most of the kernel's time
// (docs/shapes.md, "The staged epilogue"). V adjacent outputs per access (2 where pairs are
// aligned: HopperArgs::pair_stores); rows at or past row_end and columns at or past n_end are left alone.
template <class OutT, int COLS, int ROW_BYTES, int V>
__device__ __forceinline__ void copy_box_out(std::uint32_t box, OutT* d, long long ldd, int row_base, int col_base,
                                             int row_end, int n_end, int wg_thread) {
  static_assert(sizeof(OutT) == 2 || sizeof(OutT) == 4, "16- or 32-bit D");
  static_assert(V == 1 || V == 2, "one output or an aligned pair per access");
  constexpr int kAccesses = COLS / V;  // per row
  static_assert((64 * kAccesses) % 128 == 0, "the warpgroup's threads divide the box");
  OutT* const first = d + std::size_t(row_base) * std::size_t(ldd) + col_base;
  const int rows = row_end - row_base, cols = n_end - col_base;
  // Not unrolled, and few values kept: the tile's accumulators not yet stored are live around this
  // loop, and with more beside them ptxas spilled (128 x 128 and 128 x 256 tiles).
#pragma unroll 1
  for (int i = wg_thread; i < 64 * kAccesses; i += 128) {
    const int r = i / kAccesses, c = (i % kAccesses) * V;
    if (r >= rows || c >= cols) continue;
    const std::uint32_t at = box + std::uint32_t(ROW_BYTES == 128 ? swizzle128(r, c * int(sizeof(OutT)))
                                                                  : swizzle64(r, c * int(sizeof(OutT))));
    OutT* out = first + std::size_t(r) * std::size_t(ldd) + c;
    if constexpr (V == 1 && sizeof(OutT) == 2) {
      unsigned short v;
      asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(v) : "r"(at));
      *reinterpret_cast<unsigned short*>(out) = v;
    } else if constexpr (V == 1) {
      std::uint32_t v;
      asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(at));
      *reinterpret_cast<std::uint32_t*>(out) = v;
    } else if constexpr (sizeof(OutT) == 2) {
      std::uint32_t v;
      asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(at));
      if (c + 1 < cols) *reinterpret_cast<std::uint32_t*>(out) = v;
      else *reinterpret_cast<unsigned short*>(out) = static_cast<unsigned short>(v & 0xffffu);
    } else {
      std::uint32_t v0, v1;
      asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(v0), "=r"(v1) : "r"(at));
      if (c + 1 < cols) *reinterpret_cast<uint2*>(out) = make_uint2(v0, v1);
      else *reinterpret_cast<std::uint32_t*>(out) = v0;
    }
  }
}

}  // namespace gemmlab::tc::sm90
