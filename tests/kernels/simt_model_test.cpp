// The library's CUDA-core FP32 kernel, host side (src/kernels/library/simt.hpp), checked without a
// GPU: what it refuses and why, the workspace it asks for, and the model's choices on an H100's
// figures (132 SMs, the occupancy the launch bounds plan for).
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "api/problem.hpp"
#include "kernels/library/launch.hpp"
#include "kernels/library/simt.hpp"
#include "support/device_models.hpp"

using namespace gemmlab;
using namespace gemmlab::detail;

namespace {

DeviceState h100() { return gemmlab::test::hopper_model("NVIDIA H100 80GB HBM3", true); }

// A packed row-major NN problem (the lab's), with pointers that are 16-byte aligned stand-ins.
Problem nn(std::int64_t m, std::int64_t n, std::int64_t k) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  p.a = {reinterpret_cast<const void*>(std::uintptr_t(0x10000)), k, 0, true};
  p.b = {reinterpret_cast<const void*>(std::uintptr_t(0x20000)), n, 0, false};
  p.d = reinterpret_cast<void*>(std::uintptr_t(0x30000));
  p.ldc = p.ldd = n;
  return p;
}

SimtConfig config(int tm, int tn, int thread_m, int stages) {
  SimtConfig c;
  c.tile_m = tm, c.tile_n = tn, c.thread_m = thread_m, c.stages = stages;
  return c;
}

constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

TEST(SimtModel, ChoosesAsTheLadderDocuments) {
  const DeviceState s = h100();
  // docs/kernels/fp32-ladder.md, step 9: 128x256 (16x8, 3 stages, groups of 32) from 2048^3 on;
  // no split-K on the suite. At 1000^3 and 1024^3 the ladder measured 64x128 (8x8, 2 stages)
  // fastest; the model, which counts 8 resident warps as an SM's full rate since 8b5ae2f (one
  // 4-warp 64x128 block an SM lost to two: docs/shapes.md), takes 128x256 with a tail there, and
  // the shipped tables hold the measured choice at 1024^3.
  for (std::int64_t e : {1000, 1024}) {
    const SimtConfig c = simt_model_choice(nn(e, e, e), s, kUnbounded, false);
    EXPECT_EQ(c.tile_m, 128);
    EXPECT_EQ(c.tile_n, 256);
    EXPECT_EQ(c.thread_m, 16);
    EXPECT_EQ(c.stages, 3);
    EXPECT_EQ(c.splits, 1);
  }
  for (const Problem& p : {nn(2048, 2048, 2048), nn(4096, 4096, 4096), nn(8192, 8192, 8192), nn(4097, 4095, 4093),
                           nn(16384, 16384, 512)}) {
    const SimtConfig c = simt_model_choice(p, s, kUnbounded, false);
    EXPECT_EQ(c.tile_m, 128);
    EXPECT_EQ(c.tile_n, 256);
    EXPECT_EQ(c.thread_m, 16);
    EXPECT_EQ(c.stages, 3);
    EXPECT_EQ(c.group_m, 32);
    EXPECT_EQ(c.splits, 1);
  }
  // 4096^3: the stream-K tail of step 8 (116 tail tiles on 132 blocks) and its workspace.
  const Problem p4096 = nn(4096, 4096, 4096);
  const SimtConfig c4096 = simt_model_choice(p4096, s, kUnbounded, false);
  EXPECT_EQ(c4096.stream_k, 1);
  EXPECT_EQ(simt_tail(p4096, c4096, s).tiles, 116);
  EXPECT_EQ(simt_workspace_bytes(p4096, c4096, s), std::size_t(132 + 116) * 128 * 256 * 4);
  // Without room for the tail's slots, the same tiles without a tail.
  const SimtConfig tight = simt_model_choice(p4096, s, 1 << 20, false);
  EXPECT_EQ(tight.tile_n, 256);
  EXPECT_EQ(tight.stream_k, 0);
  EXPECT_EQ(simt_workspace_bytes(p4096, tight, s), 0u);
}

