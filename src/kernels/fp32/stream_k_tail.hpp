// The stream-K tail of the pipelined FP32 kernels (host and device): the schedule and when to use it.
//
// A data-parallel grid of U tiles on G resident blocks runs in ceil(U / G) waves, and its last wave
// holds R = U mod G tiles: at 4096^3 with 128 x 256 tiles, 512 tiles on 132 SMs are 3.88 waves run
// in the time of 4, with 16 SMs idle through the last. With the tail:
// - tiles [0, U - R) run whole, one block each, as before ("whole" tiles);
// - the R x KT k-tiles of the last R tiles, tile after tile, are cut into S contiguous ranges of
//   (nearly) equal length, one per extra block. A range covers at most a few tiles; its part of one
//   tile is a *piece*.
// A piece that is its tile's only one writes C. The others store their raw sums to a workspace slot
// of their own and count themselves on the tile's arrival counter; the piece that arrives last adds
// the slots in piece order (so the result does not depend on which one that is) and writes C.
// Nobody waits for anybody, so the blocks need not be resident together. That is the difference
// from the persistent tensor-core kernels' tail (src/kernels/tensor/stream_k.hpp), where every
// block is resident and a tile's owner can wait for its helpers.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/stream_k_flags.hpp"

namespace gemmlab::fp32 {

struct StreamKTail {
  int whole = 0;    // tiles [0, whole) run whole; blocks whole .. whole + blocks - 1 share the rest
  int tiles = 0;    // R: tail tile t (0 .. R - 1) is tile whole + t; 0: no tail
  int k_tiles = 0;  // BK-deep k-tiles per tile
  int blocks = 0;   // S blocks share the tail's R x KT k-tiles

  GEMMLAB_HD std::int64_t iters() const { return std::int64_t(tiles) * k_tiles; }
  // Block b's range of tail iterations is [begin(b), begin(b + 1)); iteration i is k-tile
  // i % k_tiles of tail tile i / k_tiles.
  GEMMLAB_HD std::int64_t begin(int b) const { return iters() * b / blocks; }
  // The block whose range holds iteration i: the largest b with begin(b) <= i.
  GEMMLAB_HD int block_of(std::int64_t i) const { return int(((i + 1) * blocks - 1) / iters()); }
  // The blocks that hold pieces of tail tile t: first_block(t) .. first_block(t) + pieces(t) - 1.
  GEMMLAB_HD int first_block(int t) const { return block_of(std::int64_t(t) * k_tiles); }
  GEMMLAB_HD int pieces(int t) const { return block_of(std::int64_t(t + 1) * k_tiles - 1) - first_block(t) + 1; }
  // The workspace slot of block b's piece of tail tile t. A new piece starts at every block start
  // and every tile start, so b + t grows by at least one from piece to piece in iteration order:
  // every piece has a slot of its own, and slots() of them suffice.
  GEMMLAB_HD int slot(int b, int t) const { return b + t; }
  GEMMLAB_HD int slots() const { return blocks + tiles; }
  // Slots written and read in a launch (for the traffic model): every piece of a tile that has
  // more than one stores its sums, and the last to arrive reads back all the others.
  struct SlotTraffic {
    std::int64_t stored = 0, read = 0;
  };
  SlotTraffic slot_traffic() const {
    SlotTraffic n;
    for (int t = 0; t < tiles; ++t)
      if (pieces(t) > 1) n.stored += pieces(t), n.read += pieces(t) - 1;
    return n;
  }
};

// Cost model, in k-tile times of one block (docs/kernels/fp32-ladder.md, "Stream-K tail"): a piece
// that is not its tile's only one stores its 128 KB (for 128 x 256) of sums, and the last one to
// arrive reads them back, each about one k-tile; a block's range starts with a pipeline fill.
inline constexpr int kTailOverhead = 3;

// How `units` tiles of k_tiles k-tiles each run on `resident` blocks at a time. No tail when the
// waves are whole or a tile has a single k-tile (there is nothing to share). when_faster keeps the
// tail only where the busiest block's modelled range (its share, plus the overhead) beats the whole
// tile the last wave costs by at least 10%; always keeps it whenever the last wave is partial (for
// the tests), with ranges of at least one k-tile. The tail's counters must fit the flags buffer, and
// its iterations a 32-bit int (the tail kernel counts them in 32 bits to save registers).
inline StreamKTail plan_stream_k_tail(std::int64_t units, int resident, std::int64_t k_tiles, TailMode mode) {
  if (mode == TailMode::off || resident <= 0 || k_tiles < 2 || units % resident == 0) return {};
  const std::int64_t tail = units % resident;
  if (tail > kStreamKFlags || tail * k_tiles >= (std::int64_t(1) << 31)) return {};
  const std::int64_t blocks = std::min<std::int64_t>(resident, tail * k_tiles);
  const std::int64_t range = (tail * k_tiles + blocks - 1) / blocks;
  if (mode == TailMode::when_faster && 10 * (range + kTailOverhead) > 9 * k_tiles) return {};
  return {int(units - tail), int(tail), int(k_tiles), int(blocks)};
}

}  // namespace gemmlab::fp32
