// The stream-K tail of the pipelined FP32 kernels (src/kernels/fp32/stream_k_tail.hpp), checked on
// the host by walking every tail block's range the way the kernel does: every k-tile of every tail
// tile exactly once, each tile's pieces on the blocks the kernel counts for it, a workspace slot of
// its own for every piece, and the cost model's decisions on the H100's shapes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/fp32/stream_k_tail.hpp"

using gemmlab::TailMode;
using gemmlab::fp32::plan_stream_k_tail;
using gemmlab::fp32::StreamKTail;

namespace {

struct Piece {
  int block, tile, kb, ke;
};

// The pieces of every tail block, in the kernel's order (pipelined.cuh, pipelined_tail_gemm): from
// the last piece of the block's range to the first.
std::vector<Piece> pieces_of(const StreamKTail& tail) {
  std::vector<Piece> out;
  for (int b = 0; b < tail.blocks; ++b) {
    const std::int64_t begin = tail.begin(b);
    for (std::int64_t i = tail.begin(b + 1); i > begin;) {
      const int t = int((i - 1) / tail.k_tiles);
      const std::int64_t first = std::int64_t(t) * tail.k_tiles, i0 = std::max(begin, first);
      out.push_back({b, t, int(i0 - first), int(i - first)});
      i = i0;
    }
  }
  return out;
}

void check_tail(std::int64_t units, int resident, int k_tiles) {
  const StreamKTail tail = plan_stream_k_tail(units, resident, k_tiles, TailMode::always);
  SCOPED_TRACE(testing::Message() << units << " tiles, " << resident << " resident blocks, " << k_tiles
                                  << " k-tiles: tail " << tail.tiles << " on " << tail.blocks << " blocks");
  if (units % resident == 0 || k_tiles < 2) {
    EXPECT_EQ(tail.tiles, 0);
    return;
  }
  ASSERT_EQ(tail.tiles, units % resident);
  ASSERT_EQ(tail.whole + tail.tiles, units);
  ASSERT_GE(tail.blocks, 1);
  ASSERT_LE(tail.blocks, resident);
  const std::vector<Piece> pieces = pieces_of(tail);

  std::map<std::pair<int, int>, int> seen;  // (tile, k) -> times computed
  std::map<int, std::set<int>> blocks_of;   // tile -> blocks with a piece of it
  std::set<int> slots;
  for (const Piece& p : pieces) {
    ASSERT_LT(p.kb, p.ke);
    ASSERT_GE(p.tile, 0);
    ASSERT_LT(p.tile, tail.tiles);
    for (int k = p.kb; k < p.ke; ++k) ++seen[{p.tile, k}];
    blocks_of[p.tile].insert(p.block);
    const int slot = tail.slot(p.block, p.tile);
    EXPECT_GE(slot, 0);
    EXPECT_LT(slot, tail.slots()) << "slot outside the workspace";
    EXPECT_TRUE(slots.insert(slot).second) << "slot " << slot << " used twice";
  }
  // Every piece a block runs before its last starts at k-tile 0: the blocks move through k together.
  for (std::size_t j = 0; j + 1 < pieces.size(); ++j)
    if (pieces[j + 1].block == pieces[j].block) EXPECT_EQ(pieces[j].kb, 0) << "block " << pieces[j].block;
  ASSERT_EQ(seen.size(), std::size_t(tail.tiles) * k_tiles);
  for (const auto& [key, n] : seen) ASSERT_EQ(n, 1) << "tile " << key.first << " k " << key.second;
  for (int b = 0; b < tail.blocks; ++b) EXPECT_LT(tail.begin(b), tail.begin(b + 1)) << "block " << b << " idles";

  // The kernel's count of a tile's pieces (the last to arrive finishes it) matches the ranges.
  std::int64_t stored = 0, read = 0;
  for (int t = 0; t < tail.tiles; ++t) {
    std::set<int> expected;
    for (int j = 0; j < tail.pieces(t); ++j) expected.insert(tail.first_block(t) + j);
    EXPECT_EQ(blocks_of[t], expected) << "tile " << t;
    if (tail.pieces(t) > 1) stored += tail.pieces(t), read += tail.pieces(t) - 1;
  }
  EXPECT_EQ(tail.slot_traffic().stored, stored);
  EXPECT_EQ(tail.slot_traffic().read, read);
}

TEST(Fp32StreamKTail, EveryKTileOnceAndEveryPieceItsOwnSlot) {
  for (int resident : {1, 7, 132, 264, 528})
    for (std::int64_t units : {1, 5, 131, 133, 136, 260, 512, 1000, 2048})
      for (int k_tiles : {1, 2, 3, 4, 17, 63, 256}) check_tail(units, resident, k_tiles);
}

TEST(Fp32StreamKTail, BlockOfInvertsBegin) {
  const StreamKTail tail{396, 116, 256, 132};  // 4096^3 on an H100
  for (int b = 0; b < tail.blocks; ++b) {
    EXPECT_EQ(tail.block_of(tail.begin(b)), b);
    EXPECT_EQ(tail.block_of(tail.begin(b + 1) - 1), b);
  }
}

// 128 x 256 tiles with 16-deep k-tiles on an H100 (132 SMs, one block each).
TEST(Fp32StreamKTail, TheCostModelKeepsTheTailWhereItGains) {
  const StreamKTail t4096 = plan_stream_k_tail(512, 132, 256, TailMode::when_faster);
  EXPECT_EQ(t4096.whole, 396);  // three whole waves
  EXPECT_EQ(t4096.tiles, 116);
  EXPECT_EQ(t4096.blocks, 132);  // 225 k-tiles each instead of a whole tile of 256
  EXPECT_EQ(plan_stream_k_tail(2048, 132, 512, TailMode::when_faster).tiles, 68);    // 8192^3
  EXPECT_EQ(plan_stream_k_tail(8192, 132, 1024, TailMode::when_faster).tiles, 8);    // 16384^3
  EXPECT_EQ(plan_stream_k_tail(512, 132, 64, TailMode::when_faster).tiles, 0);       // K = 1024: 57 + 3 of 64
  EXPECT_EQ(plan_stream_k_tail(512, 132, 64, TailMode::always).tiles, 116);
  EXPECT_EQ(plan_stream_k_tail(528, 132, 256, TailMode::always).tiles, 0);           // whole waves (4097x4095)
  EXPECT_EQ(plan_stream_k_tail(513, 132, 1, TailMode::always).tiles, 0);             // nothing to share
  EXPECT_EQ(plan_stream_k_tail(512, 132, 256, TailMode::off).tiles, 0);
  EXPECT_EQ(plan_stream_k_tail(133, 132, std::int64_t(1) << 31, TailMode::always).tiles, 0);  // 32-bit counts
  // Less than a wave: the tail is all of it, and with few k-tiles the ranges stay non-empty.
  const StreamKTail small = plan_stream_k_tail(4, 132, 2, TailMode::always);
  EXPECT_EQ(small.whole, 0);
  EXPECT_EQ(small.tiles, 4);
  EXPECT_EQ(small.blocks, 8);
}

}  // namespace