TEST(SimtModel, SplitsALongKOverTheGpuWhenThereAreFewTiles) {
  const DeviceState s = h100();
  // 64 x 64 x 65536: one tile; 128 slices of 512 fill the 132 SMs. A 64 x 128 tile (4 warps, half
  // of it past n) rather than 64 x 64 (2 warps, one block an SM runs below the SM's rate): 0.0412
  // against 0.0466 ms on an H100.
  const SimtConfig one = simt_model_choice(nn(64, 64, 65536), s, kUnbounded, false);
  EXPECT_EQ(one.tile_m, 64);
  EXPECT_EQ(one.tile_n, 128);
  EXPECT_EQ(one.splits, 128);
  EXPECT_EQ(simt_workspace_bytes(nn(64, 64, 65536), one, s), std::size_t(128) * 64 * 64 * 4);
  // 128 x 128 x 65536: a few tiles, tens of slices each.
  EXPECT_GE(simt_model_choice(nn(128, 128, 65536), s, kUnbounded, false).splits, 32);
  // Without the workspace for them, fewer.
  EXPECT_LE(simt_model_choice(nn(64, 64, 65536), s, 1 << 20, false).splits, 64);
}

TEST(SimtModel, SmallProblemsSplitKRatherThanRunOneBlockAnSmOrAShortTail) {
  const DeviceState s = h100();
  // 128 blocks of 64 x 64 (2 warps) for 132 SMs: split k so that each SM runs several.
  const SimtConfig skinny = simt_model_choice(nn(8192, 64, 8192), s, kUnbounded, false);
  EXPECT_GT(skinny.splits, 1);
  // A few tiles with a short k: no stream-K tail of a few k-tiles a block (128^3: one tile in
  // 8 blocks of 1 k-tile; 333 x 777 x 555: blocks of 4).
  for (const Problem& p : {nn(128, 128, 128), nn(333, 777, 555)})
    EXPECT_EQ(simt_tail(p, simt_model_choice(p, s, kUnbounded, false), s).tiles, 0) << p.m;
  // 1536^3 keeps its tail: 72 tiles in 132 blocks of 53 k-tiles, the fastest candidate measured.
  EXPECT_GT(simt_tail(nn(1536, 1536, 1536), simt_model_choice(nn(1536, 1536, 1536), s, kUnbounded, false), s).tiles, 0);
}

// 32 x 128 tiles where D has at most 32 rows, or a last tile row of at most 32: 64-row tiles would
// compute up to half padding there. Where rows fill 64-row tiles, those stay.
TEST(SimtModel, ThirtyTwoRowTilesWhereSixtyFourWouldBeHalfPadding) {
  const DeviceState s = h100();
  for (const Problem& p : {nn(32, 4096, 14336), nn(32, 14336, 4096), nn(24, 4096, 4096), nn(96, 4096, 4096)}) {
    const SimtConfig c = simt_model_choice(p, s, kUnbounded, false);
    EXPECT_EQ(c.tile_m, 32) << p.m << "x" << p.n << "x" << p.k;
    EXPECT_EQ(c.tile_n, 128);
    EXPECT_GE(c.splits, 4) << "32 to 96 tile rows of two-warp blocks fill the GPU only in slices of k";
  }
  for (const Problem& p : {nn(64, 4096, 4096), nn(128, 4096, 4096), nn(2048, 2048, 2048)})
    EXPECT_NE(simt_model_choice(p, s, kUnbounded, false).tile_m, 32) << p.m << "x" << p.n << "x" << p.k;
  // Batch invariance takes the tile from n alone: never the 32-row one, as efficient per column.
  Problem inv = nn(32, 4096, 4096);
  EXPECT_NE(simt_model_choice(inv, s, kUnbounded, true).tile_m, 32);
}

// A K-major B (layouts NT and TT, and D column-major): its N-major copy (SimtConfig::copy_b) where a
// pass over B costs less than the main loop's transposing copies, in slices of columns of D when
// the workspace holds only part of it.
Problem nt(std::int64_t m, std::int64_t n, std::int64_t k) {
  Problem p = nn(m, n, k);
  p.b.k_major = true;
  p.b.ld = k;
  return p;
}

TEST(SimtModel, CopiesAKMajorBWhenMIsLarge) {
  const DeviceState s = h100();
  const Problem big = nt(4096, 4096, 4096);
  const SimtConfig c = simt_model_choice(big, s, kUnbounded, false);
  EXPECT_TRUE(c.copy_b);
  EXPECT_EQ(c.tile_n, 256);
  EXPECT_EQ(c.splits, 1);
  // The copy (rows of 4096 floats) and, behind it, the stream-K tail's slots (116 tiles).
  EXPECT_EQ(simt_tail(big, c, s).tiles, 116);
  EXPECT_EQ(simt_workspace_bytes(big, c, s), std::size_t(4096) * 4096 * 4 + std::size_t(132 + 116) * 128 * 256 * 4);
  // In 16 MiB, slices of 1024 columns: still copied.
  EXPECT_TRUE(simt_model_choice(big, s, std::size_t(16) << 20, false).copy_b);
  EXPECT_FALSE(simt_workspace_reject(big, c, s, std::size_t(16) << 20));
  // Less than one tile's columns (256 x 4096 floats): refused, and the model does without.
  const auto why = simt_workspace_reject(big, c, s, std::size_t(1) << 20);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("B's N-major copy"), std::string::npos) << *why;
  EXPECT_FALSE(simt_model_choice(big, s, std::size_t(1) << 20, false).copy_b);
  // A few rows of D: the pass over B costs more than it saves.
  EXPECT_FALSE(simt_model_choice(nt(128, 4096, 4096), s, kUnbounded, false).copy_b);
  // Never for an N-major B or with split-K.
  SimtConfig copied = config(128, 256, 16, 3);
  copied.copy_b = true;
  EXPECT_FALSE(simt_reject(big, copied, s));
  EXPECT_TRUE(simt_reject(nn(4096, 4096, 4096), copied, s));
  copied.splits = 2;
  EXPECT_TRUE(simt_reject(big, copied, s));
  // A broadcast B is copied once for every batch item; a strided one item by item.
  Problem batched = nt(512, 512, 512);
  batched.batch = 4;
  batched.a.stride = 512 * 512, batched.stride_d = 512 * 512;
  copied.splits = 1, copied.stream_k = 0;
  EXPECT_EQ(simt_workspace_bytes(batched, copied, s), std::size_t(512) * 512 * 4);
  batched.b.stride = 512 * 512;
  EXPECT_EQ(simt_workspace_bytes(batched, copied, s), std::size_t(4) * 512 * 512 * 4);
}

// An N-major B whose lines the main loop must copy 4 bytes at a time (not 16-byte aligned, or n % 4
// != 0): copied into aligned, padded rows first (SimtConfig::copy_b) where the pass over B costs less
// than the slower main loop, as a K-major B is.
TEST(SimtModel, CopiesAnNMajorBInUnalignedRowsWhenMIsLarge) {
  const DeviceState s = h100();
  const Problem odd = nn(4097, 4095, 4093);  // packed: rows of 4095 floats
  const SimtConfig c = simt_model_choice(odd, s, kUnbounded, false);
  EXPECT_TRUE(c.copy_b);
  EXPECT_TRUE(simt_copies_b(odd, c));
  EXPECT_EQ(c.tile_n, 256);
  EXPECT_EQ(c.splits, 1);
  // The copy in rows of 4096 floats, then the stream-K tail's slots.
  EXPECT_EQ(simt_workspace_bytes(odd, c, s),
            std::size_t(4093) * 4096 * 4 + std::size_t(simt_tail(odd, c, s).slots()) * 128 * 256 * 4);
  // Aligned rows of 4096 floats with n = 4095, and n = 4096 with B one element off its alignment:
  // both read in 4-byte pieces, both copied.
  Problem padded = nn(4096, 4095, 4096);
  padded.b.ld = 4096;
  EXPECT_TRUE(simt_model_choice(padded, s, kUnbounded, false).copy_b);
  Problem shifted = nn(4096, 4096, 4096);
  shifted.b.ptr = reinterpret_cast<const void*>(std::uintptr_t(0x20004));
  EXPECT_TRUE(simt_model_choice(shifted, s, kUnbounded, false).copy_b);
  // Rows the main loop reads in 16-byte pieces: never copied; copy_b refused.
  SimtConfig copied = config(128, 256, 16, 3);
  copied.copy_b = true;
  const auto why = simt_reject(nn(4096, 4096, 4096), copied, s);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("16-byte pieces already"), std::string::npos) << *why;
  EXPECT_FALSE(simt_reject(odd, copied, s));
  // A few rows of D: split-K, which the copy does not offer, or the pass over B costs more than it saves.
  EXPECT_FALSE(simt_model_choice(nn(128, 4095, 4096), s, kUnbounded, false).copy_b);
  EXPECT_FALSE(simt_model_choice(nn(333, 777, 555), s, kUnbounded, false).copy_b);
  // Too little workspace for one tile's columns: done without.
  EXPECT_FALSE(simt_model_choice(odd, s, std::size_t(1) << 20, false).copy_b);
}

TEST(SimtModel, BatchInvariantChoiceIgnoresM) {
  const DeviceState s = h100();
  for (std::int64_t n : {100, 1000, 4096})
    for (std::int64_t k : {64, 4096}) {
      const SimtConfig ref = simt_model_choice(nn(1, n, k), s, kUnbounded, true);
      EXPECT_EQ(ref.splits, 1);
      EXPECT_EQ(ref.stream_k, 0);
      for (std::int64_t m : {7, 128, 1000, 8192}) {
        const SimtConfig c = simt_model_choice(nn(m, n, k), s, kUnbounded, true);
        EXPECT_EQ(c.tile_m, ref.tile_m);
        EXPECT_EQ(c.tile_n, ref.tile_n);
        EXPECT_EQ(c.stages, ref.stages);
        EXPECT_EQ(c.splits, 1);
        EXPECT_EQ(c.stream_k, 0);
      }
    }
  // A batch-invariant problem never gets a tail, whatever the configuration asks.
  Problem p = nn(4096, 4096, 4096);
  p.determinism = Determinism::batch_invariant;
  SimtConfig c = config(128, 256, 16, 3);
  c.stream_k = 2;
  EXPECT_EQ(simt_tail(p, c, s).tiles, 0);
}

TEST(SimtReject, TypesGroupsOffsetsAndConfigurations) {
  const DeviceState s = h100();
  const SimtConfig c = config(128, 256, 16, 3);
  EXPECT_FALSE(simt_reject(nn(1000, 1000, 1000), c, s));
  Problem bf = nn(64, 64, 64);
  bf.ab = DataType::bf16;
  EXPECT_TRUE(simt_reject(bf, c, s));
  Problem tf = nn(64, 64, 64);
  tf.tf32 = true;  // computed exactly in FP32
  EXPECT_FALSE(simt_reject(tf, c, s));
  Problem grouped = nn(64, 64, 64);
  grouped.groups = 2;
  EXPECT_TRUE(simt_reject(grouped, c, s));
  // 32-bit copy offsets: A of 2^31 elements and more (here with the batch) is refused.
  Problem big = nn(4096, 64, 4096);
  big.batch = 200;
  big.a.stride = 4096 * 4096;
  big.b.stride = 0;
  big.stride_d = big.ldd * 4096;
  EXPECT_TRUE(simt_reject(big, c, s));
  big.batch = 100;  // 1.68e9 elements: fits
  EXPECT_FALSE(simt_reject(big, c, s));
  // Every layout and the fused epilogue for the model's five; the ladder's others only packed NN.
  Problem tt = nn(100, 100, 100);
  tt.a.k_major = false, tt.a.ld = 100;
  tt.b.k_major = true, tt.b.ld = 100;
  tt.bias_kind = BiasKind::per_column;
  tt.act = Activation::gelu_tanh;
  for (const SimtConfig& m : simt_configs()) EXPECT_FALSE(simt_reject(tt, m, s)) << m.tile_m << "x" << m.tile_n;
  EXPECT_TRUE(simt_reject(tt, config(256, 128, 16, 3), s));
  EXPECT_FALSE(simt_reject(nn(100, 100, 100), config(256, 128, 16, 3), s));
  // Odd leading dimensions and unaligned pointers are served (4-byte copies), not refused.
  Problem odd = nn(33, 35, 37);
  odd.a.k_major = false, odd.a.ld = 35;
  odd.b.ptr = reinterpret_cast<const void*>(std::uintptr_t(0x20004));
  odd.b.ld = 37;
  EXPECT_FALSE(simt_reject(odd, config(64, 64, 8, 2), s));
}

TEST(SimtWorkspace, SplitKHoldsEverySliceOfEveryItem) {
  const DeviceState s = h100();
  Problem p = nn(300, 200, 4096);
  p.batch = 3;
  p.a.stride = 300 * 4096, p.b.stride = 4096 * 200, p.stride_d = 300 * 200;
  SimtConfig c = config(64, 128, 8, 2);
  c.splits = 4;
  EXPECT_EQ(simt_workspace_bytes(p, c, s), std::size_t(4) * 3 * 300 * 200 * 4);
  c.splits = 1;
  EXPECT_EQ(simt_workspace_bytes(p, c, s), 0u);
}

}  // namespace
