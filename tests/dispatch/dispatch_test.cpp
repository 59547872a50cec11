// Dispatch without a GPU: table files (parsing, classes, nearest entries), the families' refusals
// and model choices on a described device.
#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/context_impl.hpp"
#include "api/problem.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/table.hpp"
#include "gemmlab/error.hpp"
#include "kernels/library/skinny.hpp"
#include "kernels/library/simt.hpp"
#include "kernels/library/sm90.hpp"
#include "kernels/library/small.hpp"
#include "kernels/library/split_k.hpp"
#include "kernels/library/tail.hpp"
#include "kernels/library/tf32.hpp"
#include "support/device_models.hpp"

using namespace gemmlab;
using namespace gemmlab::detail;

namespace {

const char* kTable = R"({
  "device": "NVIDIA H100 80GB HBM3", "commit": "abc", "match": "H100",
  "entries": [
    {"types": "bf16.f32", "layout": "NN", "m": 4096, "n": 4096, "k": 4096, "kernel": "sm90.wgmma",
     "config": {"tile_m": 128, "tile_n": 256, "cluster": 1, "stream_k": 0}, "ms": 0.18, "reference_ms": 0.181},
    {"types": "bf16.f32", "layout": "NN", "m": 1024, "n": 1024, "k": 1024, "kernel": "sm90.wgmma",
     "config": {"tile_m": 128, "tile_n": 128, "cluster": 1, "stream_k": 0}},
    {"types": "bf16.f32", "layout": "NT", "m": 4096, "n": 4096, "k": 4096, "kernel": "sm90.wgmma", "config": {"cluster": 2}},
    {"types": "tf32.f32", "layout": "NN", "m": 4096, "n": 4096, "k": 4096, "batch": 4, "kernel": "sm90.wgmma_swapab",
     "config": {"cluster": 2}},
    {"types": "bf16.bf16.grouped", "layout": "NT", "m": 16384, "n": 4096, "k": 7168, "batch": 8, "kernel": "sm90.wgmma",
     "config": {"tile_n": 256}}
  ]})";

Problem problem(DataType ab, DataType cd, std::int64_t m, std::int64_t n, std::int64_t k) {
  Problem p;
  p.ab = ab, p.cd = cd;
  p.m = m, p.n = n, p.k = k;
  p.a = {reinterpret_cast<const void*>(std::uintptr_t(1) << 40), k, 0, true};
  p.b = {reinterpret_cast<const void*>(std::uintptr_t(2) << 40), n, 0, false};
  p.d = reinterpret_cast<void*>(std::uintptr_t(3) << 40);
  p.ldd = n;
  return p;
}

// A problem of FP32 operands and D whose call allows TF32.
Problem tf32_problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  Problem p = problem(DataType::f32, DataType::f32, m, n, k);
  p.tf32 = true;
  return p;
}

DeviceState h100() { return gemmlab::test::hopper_model("NVIDIA H100 80GB HBM3", false); }

// ctx with the H100's figures and its built-in dispatch table.
void with_h100_table(ContextImpl& ctx) {
  ctx.device = h100();
  std::string source;
  ctx.table = builtin_table("NVIDIA H100 80GB HBM3", source);
}

// ctx with the H100's figures and one table entry of the Hopper kernel, BF16 NN with BF16 D, at
// m x n x k with the configuration `config` (JSON).
void with_sm90_entry(ContextImpl& ctx, std::int64_t m, std::int64_t n, std::int64_t k, const char* config) {
  ctx.device = h100();
  ctx.table = parse_table(fmt::format(R"({{"device": "NVIDIA H100 80GB HBM3", "match": "H100", "entries": [
    {{"types": "bf16.bf16", "layout": "NN", "m": {}, "n": {}, "k": {}, "kernel": "sm90.wgmma", "config": {}}}]}})",
                                      m, n, k, config),
                          "test");
}

}  // namespace

TEST(DispatchTable, ParsesEntriesAndFindsTheNearestOfTheSameClass) {
  const Table t = parse_table(kTable, "test");
  ASSERT_EQ(t.entries.size(), 5u);
  EXPECT_EQ(t.device, "NVIDIA H100 80GB HBM3");
  const int nn = class_key(DataType::bf16, DataType::f32, false, false, true, false);
  EXPECT_EQ(class_key("bf16.f32", "NN"), nn);
  // 4000^3 is nearest to 4096^3, 1100^3 to 1024^3; 2048^3 is more than 1.5x from both.
  const TableEntry* e = t.nearest(nn, 4000, 4000, 4000, 1);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->m, 4096);
  e = t.nearest(nn, 1100, 1100, 1100, 1);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->config.at("tile_n"), 128);
  EXPECT_EQ(t.nearest(nn, 2048, 2048, 2048, 1), nullptr);
  // Other classes never match: layout, types, batch.
  EXPECT_EQ(t.nearest(class_key(DataType::f16, DataType::f32, false, false, true, false), 4096, 4096, 4096, 1), nullptr);
  const TableEntry* nt = t.nearest(class_key(DataType::bf16, DataType::f32, false, false, true, true), 4096, 4096, 4096, 1);
  ASSERT_NE(nt, nullptr);
  EXPECT_EQ(nt->config.at("cluster"), 2);
  const int tf32 = class_key(DataType::f32, DataType::f32, true, false, true, false);
  EXPECT_EQ(class_key("tf32.f32", "NN"), tf32);
  EXPECT_EQ(t.nearest(tf32, 4096, 4096, 4096, 1), nullptr);  // batch 1 is 4x from 4
  EXPECT_NE(t.nearest(tf32, 4096, 4096, 4096, 5), nullptr);
  const int grouped = class_key(DataType::bf16, DataType::bf16, false, true, true, true);
  EXPECT_EQ(class_key("bf16.bf16.grouped", "NT"), grouped);
  EXPECT_NE(t.nearest(grouped, 16000, 4096, 7168, 8), nullptr);
}

TEST(DispatchTable, RoundTripsThroughJson) {
  const Table t = parse_table(kTable, "test");
  const Table u = parse_table(table_to_json(t), "again");
  ASSERT_EQ(u.entries.size(), t.entries.size());
  for (std::size_t i = 0; i < t.entries.size(); ++i) {
    EXPECT_EQ(u.entries[i].key, t.entries[i].key);
    EXPECT_EQ(u.entries[i].config, t.entries[i].config);
    EXPECT_EQ(u.entries[i].batch, t.entries[i].batch);
  }
}

TEST(DispatchTable, RefusesMalformedFilesWithTheirName) {
  auto message = [](const char* text) {
    try {
      parse_table(text, "my-table.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{").find("my-table.json: not a gemmlab dispatch table"), std::string::npos);
  EXPECT_NE(message(R"({"entries": []})").find("my-table.json"), std::string::npos);  // no device
  EXPECT_NE(message(R"({"device": "x", "entries": [{"types": "int8.f32", "layout": "NN", "m": 1, "n": 1, "k": 1,
                       "kernel": "sm90.wgmma", "config": {}}]})")
                .find("unknown class"),
            std::string::npos);
  EXPECT_NE(message(R"({"device": "x", "entries": [{"types": "bf16.f32", "layout": "NN", "m": 0, "n": 1, "k": 1,
                       "kernel": "sm90.wgmma", "config": {}}]})")
                .find("an entry's m is 0, outside [1, 2147483647]"),
            std::string::npos);
  // A float, a wide integer or a string where an integer belongs is refused, not converted.
  EXPECT_NE(message(R"({"device": "x", "entries": [{"types": "bf16.f32", "layout": "NN", "m": 1e300, "n": 1, "k": 1,
                       "kernel": "sm90.wgmma", "config": {}}]})")
                .find("an entry's m is 1e+300, not an integer"),
            std::string::npos);
  EXPECT_NE(message(R"({"device": "x", "entries": [{"types": "bf16.f32", "layout": "NN", "m": 1, "n": 1, "k": 1,
                       "kernel": "sm90.wgmma", "config": {"splits": 4294967297}}]})")
                .find("an entry's splits is 4294967297, outside [0, 1048576]"),
            std::string::npos);
  EXPECT_NE(message(R"({"device": "x", "entries": [{"types": "bf16.f32", "layout": "NN", "m": 1, "n": 1, "k": 1,
                       "batch": "2", "kernel": "sm90.wgmma", "config": []}]})")
                .find("an entry's batch is \"2\", not an integer"),
            std::string::npos);
  std::string source;
  EXPECT_THROW(load_table_file("/nonexistent/table.json", source), Error);
}

// Random damage to a valid table (tokens put in or over its text, bytes cut or changed): each text
// is parsed into a table whose entries all hold sizes from 1 to 2^31 - 1 in a known class and
// small non-negative configuration values, or refused with an Error that names the file; no other
// exception escapes. Deterministic: a fixed seed.
TEST(DispatchTable, DamagedTablesAreRefusedByNameOrParsedWhole) {
  const std::string valid = kTable;
  const char* const tokens[] = {"1e300", "-1",   "0",     "2.5", "\"x\"", "null", "[",         "]",     "{",
                                "}",     ",",    ":",     "true", "\"m\"", "\"config\"", "99999999999999999999",
                                "-9223372036854775808", "4294967297", "\"bf16.f32\"", "\"TT\""};
  std::mt19937_64 rng(20261204);
  auto below = [&](std::size_t n) { return std::size_t(rng() % std::max<std::size_t>(1, n)); };
  int parsed = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = valid;
    for (std::size_t edits = 1 + below(3); edits > 0; --edits) {
      const std::size_t at = below(text.size() + 1), run = std::min(1 + below(8), text.size() - std::min(at, text.size()));
      const char* token = tokens[below(std::size(tokens))];
      switch (below(4)) {
        case 0: text.replace(at, run, token); break;
        case 1: text.insert(at, token); break;
        case 2: text.erase(at, run); break;
        default: if (at < text.size()) text[at] = char(32 + below(95)); break;
      }
    }
    try {
      const Table t = parse_table(text, "damaged.json");
      ++parsed;
      for (const TableEntry& e : t.entries) {
        ASSERT_GE(class_key(e.types, e.layout), 0) << text;
        for (std::int64_t v : {e.m, e.n, e.k, e.batch}) {
          ASSERT_GE(v, 1) << text;
          ASSERT_LE(v, std::numeric_limits<std::int32_t>::max()) << text;
        }
        for (const auto& [key, value] : e.config) ASSERT_TRUE(value >= 0 && value <= (1 << 20)) << key << " in " << text;
      }
    } catch (const Error& e) {
      ++refused;
      ASSERT_EQ(std::string(e.what()).rfind("damaged.json: not a gemmlab dispatch table (", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(parsed, 1000);
  EXPECT_GT(refused, 1000);
}

// A table entry's configuration serves its neighbours, but its "no stream-K tail" only its own
// shape: elsewhere the number of tiles differs, and the tail rule decides per shape.
TEST(DispatchTable, EntryWithoutTailLeavesTheTailToTheRuleElsewhere) {
  ContextImpl ctx;
  ctx.device = h100();
  ctx.table = parse_table(kTable, "test");
  const Problem own = problem(DataType::bf16, DataType::f32, 4096, 4096, 4096);
  Choice c = choose(ctx, own, std::size_t(1) << 26);
  ASSERT_EQ(c.why, Why::table);
  EXPECT_EQ(c.sm90.tile_n, 256);
  EXPECT_EQ(c.sm90.stream_k, 0);
  EXPECT_EQ(describe(c, own).reason, "dispatch table: measured fastest at 4096x4096x4096 on sm90.wgmma");
  const Problem near = problem(DataType::bf16, DataType::f32, 3000, 4096, 4096);
  c = choose(ctx, near, std::size_t(1) << 26);
  ASSERT_EQ(c.why, Why::table);
  EXPECT_EQ(c.sm90.tile_n, 256);  // the entry's tile
  EXPECT_EQ(c.sm90.stream_k, 1);  // the tail where it gains
  EXPECT_NE(describe(c, near).reason.find("a stream-K tail where the model finds it gains at this shape"),
            std::string::npos);
  // Grouped problems have no tail: the entry's configuration as it is.
  Problem grouped = problem(DataType::bf16, DataType::bf16, 16000, 4096, 7168);
  grouped.groups = 8;
  grouped.offsets = reinterpret_cast<const std::int32_t*>(std::uintptr_t(4) << 40);
  grouped.b.k_major = true, grouped.b.ld = 7168, grouped.b.stride = 4096 * 7168;
  grouped.ldd = 4096;
  c = choose(ctx, grouped, std::size_t(1) << 26);
  ASSERT_EQ(c.why, Why::table) << describe(c, grouped).reason;
  EXPECT_EQ(c.sm90.stream_k, 0);
  EXPECT_FALSE(c.tail_here);
}

// An entry's tile serves a neighbour only where it fills the GPU's waves nearly as well as at the
// entry's own shape: 128 x 64 tiles make one wave of 128 tiles at 1024^3 on 132 SMs, but 136 at
// 1023 x 1025 x 1027 (a second wave of 4): the model decides there.
TEST(DispatchTable, EntryWhoseTilesWouldFillFewerWavesLeavesTheChoiceToTheModel) {
  ContextImpl ctx;
  with_sm90_entry(ctx, 1024, 1024, 1024, R"({"tile_m": 128, "tile_n": 64, "cluster": 1, "stream_k": 0})");
  const std::size_t ws = std::size_t(1) << 26;
  const Problem near = problem(DataType::bf16, DataType::bf16, 1000, 1000, 1000);  // 128 tiles as well
  Choice c = choose(ctx, near, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, near).reason;
  EXPECT_EQ(c.sm90.tile_n, 64);
  // A's rows of 2000 bytes are off the 32-byte sectors, which the entry's aligned shape said nothing
  // about: its tiles in pairs sharing A.
  EXPECT_EQ(c.sm90.cluster, 2);
  EXPECT_EQ(describe(c, near).reason,
            "dispatch table: measured fastest at 1024x1024x1024 on sm90.wgmma (a stream-K tail where the model finds "
            "it gains at this shape); in pairs sharing A: rows of A or B off the 32-byte sectors");
  const Problem odd = problem(DataType::bf16, DataType::bf16, 1023, 1025, 1027);
  EXPECT_NEAR(sm90_wave_fill(odd, Sm90Config{128, 64, 1}, ctx.device), 136.0 / 264.0, 1e-12);
  c = choose(ctx, odd, ws);
  ASSERT_EQ(c.why, Why::model);
  EXPECT_EQ(c.sm90.tile_n, 128);  // 72 tiles of 128 x 128
  EXPECT_EQ(describe(c, odd).reason,
            "model: 128x128 tiles: fewer 128x256 tiles than SMs (the table's entry at 1024x1024x1024 would fill the "
            "GPU's waves far less here)");
}

namespace {

// ctx with the H100's figures under an H200's name and one FP32 table entry at m x n x k: 128 x 256
// tiles (16 x 8 thread tiles, 3 stages) in `splits` slices of K.
void with_fp32_entry(ContextImpl& ctx, std::int64_t m, std::int64_t n, std::int64_t k, int splits) {
  ctx.device = h100();
  ctx.device.props.name = "NVIDIA H200";
  assume_simt_occupancy(ctx.device);
  ctx.table = parse_table(fmt::format(R"({{"device": "NVIDIA H200", "match": "H200", "entries": [
    {{"types": "f32.f32", "layout": "NN", "m": {}, "n": {}, "k": {}, "kernel": "sm80.simt_pipelined",
     "config": {{"tile_m": 128, "tile_n": 256, "thread_m": 16, "stages": 3, "group_m": 32, "splits": {}, "stream_k": 0}}}}]}})",
                                      m, n, k, splits),
                          "test");
}

}  // namespace

// The same for the FP32 family: the H200's 1024^3 entry, 128 x 256 tiles in 4 slices, makes 128
// blocks on 132 SMs there, 160 at 1023 x 1025 x 1027 (a second wave of 28: 0.128 ms, 58% of
// cuBLAS, in the shape suite at 8b5ae2f).
TEST(DispatchTable, Fp32EntryWhoseSlicesWouldFillFewerWavesLeavesTheChoiceToTheModel) {
  ContextImpl ctx;
  with_fp32_entry(ctx, 1024, 1024, 1024, 4);
  const std::size_t ws = std::size_t(1) << 26;
  const Problem own = problem(DataType::f32, DataType::f32, 1024, 1024, 1024);
  Choice c = choose(ctx, own, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, own).reason;
  EXPECT_EQ(c.simt.splits, 4);
  const SimtConfig entry = c.simt;
  EXPECT_NEAR(simt_wave_fill(own, c.simt, ctx.device), 128.0 / 132.0, 1e-12);
  const Problem odd = problem(DataType::f32, DataType::f32, 1023, 1025, 1027);
  EXPECT_NEAR(simt_wave_fill(odd, c.simt, ctx.device), 160.0 / 264.0, 1e-12);
  c = choose(ctx, odd, ws);
  ASSERT_EQ(c.why, Why::model);
  EXPECT_NE(describe(c, odd).reason.find("would fill the GPU's waves far less here"), std::string::npos);
  // 1200^3: 200 blocks, a second wave of 68 (0.76 against the entry's 0.97): the entry ran it in
  // 0.1229 ms on an H200, the model's choice in 0.1024.
  const Problem wider = problem(DataType::f32, DataType::f32, 1200, 1200, 1200);
  EXPECT_NEAR(simt_wave_fill(wider, entry, ctx.device), 200.0 / 264.0, 1e-12);
  EXPECT_EQ(choose(ctx, wider, ws).why, Why::model);
  // 1000^3: 128 blocks, as at the entry's shape: the entry.
  EXPECT_EQ(choose(ctx, problem(DataType::f32, DataType::f32, 1000, 1000, 1000), ws).why, Why::table);
}

// FP32 table entries predate the 32 x 128 tiles: where the model takes them, its choice replaces
// the entry's, and the reason says so; at the entry's own shape the entry stands.
TEST(DispatchTable, Fp32EntryGivesWayToThirtyTwoRowTiles) {
  ContextImpl ctx;
  with_fp32_entry(ctx, 128, 4096, 4096, 8);
  const std::size_t ws = std::size_t(1) << 26;
  const Problem own = problem(DataType::f32, DataType::f32, 128, 4096, 4096);
  Choice c = choose(ctx, own, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, own).reason;
  EXPECT_EQ(c.simt.tile_m, 128);
  const Problem thin = problem(DataType::f32, DataType::f32, 96, 4096, 4096);
  c = choose(ctx, thin, ws);
  EXPECT_EQ(c.family, Family::simt);
  EXPECT_EQ(c.simt.tile_m, 32);
  EXPECT_EQ(c.simt.tile_n, 128);
  EXPECT_GT(c.simt.splits, 1);
  EXPECT_NE(describe(c, thin).reason.find("32x128 tiles"), std::string::npos) << describe(c, thin).reason;
}

// FP32 table entries were measured on a B read in 16-byte pieces. A neighbour whose packed rows of
// 4095 floats the main loop would copy 4 bytes at a time runs the entry's tiles on B's aligned copy
// where the model copies, and the reason says so; an aligned neighbour runs the entry as it is.
TEST(DispatchTable, Fp32EntryRunsOnBsAlignedCopyWhereRowsAreNot) {
  ContextImpl ctx;
  with_fp32_entry(ctx, 4096, 4096, 4096, 1);
  const std::size_t ws = std::size_t(1) << 27;
  const Problem aligned = problem(DataType::f32, DataType::f32, 4096, 4096, 4093);
  Choice c = choose(ctx, aligned, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, aligned).reason;
  EXPECT_FALSE(c.simt.copy_b);
  const Problem odd = problem(DataType::f32, DataType::f32, 4097, 4095, 4093);
  c = choose(ctx, odd, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, odd).reason;
  EXPECT_TRUE(c.simt.copy_b);
  EXPECT_EQ(c.simt.tile_n, 256);
  EXPECT_NE(describe(c, odd).reason.find("B first copied into aligned rows"), std::string::npos) << describe(c, odd).reason;
  EXPECT_NE(describe(c, odd).config.find("copy_b=aligned"), std::string::npos) << describe(c, odd).config;
}

// An entry's 128 x 192 tiles, measured at 768 x 3072 x 768 before 192 x 96 tiles existed, run as
// 192 x 96 ones there (128 tiles, one round, against 96 of the wider tile's area), and so do its
// neighbours where those finish in fewer rounds over at most 32 k-tiles.
TEST(DispatchTable, EntryTilesBecome192RowsWhereThoseFinishInFewerRounds) {
  ContextImpl ctx;
  with_sm90_entry(ctx, 768, 3072, 768, R"({"tile_m": 128, "tile_n": 192, "stream_k": 1})");
  const std::size_t ws = std::size_t(1) << 26;
  for (const std::int64_t m : {768, 700}) {
    const Problem p = problem(DataType::bf16, DataType::bf16, m, 3072, 768);
    const Choice c = choose(ctx, p, ws);
    ASSERT_EQ(c.why, Why::table) << describe(c, p).reason;
    EXPECT_EQ(c.sm90.tile_m, 192) << m;
    EXPECT_EQ(c.sm90.tile_n, 96) << m;
    EXPECT_NE(describe(c, p).reason.find("in 192x96 tiles instead"), std::string::npos) << describe(c, p).reason;
  }
  // At 1024 x 3072 x 768 (a second round of 192 x 96 tiles) the entry's tile stands.
  const Problem taller = problem(DataType::bf16, DataType::bf16, 1024, 3072, 768);
  const Choice c = choose(ctx, taller, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, taller).reason;
  EXPECT_EQ(c.sm90.tile_m, 128);
  EXPECT_EQ(c.sm90.tile_n, 192);
  // So it does over more than 32 k-tiles: an entry at 1536^2 x 2048 gives 192 x 96 tiles at 1536^3
  // (24 k-tiles) and keeps its own at 1536^2 x 2560 (40).
  with_sm90_entry(ctx, 1536, 1536, 2048, R"({"tile_m": 128, "tile_n": 192, "stream_k": 1})");
  for (const auto& [k, tile_m] : {std::pair<std::int64_t, int>{1536, 192}, {2560, 128}}) {
    const Problem p = problem(DataType::bf16, DataType::bf16, 1536, 1536, k);
    const Choice e = choose(ctx, p, ws);
    ASSERT_EQ(e.why, Why::table) << describe(e, p).reason;
    EXPECT_EQ(e.sm90.tile_m, tile_m) << k;
  }
}

// An entry's pairs of 128 x 256 tiles, measured over 8.7 waves at 6144^3, stay pairs at a
// neighbour only where the pairs' rule holds there: 5120^3 has 6.1 waves of such tiles (on an H200
// single tiles with a stream-K tail ran 3% faster), 7000^3 11.7. At its own shape the entry stands.
TEST(DispatchTable, EntryPairsOfWideTilesStayPairsOnlyWhereTheyGain) {
  ContextImpl ctx;
  with_sm90_entry(ctx, 6144, 6144, 6144, R"({"tile_m": 128, "tile_n": 256, "cluster": 2, "stream_k": 1})");
  const std::size_t ws = std::size_t(1) << 26;
  const auto pick = [&](std::int64_t s) {
    const Problem p = problem(DataType::bf16, DataType::bf16, s, s, s);
    const Choice c = choose(ctx, p, ws);
    EXPECT_EQ(c.why, Why::table) << describe(c, p).reason;
    EXPECT_EQ(c.sm90.tile_n, 256);
    return std::make_pair(c.sm90.cluster, describe(c, p).reason);
  };
  EXPECT_EQ(pick(6144).first, 2);
  EXPECT_EQ(pick(7000).first, 2);
  const auto [cluster, reason] = pick(5120);
  EXPECT_EQ(cluster, 1);
  EXPECT_NE(reason.find("single tiles, not the entry's pairs"), std::string::npos) << reason;
}

TEST(DispatchSm90, ModelFollowsWavesAndEpilogue) {
  const DeviceState dev = h100();
  // 4096^3: 512 tiles of 128 x 256, 3.9 waves: 128 x 256 alone, with the tail model on.
  Sm90Config c = sm90_model_choice(problem(DataType::bf16, DataType::f32, 4096, 4096, 4096), dev, 1 << 26, false);
  EXPECT_EQ(c.tile_n, 256);
  EXPECT_EQ(c.cluster, 1);
  EXPECT_EQ(c.stream_k, 1);
  // 16384 x 16384: 62 waves: pairs; with a fused epilogue, alone (pairs are not compiled with one).
  Problem big = problem(DataType::bf16, DataType::f32, 16384, 16384, 1024);
  EXPECT_EQ(sm90_model_choice(big, dev, 1 << 26, false).cluster, 2);
  big.act = Activation::gelu_tanh;
  EXPECT_EQ(sm90_model_choice(big, dev, 1 << 26, false).cluster, 1);
  // As many waves with a K of one k-tile: a tile is its epilogue, and pairs lose; from 8 k-tiles on
  // they gain.
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::bf16, 16384, 16384, 64), dev, 1 << 26, false).cluster, 1);
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::bf16, 16384, 16384, 448), dev, 1 << 26, false).cluster, 1);
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::bf16, 16384, 16384, 512), dev, 1 << 26, false).cluster, 2);
  // 1024 x 2048: 64 tiles of 128 x 256 for 132 SMs: 128 x 128 (128 of them, one round; 88 tiles of
  // 128 x 192 would be one round too, of wider tiles). 1024^2: 64 tiles of 128 x 128 would leave
  // half the SMs idle: 128 x 64 (128 tiles). n <= 64: 128 x 64 whatever m.
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::f32, 1024, 2048, 1536), dev, 0, false).tile_n, 128);
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::f32, 1024, 1024, 1024), dev, 0, false).tile_n, 64);
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::f32, 16384, 64, 4096), dev, 0, false).tile_n, 64);
  // Grouped launches have no 128 x 64 instantiation: 128 x 128.
  Problem few_groups = problem(DataType::bf16, DataType::bf16, 1024, 1024, 1024);
  few_groups.groups = 4;
  few_groups.offsets = reinterpret_cast<const std::int32_t*>(std::uintptr_t(4) << 40);
  EXPECT_EQ(sm90_model_choice(few_groups, dev, 0, false).tile_n, 128);
  // Batch invariant: one configuration, no tail, whatever m.
  for (std::int64_t m : {1, 100, 4096, 100000}) {
    const Sm90Config b = sm90_model_choice(problem(DataType::bf16, DataType::f32, m, 4096, 4096), dev, 1 << 26, true);
    EXPECT_EQ(b.tile_n, 256);
    EXPECT_EQ(b.cluster, 1);
    EXPECT_EQ(b.stream_k, 0);
  }
}

// Under a wave of 128 x 256 tiles, from 0.6 of one, they stay rather than give way to twice as
// many 128 x 128 tiles (two rounds with a stream-K tail): docs/shapes.md, "128 x 256 tiles from 0.6
// of a wave".
TEST(DispatchSm90, WideTilesFromSixTenthsOfAWave) {
  const DeviceState dev = h100();
  const auto tile_n = [&](const Problem& p, std::size_t workspace) {
    return sm90_model_choice(p, dev, workspace, false).tile_n;
  };
  // 256 x 14336 (112 tiles of 128 x 256, 0.85 of a wave), 16384 x 256 (128, 0.97), 10752 x 256
  // (84, 0.64): 128 x 256. 1024 x 2048 (64, 0.48): 128 x 128; 1024 x 2304 (72, 0.55): not 128 x 256
  // (128 x 192 tiles there: one round of 96 against two of 128 x 128).
  EXPECT_EQ(tile_n(problem(DataType::bf16, DataType::bf16, 256, 14336, 4096), 1 << 26), 256);
  EXPECT_EQ(tile_n(problem(DataType::bf16, DataType::bf16, 16384, 256, 4096), 1 << 26), 256);
  EXPECT_EQ(tile_n(problem(DataType::f16, DataType::f16, 10752, 256, 3072), 1 << 26), 256);
  EXPECT_EQ(tile_n(problem(DataType::bf16, DataType::bf16, 1024, 2048, 4096), 1 << 26), 128);
  EXPECT_EQ(tile_n(problem(DataType::bf16, DataType::bf16, 1024, 2304, 4096), 1 << 26), 192);
  // 5568 x 384 (88 tiles, 0.67): 132 tiles of 128 x 128 finish in one round, half the area of the
  // wide tiles' round, whose last column is half padding.
  EXPECT_EQ(tile_n(problem(DataType::bf16, DataType::bf16, 5568, 384, 8000), 1 << 26), 128);
  // 12411 x 249 x 6718 (97 tiles, 0.73): A's rows (13,436 bytes) are copied; 167 MB of copies do not
  // fit 64 MiB, so D is cut into blocks by the tiles, and the whole wave is asked for. With room
  // for the copies, 128 x 256.
  const Problem copied = problem(DataType::bf16, DataType::bf16, 12411, 249, 6718);
  EXPECT_EQ(tile_n(copied, 1 << 26), 128);
  EXPECT_EQ(tile_n(copied, std::size_t(1) << 30), 256);
  // Grouped: the whole wave (2048 rows in 4 groups x 1280: about 90 tiles).
  Problem grouped = problem(DataType::bf16, DataType::bf16, 2048, 1280, 4096);
  grouped.groups = 4;
  grouped.offsets = reinterpret_cast<const std::int32_t*>(std::uintptr_t(4) << 40);
  EXPECT_EQ(tile_n(grouped, 1 << 26), 128);
  const Problem wide = problem(DataType::bf16, DataType::bf16, 256, 14336, 4096);
  Choice c;
  c.family = Family::sm90;
  c.sm90 = sm90_model_choice(wide, dev, 1 << 26, false);
  EXPECT_EQ(describe(c, wide).reason.find("fewer 128x256 tiles than SMs"), std::string::npos) << describe(c, wide).reason;
}

// Single 128 x 64 tiles go in pairs sharing A where an operand is read in place with rows off the
// 32-byte sectors and K is 16 k-tiles or more (A), 32 or more (B): only such rows make pairs pay
// (docs/shapes.md).
TEST(DispatchSm90, PairsSmallTilesWhereOperandRowsAreOffTheSectors) {
  const DeviceState dev = h100();
  const auto model = [&](const Problem& p) { return sm90_model_choice(p, dev, std::size_t(1) << 26, false); };
  const auto pairs = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const Sm90Config c = model(problem(DataType::bf16, DataType::bf16, m, n, k));
    EXPECT_EQ(c.tile_n, 64) << m << "x" << n << "x" << k;
    return c.cluster == 2;
  };
  EXPECT_TRUE(pairs(1000, 1000, 1000));
  EXPECT_TRUE(pairs(1024, 1024, 1000));    // A's rows of 2000 bytes, B's of 2048
  EXPECT_FALSE(pairs(1024, 1024, 1024));
  EXPECT_FALSE(pairs(1000, 1000, 1024));   // only B's rows are off the sectors, and 16 k-tiles
  EXPECT_TRUE(pairs(1000, 1000, 2048));    // only B's, and 32 k-tiles
  EXPECT_FALSE(pairs(960, 960, 1200));     // A's rows of 2400 bytes start on sectors (off 128-byte lines)
  EXPECT_FALSE(pairs(520, 520, 520));      // 9 k-tiles
  EXPECT_FALSE(pairs(1000, 1000, 1001));   // A is copied into rows of 128-byte multiples first
  Problem view = problem(DataType::bf16, DataType::bf16, 1024, 1024, 1024);
  view.a.ptr = static_cast<const char*>(view.a.ptr) + 16;  // a sub-matrix starting 8 columns in
  EXPECT_EQ(model(view).cluster, 2);
  view.act = Activation::relu;  // pairs are compiled with the plain epilogue only
  EXPECT_EQ(model(view).cluster, 1);
  const Problem square = problem(DataType::bf16, DataType::bf16, 1000, 1000, 1000);
  Choice c;
  c.family = Family::sm90;
  c.sm90 = model(square);
  EXPECT_EQ(describe(c, square).reason,
            "model: 128x64 tiles: 128x128 tiles would leave half the SMs or more idle; in pairs sharing A: rows of A "
            "or B off the 32-byte sectors (no table entry near 1000x1000x1000)");
}

// Where rows of A or B read in place start off the 128-byte lines, the TMA reads them slowly, and
// 128 x 256 tiles (the fewest operand bytes a FLOP) take over from narrower or taller ones: in
// pairs sharing B where B's rows lie off the 32-byte sectors (over half a wave), or off the lines
// with B N-major over a wave and a half (docs/shapes.md, "Wide tiles where rows read slowly").
TEST(DispatchSm90, WideTilesWhereRowsReadSlowly) {
  const DeviceState dev = h100();
  const std::size_t ws = std::size_t(1) << 26;
  const auto model = [&](const Problem& p) { return sm90_model_choice(p, dev, ws, false); };
  const auto bf16 = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return problem(DataType::bf16, DataType::bf16, m, n, k);
  };
  const auto tile = [&](const Problem& p) {
    const Sm90Config c = model(p);
    return std::tuple{c.tile_m, c.tile_n, c.cluster};
  };
  // Rows of 4000 bytes: off the lines, on the sectors. 128 tiles of 128 x 256 (one round) against
  // 256 of 128 x 128 (two): as long, and the wide ones read less.
  EXPECT_EQ(tile(bf16(2000, 2000, 2000)), std::tuple(128, 256, 1));
  // Rows on the lines, 7 k-tiles, A copied into 128-byte rows: 128 x 256 as well, since 0.97 of a
  // wave of them is past wide_tiles_min_waves's 0.6 whatever the rows.
  EXPECT_EQ(tile(bf16(2048, 2048, 2048)), std::tuple(128, 256, 1));
  EXPECT_EQ(tile(bf16(2000, 2000, 448)), std::tuple(128, 256, 1));
  EXPECT_EQ(tile(bf16(2048, 2048, 2001)), std::tuple(128, 256, 1));
  // B's rows of 3600, 4400 and 6000 bytes lie off the sectors: pairs sharing B, whatever the rounds.
  EXPECT_EQ(tile(bf16(1800, 1800, 1800)), std::tuple(128, 256, 2));
  EXPECT_EQ(tile(bf16(2200, 2200, 2200)), std::tuple(128, 256, 2));
  EXPECT_EQ(tile(bf16(3000, 3000, 3000)), std::tuple(128, 256, 2));
  EXPECT_NE(std::get<1>(tile(bf16(1352, 1352, 1352))), 256);  // 66 tiles of 128 x 256: half the SMs
  EXPECT_EQ(tile(bf16(2152, 968, 7536)), std::tuple(128, 256, 2));  // 68 tiles
  // Off the lines only: pairs over a wave and a half with B N-major, single tiles with B K-major.
  EXPECT_EQ(tile(bf16(5416, 5264, 4112)), std::tuple(128, 256, 2));
  Problem nt = bf16(5416, 5264, 4112);
  nt.b.k_major = true, nt.b.ld = nt.k;  // B's rows of 8224 bytes
  EXPECT_EQ(tile(nt), std::tuple(128, 256, 1));
  // Only A's rows off the sectors (K = 5048): pairs share B, not A, so single tiles.
  EXPECT_EQ(tile(bf16(6122, 1600, 5048)), std::tuple(128, 256, 1));
  Problem fused = bf16(1800, 1800, 1800);
  fused.act = Activation::relu;  // pairs are compiled with the plain epilogue only
  EXPECT_EQ(tile(fused), std::tuple(128, 256, 1));
  Problem grouped = bf16(1800, 1800, 1800);
  grouped.groups = 4;
  EXPECT_NE(sm90_wide_tiles_where_rows_read_slowly(grouped, Sm90Config{128, 128, 1}, dev).tile_n, 256);
  Choice c;
  c.family = Family::sm90;
  const Problem square = bf16(2000, 2000, 2000);
  c.sm90 = model(square);
  EXPECT_EQ(describe(c, square).reason,
            "model: 128x256 tiles: rows of A or B off the 128-byte lines read slowly, and wide tiles read the fewest "
            "bytes a FLOP (no table entry near 2000x2000x2000)");
  // A table entry measured at 2048^3 (rows on the lines) with 128 x 128 tiles.
  ContextImpl ctx;
  with_sm90_entry(ctx, 2048, 2048, 2048, R"({"tile_m": 128, "tile_n": 128, "cluster": 1, "stream_k": 0})");
  c = choose(ctx, square, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, square).reason;
  EXPECT_EQ(std::tuple(c.sm90.tile_m, c.sm90.tile_n, c.sm90.cluster), std::tuple(128, 256, 1));
  EXPECT_EQ(describe(c, square).reason,
            "dispatch table: measured fastest at 2048x2048x2048 on sm90.wgmma (a stream-K tail where the model finds "
            "it gains at this shape); in 128x256 tiles: rows of A or B off the 128-byte lines read slowly (the "
            "entry's were on them), and wide tiles read the fewest bytes a FLOP");
  c = choose(ctx, bf16(2048, 2048, 2048), ws);
  EXPECT_EQ(c.sm90.tile_n, 128);  // the entry's own shape
  const Problem off = bf16(1800, 1800, 1800);
  c = choose(ctx, off, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, off).reason;
  EXPECT_EQ(std::tuple(c.sm90.tile_m, c.sm90.tile_n, c.sm90.cluster), std::tuple(128, 256, 2));
}

// A batch-invariant call's candidates have no stream-K tail: where the tail falls depends on m.
TEST(DispatchCandidates, BatchInvariantCallsGetNoStreamKTail) {
  ContextImpl ctx;
  ctx.device = h100();
  for (DataType ab : {DataType::bf16, DataType::f32}) {
    Problem p = problem(ab, DataType::f32, 1000, 256, 512);
    p.tf32 = ab == DataType::f32;
    int tails = 0, without = 0;
    for (const Choice& c : candidates(ctx, p, std::size_t(1) << 26))
      tails += c.sm90.stream_k != 0 || c.tf32.stream_k != 0 || c.simt.stream_k != 0;
    EXPECT_GT(tails, 0) << "a reproducible call is offered tails";
    p.determinism = Determinism::batch_invariant;
    for (const Choice& c : candidates(ctx, p, std::size_t(1) << 26)) {
      EXPECT_EQ(c.sm90.stream_k + c.tf32.stream_k + c.simt.stream_k, 0) << describe(c, p).config;
      ++without;
    }
    EXPECT_GT(without, 1);
  }
}

// What tune times beside a split pick: the same tiles in half and twice the slices, where those
// can run (at most one slice a k-tile, partial sums within the workspace); nothing for a pick that
// does not split K.
TEST(DispatchCandidates, SplitNeighboursHalveAndDoubleTheSlices) {
  ContextImpl ctx;
  ctx.device = h100();
  const std::size_t ws = std::size_t(1) << 26;
  const auto slices = [&](const Problem& p, std::size_t bytes) {
    std::vector<int> out;
    const Choice pick = choose(ctx, p, bytes);
    for (const Choice& c : split_neighbours(ctx, p, pick, bytes)) {
      EXPECT_EQ(c.family, pick.family);
      EXPECT_EQ(std::tuple(c.sm90.tile_m, c.sm90.tile_n), std::tuple(pick.sm90.tile_m, pick.sm90.tile_n));
      EXPECT_EQ(std::tuple(c.tf32.tile_m, c.simt.tile_m), std::tuple(pick.tf32.tile_m, pick.simt.tile_m));
      out.push_back(c.sm90.splits * c.tf32.splits * c.simt.splits);
    }
    return out;
  };
  // The model asks for 66 slices of the 1024 k-tiles; 64 of 16 run, and the plan names 64.
  const Problem one = problem(DataType::bf16, DataType::bf16, 128, 128, 65536);
  const Choice pick = choose(ctx, one, ws);
  EXPECT_EQ(pick.sm90.splits, 64);
  EXPECT_NE(describe(pick, one).config.find("splits=64 "), std::string::npos) << describe(pick, one).config;
  EXPECT_EQ(slices(one, ws), (std::vector<int>{32, 128}));
  // 128 slices (of 64 KiB, 8 MiB) do not fit 6 MiB: only the half.
  EXPECT_EQ(slices(one, std::size_t(6) << 20), (std::vector<int>{32}));
  // 128 slices of 64 x 64 x 65536, 8 k-tiles each: 256 would still be within the 1024 k-tiles.
  EXPECT_EQ(slices(problem(DataType::bf16, DataType::bf16, 64, 64, 65536), ws), (std::vector<int>{64, 256}));
  Problem tf32 = problem(DataType::f32, DataType::f32, 128, 128, 65536);
  tf32.tf32 = true;
  const std::vector<int> t = slices(tf32, ws);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(2 * t[0], t[1] / 2);
  EXPECT_TRUE(slices(problem(DataType::bf16, DataType::f32, 4096, 4096, 4096), ws).empty());
}

// A candidate names the split-K slices that run: 4 asked of K = 320 (5 k-tiles of 64) share
// them out as 3 of at most 2 k-tiles, and the candidate says 3; the TF32 model's 32 of K = 16833 (527
// k-tiles of 32) run as 31 of 17; the FP32 kernel's 128 of K = 4099 as 86.
TEST(DispatchCandidates, SplitCountsAreTheSlicesThatRun) {
  ContextImpl ctx;
  ctx.device = h100();
  const std::size_t ws = std::size_t(1) << 26;
  const Problem short_k = problem(DataType::bf16, DataType::bf16, 128, 128, 320);
  std::set<int> counts;
  for (const Choice& c : candidates(ctx, short_k, ws))
    if (c.family == Family::sm90 && c.sm90.splits > 1) counts.insert(c.sm90.splits);
  EXPECT_EQ(counts, (std::set<int>{2, 3}));
  Problem tf32 = problem(DataType::f32, DataType::f32, 74, 167, 16833);
  tf32.tf32 = true;
  const Choice pick = choose(ctx, tf32, ws);
  ASSERT_EQ(pick.family, Family::sm90_tf32);
  EXPECT_EQ(pick.tf32.splits, 31);
  // The FP32 CUDA-core kernel likewise: the model's 128 of K = 4099 (257 k-tiles of 16) run as 86
  // of 3, not 128 with 42 of them empty.
  const Choice simt = choose(ctx, problem(DataType::f32, DataType::f32, 7, 13, 4099), ws);
  ASSERT_EQ(simt.family, Family::simt);
  EXPECT_EQ(simt.simt.splits, 86);
  SimtConfig asked = simt.simt;
  asked.splits = 128;
  EXPECT_EQ(simt_slices(problem(DataType::f32, DataType::f32, 7, 13, 4099), asked), 86);
  // and its workspace holds the partial sums of those 86, not of 128
  EXPECT_EQ(simt_workspace_bytes(problem(DataType::f32, DataType::f32, 7, 13, 4099), asked, ctx.device),
            std::size_t(86) * 7 * 13 * sizeof(float));
  asked.splits = 1;
  EXPECT_EQ(simt_slices(problem(DataType::f32, DataType::f32, 7, 13, 4099), asked), 1);
  // The same with the GPU test's epilogue (ApiTyped.CudaCoreSplitKRunsTheSlicesThatHoldKTiles):
  // a per-column bias, GELU and beta with C = D.
  Problem fused = problem(DataType::f32, DataType::f32, 7, 13, 4099);
  fused.beta = 0.5f, fused.c = fused.d, fused.ldc = fused.ldd;
  fused.bias_kind = BiasKind::per_column, fused.bias = reinterpret_cast<const void*>(std::uintptr_t(4) << 40);
  fused.act = Activation::gelu_tanh;
  const Choice fused_pick = choose(ctx, fused, ws);
  ASSERT_EQ(fused_pick.family, Family::simt);
  EXPECT_EQ(fused_pick.simt.splits, 86);
  // tune's neighbours of 86 name what runs too: 43 of 6 k-tiles, and 172 asked as 129 of 2.
  std::set<int> neighbours;
  for (const Choice& c : split_neighbours(ctx, fused, fused_pick, ws)) neighbours.insert(c.simt.splits);
  EXPECT_EQ(neighbours, (std::set<int>{43, 129}));
  // Counts that run as the same slices are one candidate: of K = 100's 7 k-tiles, 8, 16 and 32
  // asked all run 7, and tune times them once.
  const Problem short_fp32 = problem(DataType::f32, DataType::f32, 7, 13, 100);
  std::set<std::string> launches;
  int simt_candidates = 0;
  for (const Choice& c : candidates(ctx, short_fp32, ws))
    if (c.family == Family::simt) {
      ++simt_candidates;
      launches.insert(describe(c, short_fp32).config);
    }
  EXPECT_GT(simt_candidates, 1);
  EXPECT_EQ(std::size_t(simt_candidates), launches.size());
}

// 64 x 64 tiles for m <= 64 (a 128-row tile would be half padding) and where 128 x 64 tiles would
// leave half the SMs idle with a K short against m and n, and 64 x 32 tiles where 64 x 64 ones
// would fill at most half the SMs with a K-major A; dense and plain calls only (the only 64-row
// instantiations), the model's choice and a table entry's alike.
TEST(DispatchSm90, SixtyFourRowTilesForShortMOrTooFewTiles) {
  const DeviceState dev = h100();
  const std::size_t ws = std::size_t(1) << 26;
  const auto tile = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const Sm90Config c = sm90_model_choice(problem(DataType::bf16, DataType::bf16, m, n, k), dev, ws, false);
    return std::pair{c.tile_m, c.tile_n};
  };
  using Tile = std::pair<int, int>;
  EXPECT_EQ(tile(64, 14336, 4096), (Tile{64, 64}));     // m <= 64: 224 tiles, whatever the width before
  EXPECT_EQ(tile(64, 128256, 4096), (Tile{64, 64}));    // even where 128 x 256 tiles filled 3.8 waves
  EXPECT_EQ(tile(128, 4096, 4096), (Tile{64, 64}));     // 64 tiles of 128 x 64, 128 of 64 x 64
  EXPECT_EQ(tile(8192, 64, 8192), (Tile{64, 64}));      // likewise (it was split-K over 64 tiles)
  EXPECT_EQ(tile(256, 256, 256), (Tile{64, 64}));     // 16 tiles, but 4 k-tiles: fixed costs dominate
  EXPECT_EQ(tile(512, 512, 512), (Tile{64, 64}));
  EXPECT_EQ(tile(64, 4096, 4096), (Tile{64, 32}));    // 64 tiles of 64 x 64, 128 of 64 x 32, not split (below)
  EXPECT_EQ(tile(128, 2048, 2048), (Tile{64, 32}));   // likewise
  EXPECT_EQ(tile(64, 2048, 2048), (Tile{64, 32}));    // 64 of 64 x 32 leave half the SMs idle, but K <= n
  EXPECT_EQ(tile(40, 2048, 2048), (Tile{64, 64}));    // a tile row 37% padding
  EXPECT_EQ(tile(64, 2048, 4096), (Tile{64, 64}));    // K = 2 n: split-K of 64 x 64 tiles serves better
  EXPECT_EQ(tile(96, 2048, 2048), (Tile{64, 64}));    // a tile row a quarter padding
  EXPECT_EQ(tile(128, 2048, 8192), (Tile{64, 64}));   // K long against m and n
  EXPECT_EQ(tile(768, 768, 768), (Tile{128, 64}));    // 72 tiles of 128 x 64: over half the SMs
  EXPECT_EQ(tile(64, 64, 65536), (Tile{64, 64}));     // a long K: split-K over 64 x 64 tiles
  EXPECT_EQ(tile(120, 2048, 3000), (Tile{64, 64}));   // A's rows of 6000 bytes lie off the 32-byte sectors
  EXPECT_EQ(tile(64, 3500, 3000), (Tile{64, 64}));    // B's rows of 7000 bytes likewise
  Problem tn = problem(DataType::bf16, DataType::bf16, 64, 4096, 2048);
  tn.a.k_major = false, tn.a.ld = 64;  // an M-major A in rows of 128 bytes
  EXPECT_EQ(sm90_model_choice(tn, dev, ws, false).tile_n, 32);
  EXPECT_EQ(tile(1000, 1000, 1000), (Tile{128, 64}));   // 128 tiles of 128 x 64 fill the GPU
  EXPECT_EQ(tile(512, 512, 32768), (Tile{128, 128}));   // a long K: split-K of bigger tiles
  EXPECT_EQ(tile(4096, 4096, 4096), (Tile{128, 256}));
  // No 64 x 64 instantiation with a fused epilogue or grouped: 128-row tiles.
  Problem fused = problem(DataType::bf16, DataType::bf16, 64, 4096, 4096);
  fused.act = Activation::relu;
  EXPECT_EQ(sm90_model_choice(fused, dev, ws, false).tile_m, 128);
  EXPECT_FALSE(sm90_reject(problem(DataType::bf16, DataType::bf16, 64, 4096, 4096), Sm90Config{64, 64, 1}, dev, ws));
  EXPECT_TRUE(sm90_reject(fused, Sm90Config{64, 64, 1}, dev, ws));
  // A table entry measured before 64 x 64 tiles existed: its 128 x 64 tiles become 64 x 64 ones.
  ContextImpl ctx;
  ctx.device = dev;
  ctx.table = parse_table(R"({"device": "NVIDIA H100 80GB HBM3", "match": "H100", "entries": [
    {"types": "bf16.bf16", "layout": "NN", "m": 128, "n": 4096, "k": 4096, "kernel": "sm90.wgmma",
     "config": {"tile_m": 128, "tile_n": 64, "cluster": 1, "stream_k": 0}}]})",
                          "test");
  const Problem own = problem(DataType::bf16, DataType::bf16, 128, 4096, 4096);
  Choice c = choose(ctx, own, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, own).reason;
  EXPECT_EQ(c.sm90.tile_m, 64);
  EXPECT_EQ(c.sm90.tile_n, 64);
  EXPECT_EQ(describe(c, own).reason,
            "dispatch table: measured fastest at 128x4096x4096 on sm90.wgmma; in 64-row tiles: m <= 64, or 128-row "
            "tiles would leave half the SMs or more idle");
  // An entry of 128 x 256 tiles in pairs, at m <= 64: 64 x 64 tiles alone, and said so.
  ctx.table = parse_table(R"({"device": "NVIDIA H100 80GB HBM3", "match": "H100", "entries": [
    {"types": "bf16.bf16", "layout": "NN", "m": 64, "n": 65536, "k": 4096, "kernel": "sm90.wgmma",
     "config": {"tile_m": 128, "tile_n": 256, "cluster": 2, "stream_k": 1}}]})",
                          "test");
  const Problem wide = problem(DataType::bf16, DataType::bf16, 64, 65536, 4096);
  c = choose(ctx, wide, ws);
  ASSERT_EQ(c.why, Why::table) << describe(c, wide).reason;
  EXPECT_EQ(c.sm90.tile_m, 64);
  EXPECT_EQ(c.sm90.cluster, 1);
  EXPECT_NE(describe(c, wide).reason.find("in 64-row tiles"), std::string::npos) << describe(c, wide).reason;
  ContextImpl no_table;
  no_table.device = dev;
  c = choose(no_table, own, ws);
  EXPECT_EQ(describe(c, own).reason,
            "model: 64x64 tiles: 128x64 tiles would leave half the SMs or more idle (no table entry near 128x4096x4096)");
  const Problem decode = problem(DataType::bf16, DataType::bf16, 48, 5000, 2000);
  c = choose(no_table, decode, ws);
  EXPECT_EQ(describe(c, decode).reason,
            "model: 64x64 tiles: m <= 64 (a 128-row tile would be half padding) (no table entry near 48x5000x2000)");
}

// 128 x 192 tiles where they finish in at least a tenth less time by whole rounds of tiles (tiles
// on the fullest SM x the tile's width), and 192 x 96 tiles likewise (tiles on the fullest SM x
// the tile's area), dense and plain calls only.
TEST(DispatchSm90, Takes192WideTilesWhereTheyFinishInFewerRounds) {
  const DeviceState dev = h100();
  const auto tile_n = [&](const Problem& p) { return sm90_model_choice(p, dev, 1 << 26, false).tile_n; };
  // 3072^3: 384 tiles of 128 x 192 (three rounds of 192) against 288 of 128 x 256 (three of 256)
  // and 512 of 192 x 96 (four rounds of 0.75 the area: even); 1536 x 4096: 264 (two of 192)
  // against 192 of 256 (two of 256) and 344 of 192 x 96 (three).
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{3072, 3072}, {1536, 4096}})
    EXPECT_EQ(tile_n(problem(DataType::bf16, DataType::bf16, m, n, 1024)), 192) << m << " x " << n;
  // 1536^3: 128 tiles of 192 x 96 (one round) against 96 of 128 x 192 (one round of a third more
  // area), 72 of 128 x 256 or 144 of 128 x 128 (two rounds); 768 x 3072 likewise (128 against 96).
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{1536, 1536}, {768, 3072}}) {
    const Sm90Config c = sm90_model_choice(problem(DataType::f16, DataType::f32, m, n, 1024), dev, 1 << 26, false);
    EXPECT_EQ(c.tile_m, 192) << m << " x " << n;
    EXPECT_EQ(c.tile_n, 96) << m << " x " << n;
  }
  // Over more than 32 k-tiles the rounds give way to the wider tiles' faster main loop: 1536^2 x
  // 2048 keeps 192 x 96 tiles, 1536^2 x 2112 takes 128 x 192 ones (one round of 96).
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::bf16, 1536, 1536, 2048), dev, 1 << 26, false).tile_m, 192);
  const Sm90Config long_k = sm90_model_choice(problem(DataType::bf16, DataType::bf16, 1536, 1536, 2112), dev, 1 << 26, false);
  EXPECT_EQ(long_k.tile_m, 128);
  EXPECT_EQ(long_k.tile_n, 192);
  const Problem square = problem(DataType::bf16, DataType::bf16, 3072, 3072, 1024);
  Choice c;
  c.family = Family::sm90;
  c.sm90 = sm90_model_choice(square, dev, 1 << 26, false);
  EXPECT_NE(describe(c, square).reason.find("model: 128x192 tiles: they finish in fewer rounds"), std::string::npos)
      << describe(c, square).reason;
  const Problem small = problem(DataType::bf16, DataType::bf16, 1536, 1536, 1536);
  c.sm90 = sm90_model_choice(small, dev, 1 << 26, false);
  EXPECT_NE(describe(c, small).reason.find("model: 192x96 tiles: they finish in fewer rounds"), std::string::npos)
      << describe(c, small).reason;
  // Near ties and losses keep the wider or narrower tile: 4096^2 (six rounds of 192 against four of
  // 256), 5120^2 (9 x 192 against 7 x 256: 4% less), 8192^2 (21 x 192 against 16 x 256: 2% less);
  // 2048^2 (two rounds of 192 against one of 256: 128 tiles, 0.97 of a wave).
  for (const std::int64_t s : {4096, 5120, 8192, 2048})
    EXPECT_EQ(tile_n(problem(DataType::f16, DataType::f32, s, s, 1024)), 256) << s;
  // n <= 128 stays with 128 x 128.
  EXPECT_EQ(tile_n(problem(DataType::bf16, DataType::f32, 16384, 128, 1024)), 128);
  // A fused epilogue and grouped launches have no 128 x 192 or 192 x 96 instantiation: 128 x 256 /
  // 128 x 128.
  Problem fused = problem(DataType::bf16, DataType::bf16, 1536, 1536, 1536);
  fused.act = Activation::relu;
  EXPECT_EQ(tile_n(fused), 128);
  EXPECT_EQ(sm90_model_choice(fused, dev, 1 << 26, false).tile_m, 128);
  Problem grouped = problem(DataType::bf16, DataType::bf16, 3072, 3072, 1024);
  grouped.groups = 4;
  grouped.offsets = reinterpret_cast<const std::int32_t*>(std::uintptr_t(4) << 40);
  EXPECT_NE(tile_n(grouped), 192);
}

TEST(DispatchSm90, SplitsKForAFewTilesWithALongK) {
  const DeviceState dev = h100();
  const std::size_t ws = std::size_t(1) << 26;
  // 128 x 128 x 65536: one tile of 1024 k-tiles. 128 slices of 8 would fill the 132 SMs, but each
  // would write and read back 128 KiB of partial sums for 256 KiB of operands: 64 slices of 16 in
  // 128 x 128 tiles fill 64 SMs. Two 128 x 64 tiles in 66 requested slices (64 of 16 k-tiles) fill
  // 128, with the same 4 MiB of partial sums.
  const Problem one = problem(DataType::bf16, DataType::bf16, 128, 128, 65536);
  Sm90Config c = sm90_model_choice(one, dev, ws, false);
  EXPECT_EQ(std::tuple(c.tile_m, c.tile_n, c.splits, c.stream_k), std::tuple(128, 64, 66, 0));
  EXPECT_EQ(split_k_slices(one.k, c.splits, 64).splits, 64);
  EXPECT_FALSE(sm90_reject(one, c, dev, ws));
  EXPECT_EQ(sm90_workspace_bytes(one, c, dev, ws), 64u * 128u * 128u * 4u);
  // 64 x 64 x 65536: one 64 x 64 tile (m <= 64), a quarter of the outputs, so 128 slices; two
  // 64 x 32 tiles would fill no more SMs (64 slices each, at most a CTA an SM), so not those.
  const Sm90Config quarter = sm90_model_choice(problem(DataType::bf16, DataType::bf16, 64, 64, 65536), dev, ws, false);
  EXPECT_EQ(std::tuple(quarter.tile_m, quarter.tile_n, quarter.splits), std::tuple(64, 64, 128));
  // 32 x 52 x 63998: 125 slices of one 64 x 64 tile, or 66 requested of two 64 x 32 tiles (132 CTAs).
  const Sm90Config thin = sm90_model_choice(problem(DataType::bf16, DataType::bf16, 32, 52, 63998), dev, ws, false);
  EXPECT_EQ(std::tuple(thin.tile_m, thin.tile_n, thin.splits), std::tuple(64, 32, 66));
  // Less workspace: fewer slices (16 of 64 KiB fit 1 MiB, in two 128 x 64 tiles); none fit 100 KiB.
  EXPECT_EQ(std::tuple(sm90_model_choice(one, dev, 1 << 20, false).tile_n, sm90_model_choice(one, dev, 1 << 20, false).splits),
            std::tuple(64, 16));
  EXPECT_EQ(sm90_model_choice(one, dev, 100000, false).splits, 1);
  // 64 x 4096 x 4096: 128 tiles of 64 x 32, none (64 tiles of 64 x 64 took 2 slices of 32 k-tiles
  // before 64 x 32 tiles); 128 x 4096 x 4096: 128 tiles of 64 x 64, none; 512 x 512 x 32768 (K long
  // against m and n): 8 slices of 128 x 128 tiles. 1024^3 (64 tiles, 16 k-tiles each), 4096^3 and a
  // batch of small problems: none.
  const Sm90Config decode = sm90_model_choice(problem(DataType::bf16, DataType::f32, 64, 4096, 4096), dev, ws, false);
  EXPECT_EQ(decode.tile_m, 64);
  EXPECT_EQ(decode.tile_n, 32);
  EXPECT_EQ(decode.splits, 1);
  const Sm90Config rows128 = sm90_model_choice(problem(DataType::bf16, DataType::f32, 128, 4096, 4096), dev, ws, false);
  EXPECT_EQ(rows128.tile_m, 64);
  EXPECT_EQ(rows128.splits, 1);
  const Sm90Config long_k = sm90_model_choice(problem(DataType::bf16, DataType::f32, 512, 512, 32768), dev, ws, false);
  EXPECT_EQ(long_k.tile_m, 128);
  EXPECT_EQ(long_k.tile_n, 128);
  EXPECT_EQ(long_k.splits, 8);
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::f32, 1024, 1024, 1024), dev, ws, false).splits, 1);
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::f32, 4096, 4096, 4096), dev, ws, false).splits, 1);
  Problem batched = problem(DataType::bf16, DataType::bf16, 64, 64, 65536);
  batched.batch = 4, batched.a.stride = 64 * 65536, batched.stride_d = 64 * 64;
  EXPECT_EQ(sm90_model_choice(batched, dev, ws, false).splits, 1);
  // Batch invariance: never (the slices depend on the shape).
  EXPECT_EQ(sm90_model_choice(one, dev, ws, true).splits, 1);
  // The refusals name what is wrong.
  auto refusal = [&](const Problem& p, const Sm90Config& cfg, std::size_t bytes) {
    const auto why = sm90_reject(p, cfg, dev, bytes);
    return why ? *why : std::string();
  };
  EXPECT_NE(refusal(batched, c, ws).find("split-K takes one problem"), std::string::npos);
  Sm90Config many = c;
  many.splits = 2000;
  EXPECT_NE(refusal(one, many, ws).find("2000 splits of K = 65536"), std::string::npos);
  EXPECT_NE(refusal(one, c, 1000).find("needs 4194304 bytes of workspace"), std::string::npos) << refusal(one, c, 1000);
  Problem invariant = one;
  invariant.determinism = Determinism::batch_invariant;
  EXPECT_NE(refusal(invariant, c, ws).find("not batch-invariant"), std::string::npos);
}

TEST(DispatchSm90, CopiesWhatTmaCannotAddressIntoTheWorkspace) {
  const DeviceState dev = h100();
  const Sm90Config c{128, 256, 1, 8, 0};  // no stream-K tail: the workspace is the copies alone
  const std::size_t ws = std::size_t(1) << 26;
  Problem p = problem(DataType::bf16, DataType::f32, 256, 256, 256);
  EXPECT_EQ(p.layout_name(), std::string("NN"));
  EXPECT_FALSE(sm90_reject(p, c, dev, 0));
  EXPECT_EQ(sm90_workspace_bytes(p, c, dev, ws), 0u);
  // A with 514 bytes between rows: its 256 rows of K = 256 copied into 512-byte rows.
  Problem odd = p;
  odd.a.ld = 257;
  const auto why = sm90_reject(odd, c, dev, 1000);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("A is not TMA-addressable"), std::string::npos) << *why;
  EXPECT_NE(why->find("131072 bytes of workspace"), std::string::npos) << *why;
  EXPECT_NE(why->find("the call has 1000"), std::string::npos) << *why;
  EXPECT_FALSE(sm90_reject(odd, c, dev, ws));
  EXPECT_EQ(sm90_workspace_bytes(odd, c, dev, ws), 131072u);
  // B too (K x N, N-major, N = 250: rows of 500 bytes, copied into rows of 256 elements).
  Problem both = odd;
  both.n = 250, both.b.ld = 250, both.ldd = 250;
  const auto why_both = sm90_reject(both, c, dev, 0);
  ASSERT_TRUE(why_both);
  EXPECT_NE(why_both->find("A and B are not TMA-addressable"), std::string::npos) << *why_both;
  EXPECT_EQ(sm90_workspace_bytes(both, c, dev, ws), 2u * 131072u);
  // Room for B's copy and half of A's: D in blocks of a tile's rows (B's 250 columns are one tile).
  EXPECT_FALSE(sm90_reject(both, c, dev, 196608));
  EXPECT_LE(sm90_workspace_bytes(both, c, dev, 196608), 196608u);
  EXPECT_EQ(sm90_copy_blocks(both, c, dev, 196608).rows, 128);
  EXPECT_TRUE(sm90_reject(both, c, dev, 131072));  // not even B's columns and a tile's rows
  // A broadcast B (stride 0) is copied once, whatever the batch.
  Problem batched = both;
  batched.batch = 4, batched.a.stride = 256 * 257, batched.b.stride = 0, batched.stride_d = 256 * 250;
  EXPECT_EQ(sm90_workspace_bytes(batched, c, dev, ws), 4u * 131072u + 131072u);
  Problem f32 = problem(DataType::f32, DataType::f32, 256, 256, 256);
  ASSERT_TRUE(sm90_reject(f32, c, dev, ws));
  EXPECT_NE(sm90_reject(f32, c, dev, ws)->find("bf16 and f16"), std::string::npos);
  DeviceState a100 = dev;
  a100.cc = 80;
  const auto old = sm90_reject(p, c, a100, ws);
  ASSERT_TRUE(old);
}

// Less than a wave of units with a long K: every unit becomes a tail unit and the idle clusters
// help with its k-tiles; a wave or more keeps plan_stream_k_tail's choice.
TEST(DispatchGrid, FewUnitsWithALongKSpreadOverEveryCluster) {
  const GridPlan one = plan_grid(1, 132, 1024, TailMode::when_faster);  // 64 x 64 x 65536
  EXPECT_EQ(one.clusters, 132);
  EXPECT_EQ(one.tail.units, 1);
  EXPECT_GT(one.tail.owner_k, 0);
  EXPECT_LT(one.tail.owner_k, 64);
  const GridPlan decode = plan_grid(32, 132, 64, TailMode::when_faster);  // 16 x 4096 x 4096, 128 x 128 tiles
  EXPECT_EQ(decode.clusters, 132);
  EXPECT_EQ(decode.tail.units, 32);
  const GridPlan short_k = plan_grid(32, 132, 1, TailMode::always);  // one k-tile: nothing to share
  EXPECT_EQ(short_k.clusters, 32);
  EXPECT_EQ(short_k.tail.units, 0);
  const GridPlan off = plan_grid(1, 132, 1024, TailMode::off);
  EXPECT_EQ(off.clusters, 1);
  EXPECT_EQ(off.tail.units, 0);
  const GridPlan waves = plan_grid(1000, 132, 64, TailMode::always);
  EXPECT_EQ(waves.clusters, 132);
  EXPECT_EQ(waves.tail.units, tc::plan_stream_k_tail(1000, 132, 64, TailMode::always).units);
}

// Below a wave the modelled tail must take at most 55% of the time of whole units (on an H200,
// tails the model rated at 0.59 to 0.72 of K ran slower than whole units; at 0.30 and 0.54, faster).
TEST(DispatchGrid, BelowAWaveTheTailMustSaveMore) {
  const GridPlan long_k = plan_grid(32, 132, 128, TailMode::when_faster);  // TF32 128 x 4096 x 4096, 128 x 128 tiles
  EXPECT_EQ(long_k.tail.units, 32);
  const GridPlan half = plan_grid(64, 132, 256, TailMode::when_faster);  // TF32 8192 x 64 x 8192, 128 x 128 tiles
  EXPECT_EQ(half.tail.units, 64);
  const GridPlan fp16 = plan_grid(64, 132, 64, TailMode::when_faster);  // FP16 96 x 4096 x 4096, 128 x 64 tiles
  EXPECT_EQ(fp16.clusters, 64);
  EXPECT_EQ(fp16.tail.units, 0);
  const GridPlan odd = plan_grid(42, 132, 18, TailMode::when_faster);  // TF32 333 x 777 x 555, 64-row tiles
  EXPECT_EQ(odd.clusters, 42);
  EXPECT_EQ(odd.tail.units, 0);
  const GridPlan asked = plan_grid(64, 132, 64, TailMode::always);  // asked for: taken whatever the model says
  EXPECT_EQ(asked.clusters, 132);
  EXPECT_EQ(asked.tail.units, 64);
  // After whole waves the quarter rule stands: the same helpers and K on the last 64 units of a
  // launch one wave longer.
  EXPECT_EQ(tc::plan_stream_k_tail(64 + 132, 132, 64, TailMode::when_faster).units, 64);
}

TEST(DispatchTf32, AsksWorkspaceForAnMMajorA) {
  const DeviceState dev = h100();
  Problem p = problem(DataType::f32, DataType::f32, 1024, 1024, 1024);
  p.tf32 = true;
  p.a.k_major = false;
  p.a.ld = 1024;
  const Tf32Config c = tf32_model_choice(p, dev, 1 << 26, false);
  const auto small = tf32_reject(p, c, dev, 1024);
  ASSERT_TRUE(small);
  EXPECT_NE(small->find("M-major"), std::string::npos) << *small;
  EXPECT_FALSE(tf32_reject(p, c, dev, std::size_t(1) << 30));
  Problem strict = p;
  strict.tf32 = false;
  EXPECT_TRUE(tf32_reject(strict, c, dev, 1 << 30));
}

// An M-major A with a K-major B (TT, or NN with a column-major D): the transposed problem, written
// column-major, needs no copy of A and no workspace; with split-K (whose second pass writes
// row-major) or an N-major B, A is copied.
TEST(DispatchTf32, ServesAnMMajorAWithAKMajorBByTheTransposedProblem) {
  const DeviceState dev = h100();
  Problem p = problem(DataType::f32, DataType::f32, 4096, 2048, 768);  // 256 tiles of D^T
  p.tf32 = true;
  p.a.k_major = false, p.a.ld = 4096;
  p.b.k_major = true, p.b.ld = 768;
  Tf32Config c;
  EXPECT_TRUE(tf32_swaps(p, c));
  Problem few = p;  // 128 tiles: the copy of A is faster than the transposed result's stores
  few.m = 2048, few.a.ld = 2048;
  EXPECT_FALSE(tf32_swaps(few, c));
  Problem invariant = p;  // the choice depends on m: never for batch-invariant calls
  invariant.determinism = Determinism::batch_invariant;
  EXPECT_FALSE(tf32_swaps(invariant, c));
  EXPECT_FALSE(tf32_reject(p, c, dev, 0));
  EXPECT_EQ(tf32_workspace_bytes(p, c, dev, 0), 0u);
  Tf32Config split = c;
  split.splits = 4;
  EXPECT_FALSE(tf32_swaps(p, split));
  EXPECT_TRUE(tf32_reject(p, split, dev, 0));  // A's copy and the partial sums need workspace
  Problem tn = p;
  tn.b.k_major = false, tn.b.ld = 2048;
  EXPECT_FALSE(tf32_swaps(tn, c));
  EXPECT_TRUE(tf32_reject(tn, c, dev, 0));  // A's K-major copy needs workspace
  // B^T would need a copy of its own (rows of 767 floats are not 16-byte multiples): A is copied.
  Problem odd = p;
  odd.k = 767, odd.b.ld = 767;
  EXPECT_FALSE(tf32_swaps(odd, c));
}

// Operands the TMA cannot address (rows that are not 16-byte multiples) are copied into the
// workspace with rows of 128-byte multiples (32 floats), as the 16-bit kernel's are; too little
// workspace names both.
TEST(DispatchTf32, CopiesWhatTmaCannotAddressIntoTheWorkspace) {
  const DeviceState dev = h100();
  Problem p = problem(DataType::f32, DataType::f32, 300, 250, 333);  // A rows of 1332 bytes, B of 1000
  p.tf32 = true;
  const Tf32Config c = tf32_model_choice(p, dev, 1 << 26, false);
  EXPECT_FALSE(tf32_reject(p, c, dev, 1 << 26));
  // A: 300 rows of 352 floats (422400 bytes); B: 333 rows of 256 (340992).
  EXPECT_GE(tf32_workspace_bytes(p, c, dev, 1 << 26), 422400u + 340992u);
  Problem batched = p;
  batched.batch = 2, batched.a.stride = 300 * 333, batched.stride_d = 300 * 250;  // B broadcast: one copy
  const auto short_ws = tf32_reject(batched, c, dev, 4096);
  ASSERT_TRUE(short_ws);
  EXPECT_NE(short_ws->find("A is not TMA-addressable"), std::string::npos) << *short_ws;
  EXPECT_NE(short_ws->find("B is not TMA-addressable"), std::string::npos) << *short_ws;
  EXPECT_NE(short_ws->find("need 1185792 bytes"), std::string::npos) << *short_ws;  // 2 x 422400 + 340992
  Problem aligned = problem(DataType::f32, DataType::f32, 300, 256, 336);
  aligned.tf32 = true;
  EXPECT_FALSE(tf32_reject(aligned, c, dev, 0));  // nothing to copy, no tail: no workspace
}

// TF32 allowed, a D of at most 64 x 64 whose operands must be copied, a few MB of them: the exact
// FP32 kernel goes first (no copies); aligned operands, a larger D or more bytes keep the TF32 one.
TEST(DispatchTf32, SmallProblemsWhoseOperandsNeedCopiesTakeTheExactFp32Kernel) {
  ContextImpl ctx;
  ctx.device = h100();
  assume_simt_occupancy(ctx.device);
  const std::size_t ws = std::size_t(1) << 26;
  const Problem odd = tf32_problem(7, 13, 4099);  // A rows of 4099 floats, B rows of 13: both copied
  ASSERT_GT(tf32_copies_bytes(odd), 0u);
  const Choice c = choose(ctx, odd, ws);
  EXPECT_EQ(c.family, Family::simt);
  EXPECT_NE(describe(c, odd).reason.find("the exact FP32 kernel reads them as stored"), std::string::npos)
      << describe(c, odd).reason;
  EXPECT_EQ(choose(ctx, tf32_problem(64, 64, 4099), ws).family, Family::simt);
  EXPECT_EQ(choose(ctx, tf32_problem(64, 64, 4096), ws).family, Family::sm90_tf32);    // nothing to copy
  EXPECT_EQ(choose(ctx, tf32_problem(65, 64, 4099), ws).family, Family::sm90_tf32);    // more than 64 rows
  EXPECT_EQ(choose(ctx, tf32_problem(50, 60, 30001), ws).family, Family::sm90_tf32);   // 13 MB of operands
  Problem exact = odd;
  exact.tf32 = false;
  EXPECT_EQ(choose(ctx, exact, ws).family, Family::simt);  // FP32 products asked for: as before
}

// TF32 allowed, operands the TF32 kernel must copy, and few multiply-adds for the bytes copied
// (counted over the FP32 kernel's 32 x 128 tiles): the exact FP32 kernel, which reads them as
// stored, goes first, also where a TF32 table entry lies near. More flops a copied byte, or only
// a small operand copied, keep the TF32 kernel.
TEST(DispatchTf32, ProblemsBoundByTheirCopiesTakeTheExactFp32Kernel) {
  ContextImpl ctx;
  ctx.device = h100();
  assume_simt_occupancy(ctx.device);
  const std::size_t ws = std::size_t(1) << 26;
  const Problem bound = tf32_problem(44, 2467, 6510);  // 64 x 2560 x 6510 padded: 32 flops a byte of B's 66 MB copy
  ASSERT_GT(tf32_copies_bytes(bound), std::size_t(60) << 20);
  const Choice c = choose(ctx, bound, ws);
  EXPECT_EQ(c.family, Family::simt);
  EXPECT_NE(describe(c, bound).reason.find("would first copy operands whose bytes take longer"), std::string::npos)
      << describe(c, bound).reason;
  EXPECT_EQ(choose(ctx, tf32_problem(17, 3001, 3001), ws).family, Family::simt);
  EXPECT_EQ(choose(ctx, tf32_problem(44, 2468, 6512), ws).family, Family::sm90_tf32);    // aligned: nothing to copy
  EXPECT_EQ(choose(ctx, tf32_problem(74, 167, 16833), ws).family, Family::sm90_tf32);    // 167 columns pad to 256: 46
  EXPECT_EQ(choose(ctx, tf32_problem(2467, 44, 6510), ws).family, Family::sm90_tf32);    // 44 columns pad to 128: 63
  EXPECT_EQ(choose(ctx, tf32_problem(48, 2000, 10001), ws).family, Family::sm90_tf32);   // only A (1.9 MB) copied
  EXPECT_EQ(choose(ctx, tf32_problem(1500, 1001, 999), ws).family, Family::sm90_tf32);   // thousands of flops a byte
  Problem exact = bound;
  exact.tf32 = false;
  EXPECT_EQ(choose(ctx, exact, ws).family, Family::simt);
  // A TF32 entry within the table's reach was measured without copies: it does not take the problem back.
  ctx.table = parse_table(R"({"device": "NVIDIA H100 80GB HBM3", "match": "H100", "entries": [
    {"types": "tf32.f32", "layout": "NN", "m": 48, "n": 2048, "k": 6144, "kernel": "sm90.wgmma_swapab",
     "config": {"tile_m": 64, "cluster": 1, "group_m": 8, "stream_k": 0, "splits": 1}}]})",
                          "test");
  ASSERT_NE(ctx.table.nearest(class_key("tf32.f32", "NN"), bound.m, bound.n, bound.k, 1), nullptr);
  EXPECT_EQ(choose(ctx, bound, ws).family, Family::simt);
  EXPECT_EQ(choose(ctx, tf32_problem(48, 2048, 6144), ws).family, Family::sm90_tf32);  // the entry's own, aligned shape
}

TEST(DispatchTf32, EntriesOfWholeTilesLeaveTheSplitOfKToTheModelOverOneRowOfTiles) {
  ContextImpl ctx;
  with_h100_table(ctx);
  const std::size_t ws = std::size_t(1) << 26;
  const Problem near = tf32_problem(100, 3000, 5000);
  const TableEntry* e = ctx.table.nearest(class_key("tf32.f32", "NN"), near.m, near.n, near.k, 1);
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->m, 128);
  ASSERT_EQ(e->config.count("splits") ? e->config.at("splits") : 1, 1);
  const Tf32Config model = tf32_model_choice(near, ctx.device, ws, false);
  ASSERT_GE(model.splits, 2);
  const Choice c = choose(ctx, near, ws);
  ASSERT_EQ(c.family, Family::sm90_tf32);
  EXPECT_EQ(c.tf32.splits, model.splits);
  EXPECT_EQ(c.why, Why::model);
  EXPECT_NE(describe(c, near).reason.find("entry at 128x4096x4096 has whole tiles, and the model splits K here"),
            std::string::npos)
      << describe(c, near).reason;
  // At the entry's own shape the entry serves, split or not by the model.
  const Problem at = tf32_problem(128, 4096, 4096);
  const Choice own = choose(ctx, at, ws);
  EXPECT_EQ(own.why, Why::table);
  EXPECT_EQ(own.tf32.splits, 1);
  // Over more rows of tiles the entry serves, its tiles in 64 rows where those gain, though the
  // model of 128-row tiles would split K.
  const Problem rows = tf32_problem(700, 1000, 1024);
  const Choice many = choose(ctx, rows, ws);
  EXPECT_EQ(many.why, Why::table) << describe(many, rows).reason;
  EXPECT_EQ(many.tf32.tile_m, 64);
  EXPECT_EQ(many.tf32.splits, 1);
  // Where the model does not split, the entry serves its neighbours as before.
  const Problem square = tf32_problem(1000, 1000, 1000);
  ASSERT_LE(tf32_model_choice(square, ctx.device, ws, false).splits, 1);
  EXPECT_EQ(choose(ctx, square, ws).why, Why::table);
}

// Where A is read in place with rows off the 32-byte sectors (an ld * 4 not a multiple of 32),
// TF32 tiles go in pairs sharing A over more than half a wave, whatever a table entry measured at
// an aligned shape said (docs/shapes.md, "TF32 pairs where A's rows read slowly").
TEST(DispatchTf32, PairsWhereARowsLieOffTheSectors) {
  ContextImpl ctx;
  with_h100_table(ctx);
  const std::size_t ws = std::size_t(1) << 26;
  const auto cluster = [&](const Problem& p) {
    const Choice c = choose(ctx, p, ws);
    EXPECT_EQ(c.family, Family::sm90_tf32);
    return c.tf32.cluster;
  };
  const Problem off = tf32_problem(2004, 2004, 2004);  // A's rows of 8016 bytes: 16 off a sector
  EXPECT_EQ(cluster(off), 2);
  const Choice c = choose(ctx, off, ws);
  EXPECT_EQ(c.why, Why::table);
  EXPECT_NE(describe(c, off).reason.find("in pairs sharing A: A's rows off the 32-byte sectors"), std::string::npos)
      << describe(c, off).reason;
  EXPECT_EQ(cluster(tf32_problem(2048, 2048, 2048)), 1);  // the entry's own shape, rows on lines
  EXPECT_EQ(cluster(tf32_problem(2000, 2000, 2000)), 1);  // rows of 8000 bytes: on the sectors
  EXPECT_EQ(cluster(tf32_problem(2048, 2004, 2048)), 1);  // only B's rows off the sectors
  Problem nt = tf32_problem(2004, 2004, 2004);
  nt.b.k_major = true;  // B's layout does not matter: A is the shared operand
  EXPECT_EQ(cluster(nt), 2);
  // The model's choice likewise (no table), and not below half a wave of tiles nor with A copied.
  ctx.table = Table{};
  EXPECT_EQ(cluster(tf32_problem(1500, 1500, 1500)), 2);  // 72 tiles of 256 x 128: one wave or less
  EXPECT_EQ(cluster(tf32_problem(1500, 1500, 1496)), 1);  // rows of 5984 bytes: on the sectors
  EXPECT_EQ(tf32_pairs_where_rows_read_slowly(tf32_problem(700, 1000, 1004), Tf32Config{}, ctx.device).cluster, 1);
  Problem copied = tf32_problem(2004, 2004, 2004);
  copied.a.k_major = false, copied.a.ld = copied.m;  // an M-major A is copied K-major first
  EXPECT_EQ(tf32_pairs_where_rows_read_slowly(copied, Tf32Config{}, ctx.device).cluster, 1);
}

TEST(DispatchTf32, SplitsKForAFewTilesWithALongK) {
  const DeviceState dev = h100();
  Problem p = problem(DataType::f32, DataType::f32, 128, 128, 65536);
  p.tf32 = true;
  // One 128 x 128 tile of 2048 k-tiles (32 deep): 128 slices of 16; 8 MiB of partial sums.
  const Tf32Config c = tf32_model_choice(p, dev, 1 << 26, false);
  EXPECT_EQ(c.splits, 128);
  EXPECT_EQ(c.stream_k, 0);
  EXPECT_FALSE(tf32_reject(p, c, dev, 1 << 26));
  EXPECT_EQ(tf32_workspace_bytes(p, c, dev, 1 << 26), 128u * 128u * 128u * 4u);
  const auto short_ws = tf32_reject(p, c, dev, 4096);
  ASSERT_TRUE(short_ws);
  EXPECT_NE(short_ws->find("needs 8388608 bytes of workspace"), std::string::npos) << *short_ws;
  EXPECT_EQ(tf32_model_choice(p, dev, 1 << 26, true).splits, 1);  // batch-invariant: never
  // 4096^3: 512 tiles, no split.
  Problem big = problem(DataType::f32, DataType::f32, 4096, 4096, 4096);
  big.tf32 = true;
  EXPECT_EQ(tf32_model_choice(big, dev, 1 << 26, false).splits, 1);
}

// 128-row tiles for m <= 128 and where 256-row tiles would fill at most half the SMs; 256 rows
// from there (one wave of 256-row tiles rather than two of 128-row ones). 64-row tiles by the same
// measure against 128-row ones, where K is short against m and n.
TEST(DispatchTf32, TakesTilesOf128Or64RowsForFewRowsOrFewTiles) {
  const DeviceState dev = h100();
  auto rows = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    Problem p = problem(DataType::f32, DataType::f32, m, n, k);
    p.tf32 = true;
    const Tf32Config c = tf32_model_choice(p, dev, 1 << 26, false);
    EXPECT_FALSE(tf32_reject(p, c, dev, 1 << 26)) << m << "x" << n << "x" << k;
    return c.tile_m;
  };
  EXPECT_EQ(rows(128, 28672, 8192), 128);  // decode-like: half of a 256-row tile would be padding
  EXPECT_EQ(rows(32, 14336, 4096), 64);    // and half of a 128-row one
  EXPECT_EQ(rows(1000, 1000, 1000), 64);   // 32 tiles of 256 rows, 64 of 128, 128 of 64
  EXPECT_EQ(rows(512, 512, 512), 64);
  EXPECT_EQ(rows(768, 1536, 1024), 128);   // 72 tiles of 128 rows: more than half the SMs
  EXPECT_EQ(rows(512, 512, 32768), 128);   // a long K: split-K of 128-row tiles
  EXPECT_EQ(rows(256, 4096, 14336), 128);  // K longer than m and n
  // Over more than two rows of 128-row tiles, K up to twice the longer side: whole 64-row tiles,
  // not split; over one or two rows such a K splits 128-row tiles.
  EXPECT_EQ(rows(700, 1000, 1024), 64);
  EXPECT_EQ(rows(500, 1000, 1200), 64);
  EXPECT_EQ(rows(1000, 600, 1900), 64);
  EXPECT_EQ(rows(700, 1000, 2048), 128);   // K over twice the longer side
  EXPECT_EQ(rows(256, 2048, 3000), 128);   // two rows
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{500, 1000, 1200}, {1000, 500, 1300}, {333, 1333, 2000}})
    EXPECT_EQ(tf32_model_choice(tf32_problem(m, n, k), dev, 1 << 26, false).splits, 1) << m << "x" << n << "x" << k;
  EXPECT_GE(tf32_model_choice(tf32_problem(256, 2048, 3000), dev, 1 << 26, false).splits, 2);
  EXPECT_EQ(rows(8192, 64, 8192), 128);    // 64 columns: a 128-wide tile is half padding either way
  EXPECT_EQ(rows(1536, 1536, 1536), 256);  // 72 tiles: more than half the SMs
  EXPECT_EQ(rows(2048, 2048, 2048), 256);
  EXPECT_EQ(rows(4096, 4096, 4096), 256);
  EXPECT_EQ(rows(256, 16384, 16384), 256);
  // One row of tiles: alone, whatever the number of tiles (A is one tile); more rows: in pairs.
  Problem lm_head = problem(DataType::f32, DataType::f32, 64, 128256, 4096);
  lm_head.tf32 = true;
  EXPECT_EQ(tf32_model_choice(lm_head, dev, 1 << 26, false).cluster, 1);
  Problem square = problem(DataType::f32, DataType::f32, 4096, 4096, 4096);
  square.tf32 = true;
  EXPECT_EQ(tf32_model_choice(square, dev, 1 << 26, false).cluster, 2);
  Problem p = problem(DataType::f32, DataType::f32, 1000, 1000, 1000);
  p.tf32 = true;
  EXPECT_EQ(tf32_model_choice(p, dev, 1 << 26, true).tile_m, 256);  // batch-invariant: one configuration
  // The tuner tries all three.
  int with_128 = 0, with_64 = 0;
  for (const Tf32Config& c : tf32_configs()) with_128 += c.tile_m == 128, with_64 += c.tile_m == 64;
  EXPECT_GE(with_128, 4);
  EXPECT_GE(with_64, 2);
  // A table entry's 128-row tiles become 64-row ones where those gain.
  ContextImpl ctx;
  ctx.device = dev;
  ctx.table = parse_table(R"({"device": "NVIDIA H100 80GB HBM3", "match": "H100", "entries": [
    {"types": "tf32.f32", "layout": "NN", "m": 512, "n": 512, "k": 512, "kernel": "sm90.wgmma_swapab",
     "config": {"tile_m": 128, "cluster": 1, "stream_k": 0}}]})",
                          "test");
  Problem near = problem(DataType::f32, DataType::f32, 500, 500, 500);
  near.tf32 = true;
  const Choice chosen = choose(ctx, near, 1 << 26);
  ASSERT_EQ(chosen.why, Why::table) << describe(chosen, near).reason;
  EXPECT_EQ(chosen.tf32.tile_m, 64);
  EXPECT_NE(describe(chosen, near).reason.find("in 64-row tiles"), std::string::npos) << describe(chosen, near).reason;
}

TEST(DispatchSkinny, TakesShortSidesOfSixtyFourAndSaysWhyNot) {
  const DeviceState dev = h100();
  const SkinnyConfig c{4};
  const std::size_t ws = std::size_t(1) << 26;
  // A decode step (m = 16) and a projection to a few outputs (n = 8) are its shapes; 65 x 65 is not.
  EXPECT_FALSE(skinny_reject(problem(DataType::bf16, DataType::bf16, 16, 4096, 4096), c, dev, ws));
  EXPECT_FALSE(skinny_reject(problem(DataType::f16, DataType::f32, 16384, 8, 16384), c, dev, ws));
  auto why = [&](const Problem& p, std::size_t workspace) { return skinny_reject(p, c, dev, workspace).value_or("accepted"); };
  EXPECT_NE(why(problem(DataType::bf16, DataType::f32, 65, 65, 4096), ws).find("more than 64 rows"), std::string::npos);
  SkinnyConfig bulk = c;
  bulk.bulk = 1;
  auto why_bulk = [&](const Problem& p) { return skinny_reject(p, bulk, dev, ws).value_or("accepted"); };
  // k not a multiple of a 16-byte vector: the register path reads W unaligned (skinny.cuh, kWU) and
  // copies X K-major in rows of whole vectors (16 x 4104); the TMA-fed form refuses it.
  const Problem k_4099 = problem(DataType::bf16, DataType::f32, 16, 4096, 4099);
  EXPECT_FALSE(skinny_reject(k_4099, c, dev, ws));
  EXPECT_EQ(skinny_workspace_bytes(k_4099, c, dev), 16u * 4104u * 2u);
  EXPECT_NE(why_bulk(k_4099).find("k = 4099"), std::string::npos);
  // FP32 operands: only where TF32 is allowed; 16-byte vectors of 4, D in f32 only.
  auto tf32 = [](Problem p) {
    p.tf32 = true;
    return p;
  };
  EXPECT_NE(why(problem(DataType::f32, DataType::f32, 16, 4096, 4096), ws).find("FP32 products"), std::string::npos);
  EXPECT_FALSE(skinny_reject(tf32(problem(DataType::f32, DataType::f32, 16, 4096, 4100)), c, dev, ws));
  EXPECT_FALSE(skinny_reject(tf32(problem(DataType::f32, DataType::f32, 16, 4096, 4098)), c, dev, ws));
  EXPECT_NE(why_bulk(tf32(problem(DataType::f32, DataType::f32, 16, 4096, 4098))).find("not a multiple of 4"),
            std::string::npos);
  EXPECT_NE(why(tf32(problem(DataType::f32, DataType::bf16, 16, 4096, 4096)), ws).find("operands' type or f32"),
            std::string::npos);
  Problem invariant = problem(DataType::bf16, DataType::f32, 16, 4096, 4096);
  invariant.determinism = Determinism::batch_invariant;
  EXPECT_NE(why(invariant, ws).find("batch-invariant"), std::string::npos);
  // B (the long operand of a decode step) stored N-major with n not a multiple of 8: read
  // unaligned by the register path, refused by the TMA-fed form.
  Problem n_4100 = problem(DataType::bf16, DataType::f32, 16, 4100, 4096);
  EXPECT_FALSE(skinny_reject(n_4100, c, dev, ws));
  EXPECT_NE(why_bulk(n_4100).find("16-byte vectors"), std::string::npos);  // ld = 4100
  n_4100.b.ld = 4104;
  EXPECT_FALSE(skinny_reject(n_4100, c, dev, ws));
  EXPECT_NE(why_bulk(n_4100).find("n side, which is not a multiple of 8"), std::string::npos);
  // An M-major A: the register path reads it as stored; the TMA-fed form copies it K-major into
  // the workspace first (16 x 4096 elements).
  Problem m_major = problem(DataType::bf16, DataType::f32, 16, 4096, 4096);
  m_major.a = {m_major.a.ptr, 16, 0, false};
  EXPECT_EQ(skinny_workspace_bytes(m_major, c, dev), 0u);
  EXPECT_FALSE(skinny_reject(m_major, c, dev, 0));
  EXPECT_EQ(skinny_workspace_bytes(m_major, bulk, dev), 16u * 4096u * 2u);
  EXPECT_NE(skinny_reject(m_major, bulk, dev, 1024).value_or("accepted").find("131072 bytes, the call has 1024"),
            std::string::npos);
  // With 17 to 64 rows (3 to 8 groups of 8 columns), the register path copies it too.
  Problem m_major_24 = problem(DataType::bf16, DataType::f32, 24, 4096, 4096);
  m_major_24.a = {m_major_24.a.ptr, 24, 0, false};
  EXPECT_EQ(skinny_workspace_bytes(m_major_24, c, dev), 24u * 4096u * 2u);
  // A K-major A off 16-byte rows (ld 4100) is copied by both.
  Problem unaligned = problem(DataType::bf16, DataType::f32, 16, 4096, 4096);
  unaligned.a.ld = 4100;
  EXPECT_EQ(skinny_workspace_bytes(unaligned, c, dev), 16u * 4096u * 2u);
  EXPECT_NE(why(unaligned, 1024).find("131072 bytes, the call has 1024"), std::string::npos);
  EXPECT_EQ(skinny_workspace_bytes(problem(DataType::bf16, DataType::f32, 16, 4096, 4096), bulk, dev), 0u);
  Problem m_major_f32 = tf32(problem(DataType::f32, DataType::f32, 16, 4096, 4096));
  m_major_f32.a = {m_major_f32.a.ptr, 16, 0, false};
  EXPECT_EQ(skinny_workspace_bytes(m_major_f32, c, dev), 0u);
  EXPECT_EQ(skinny_workspace_bytes(m_major_f32, bulk, dev), 16u * 4096u * 4u);
  // FP32 over a K-major W (B transposed): copied for both forms.
  Problem tt_f32 = m_major_f32;
  tt_f32.b = {tt_f32.b.ptr, 4096, 0, true};
  EXPECT_EQ(skinny_workspace_bytes(tt_f32, c, dev), 16u * 4096u * 4u);
}

TEST(DispatchSkinny, GoesFirstForShortMAndSmallOperandsOrFewTiles) {
  auto first = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return skinny_first(problem(DataType::bf16, DataType::bf16, m, n, k));
  };
  EXPECT_TRUE(first(1, 4096, 4096));     // a decode step: 32 MiB of B
  EXPECT_TRUE(first(16, 4096, 14336));   // 112 MiB
  EXPECT_TRUE(first(16, 28672, 8192));   // 448 MiB: the TMA-fed form (bulk_first)
  EXPECT_TRUE(first(32, 4096, 4096));    // 17 to 32 rows: the TMA-fed form's wgmma (bulk_first)
  EXPECT_FALSE(first(33, 4096, 4096));   // 33 to 64 rows: the tile kernel
  EXPECT_FALSE(first(32, 1024, 1024));   // 2 MiB of B: the tile kernel
  EXPECT_TRUE(first(1000, 24, 4096));    // 24 columns against 8 MB of A
  EXPECT_TRUE(first(16384, 8, 16384));   // a short n against 512 MiB of A: the TMA-fed form
  EXPECT_FALSE(first(8192, 8, 8192));    // a short n against 128 MiB: the tile kernel
  EXPECT_FALSE(first(16384, 16, 16384)); // 9 to 16 columns: 128 x 64 tiles, a quarter padding
  EXPECT_FALSE(first(64, 64, 65536));    // one tile, a long k: sm90's split-K
  EXPECT_FALSE(first(65, 65, 65536));    // not its shape at all
  EXPECT_FALSE(first(64, 64, 64));       // a small problem (and batches of them): the tile kernel
  // A B the register path reads unaligned (n and k odd): in place from 64 MiB, else copied by the
  // tile kernel.
  EXPECT_TRUE(first(5, 7087, 12991));    // 184 MB
  EXPECT_FALSE(first(16, 4099, 4097));   // 34 MB
  EXPECT_TRUE(first(16, 4096, 4096));    // 32 MiB, aligned
  EXPECT_FALSE(first(16, 4096, 256));    // a short k
  // FP32 operands: only as TF32, 4 bytes an element against the same 256 MiB.
  auto first_f32 = [](std::int64_t m, std::int64_t n, std::int64_t k, bool tf32) {
    Problem p = problem(DataType::f32, DataType::f32, m, n, k);
    p.tf32 = tf32;
    return skinny_first(p);
  };
  EXPECT_TRUE(first_f32(1, 4096, 4096, true));
  EXPECT_FALSE(first_f32(1, 4096, 4096, false));   // FP32 products asked for
  EXPECT_TRUE(first_f32(16, 4096, 14336, true));    // 224 MiB
  // Past 256 MiB, 9 to 16 rows: the TF32 tile kernel's 64-row tiles (tf32_tiles_first); at most 8
  // rows: the TMA-fed form.
  EXPECT_FALSE(first_f32(16, 8192, 14336, true));   // 448 MiB
  EXPECT_FALSE(first_f32(12, 28672, 8192, true));   // 896 MiB
  EXPECT_TRUE(first_f32(8, 28672, 8192, true));
  EXPECT_TRUE(first_f32(16, 4096, 16384, true));    // 256 MiB: the register path
  EXPECT_FALSE(first_f32(32, 4096, 4096, true));
  EXPECT_FALSE(first_f32(64, 64, 65536, true));  // one tile, a long k: the TF32 tile kernel's split-K
}

// A TF32 decode step of 9 to 16 rows past 256 MiB of an N-major B: 64-row tiles with a split of K
// or a stream-K tail (a plain grid of 64-row tiles fills half the SMs and was the slowest candidate).
TEST(DispatchSkinny, LongTf32DecodeStepsTakeSixtyFourRowTiles) {
  ContextImpl ctx;
  ctx.device = h100();
  for (std::int64_t m : {9, 12, 16}) {
    Problem p = problem(DataType::f32, DataType::f32, m, 8192, 28672);
    p.tf32 = true;
    const Choice c = choose(ctx, p, std::size_t(1) << 26);
    ASSERT_EQ(c.family, Family::sm90_tf32) << describe(c, p).kernel;
    EXPECT_EQ(c.tf32.tile_m, 64);
    EXPECT_TRUE(c.tf32.stream_k != 0 || c.tf32.splits > 1) << describe(c, p).config;
  }
  Problem eight = problem(DataType::f32, DataType::f32, 8, 8192, 28672);
  eight.tf32 = true;
  EXPECT_EQ(choose(ctx, eight, std::size_t(1) << 26).family, Family::skinny);
  // B K-major (NT): the TMA-fed form.
  Problem nt = problem(DataType::f32, DataType::f32, 16, 8192, 28672);
  nt.tf32 = true;
  nt.b = {nt.b.ptr, 28672, 0, true};
  EXPECT_EQ(choose(ctx, nt, std::size_t(1) << 26).family, Family::skinny);
}

TEST(DispatchSkinny, ModelSplitsKUntilTheGpuIsFull) {
  const DeviceState dev = h100();
  // 64 tiles of 64 rows: 8 splits put 512 CTAs on the 736 resident in clusters of 8, 0.70 of a
  // wave. A wave under 4/5 full keeps too few bytes in flight and costs as much as 4/5 of one, so
  // the most splits win.
  EXPECT_EQ(skinny_model_choice(problem(DataType::bf16, DataType::f32, 1, 4096, 4096), dev).splits, 8);
  // 128 tiles (1 x 8192 x 8192): 6 splits are 768 CTAs, more than the 744 resident in clusters of
  // 6 (though 6 CTAs an SM are 792 without clusters); 5 splits are 0.88 of the 730 in clusters of 5.
  EXPECT_EQ(skinny_model_choice(problem(DataType::bf16, DataType::f32, 1, 8192, 8192), dev).splits, 5);
  // k = 256 is 8 steps of 32: too few for the 4 warps of even 2 CTAs to keep 2 each.
  EXPECT_EQ(skinny_model_choice(problem(DataType::bf16, DataType::f32, 1, 4096, 256), dev).splits, 1);
  // 2004 tiles (an LM head's 128256 rows in TF32, 512 deep: 250 MiB, the register path) are 3.04
  // waves of the 660 resident CTAs, the last one charged 4/5 of a wave and each after the first a
  // tenth more: 3 splits make 9.87 waves of 609 (3.73 in the model's units; 2 splits 3.77, 4
  // splits 4.00).
  Problem lm_head = problem(DataType::f32, DataType::f32, 1, 128256, 512);
  lm_head.tf32 = true;
  EXPECT_EQ(skinny_model_choice(lm_head, dev).splits, 3);
  EXPECT_EQ(skinny_model_choice(lm_head, dev).bulk, 0);
  // 320 tiles (8 x 20480 x 4096, 100 MiB) are 0.40 of the 792 CTAs resident without clusters: 2
  // splits make 0.81 (3 make 1.29 waves of 744).
  EXPECT_EQ(skinny_model_choice(problem(DataType::bf16, DataType::f32, 8, 20480, 4096), dev).splits, 2);
  // 172 tiles of 16 rows (16 x 11008 x 4096): 2 splits are 0.65 of the 528 resident, charged 0.8
  // (0.408); 5 splits are 1.83 waves of 470, the second charged a tenth more (0.417; without that
  // tenth 0.395, and 5 splits measured 14% slower than 2).
  EXPECT_EQ(skinny_model_choice(problem(DataType::bf16, DataType::f32, 16, 11008, 4096), dev).splits, 2);
  // A W read unaligned takes a power of two: 1 x 8191 x 8192 (n odd) the 4 or 8 around the 5 of
  // 1 x 8192 x 8192 above.
  const int unaligned = skinny_model_choice(problem(DataType::bf16, DataType::f32, 1, 8191, 8192), dev).splits;
  EXPECT_TRUE(unaligned == 4 || unaligned == 8) << unaligned;
  for (std::int64_t n : {1001, 7087, 14335, 30001}) {
    const int s = skinny_model_choice(problem(DataType::bf16, DataType::bf16, 5, n, 12991), dev).splits;
    EXPECT_EQ(s & (s - 1), 0) << n << ": " << s;
  }
}

// 16-bit decode steps past 256 MiB of W take the TMA-fed form, one CTA an SM over tiles of 256 W
// rows, k split until the tiles fill the SMs' waves; the register path below that size, and for
// FP32 operands. The form's own checks name what it does not take.
TEST(DispatchSkinny, TakesTheTmaFedFormForLongDecodeOperands) {
  const DeviceState dev = h100();
  auto model = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    return skinny_model_choice(problem(DataType::bf16, DataType::bf16, m, n, k), dev);
  };
  // 112 tiles: 0.85 of a wave; 2 splits make 1.70 waves at a cost of 0.87 against 0.85.
  EXPECT_EQ(model(16, 28672, 8192).bulk, 1);
  EXPECT_EQ(model(16, 28672, 8192).splits, 1);
  // 32 tiles: 2 splits make 0.48 of a wave (cost 0.255); 3 splits 0.82 of the 117 CTAs resident
  // in clusters of 3 (0.284), 4 splits a second wave past the 120 in clusters of 4 (0.398).
  EXPECT_EQ(model(16, 8192, 28672).bulk, 1);
  EXPECT_EQ(model(16, 8192, 28672).splits, 2);
  EXPECT_EQ(model(16, 28672, 8192).persistent, 0);  // under two waves: CTAs a tile each
  EXPECT_EQ(model(16, 8192, 28672).persistent, 0);
  // An LM head: 501 tiles, 3.8 waves, shared out evenly by a persistent grid of a CTA an SM.
  EXPECT_EQ(model(1, 128256, 4096).bulk, 1);
  EXPECT_EQ(model(1, 128256, 4096).splits, 1);
  EXPECT_EQ(model(1, 128256, 4096).persistent, 1);
  EXPECT_EQ(model(1, 67584, 4096).persistent, 1);  // 264 tiles: two waves
  EXPECT_EQ(model(1, 67328, 4096).persistent, 0);  // 263
  EXPECT_EQ(model(1, 200000, 2048).persistent, 0);  // 782 tiles of 32 stages: a k too short
  EXPECT_EQ(model(1, 4096, 4096).bulk, 0);     // 32 MiB
  EXPECT_EQ(model(16, 4096, 14336).bulk, 0);   // 112 MiB
  EXPECT_EQ(model(48, 28672, 8192).bulk, 0);   // more than 32 rows: the tile kernel
  // 17 to 32 rows by wgmma, tiles of 128 rows: 32 tiles, 2 splits as above.
  EXPECT_EQ(model(32, 4096, 4096).bulk, 1);
  EXPECT_EQ(model(32, 4096, 4096).splits, 2);
  EXPECT_EQ(model(24, 3072, 1024).bulk, 0);  // k under 2048: the tile kernel
  // A short n against 512 MiB of A (W = A, K-major): 64 tiles, 2 splits make 0.97 of a wave.
  EXPECT_EQ(model(16384, 8, 16384).bulk, 1);
  EXPECT_EQ(model(16384, 8, 16384).splits, 2);
  // At most 8 rows over a W of 512 to 2048 rows and a k of 2048 or more: few tiles whatever the
  // split, and each CTA of the TMA-fed form keeps more bytes in flight.
  EXPECT_EQ(model(1, 1024, 8192).bulk, 1);   // 4 tiles, 8 splits
  EXPECT_EQ(model(1, 1024, 8192).splits, 8);
  EXPECT_EQ(model(8, 512, 4096).bulk, 1);    // 2048 of k a 256-row tile
  EXPECT_EQ(model(8, 2048, 2048).bulk, 1);   // 256 of k a tile
  EXPECT_EQ(model(8, 2048, 1024).bulk, 0);   // k under 2048: the register path
  EXPECT_EQ(model(8, 3072, 8192).bulk, 0);   // more than 2048 rows
  EXPECT_EQ(model(16, 1024, 8192).bulk, 0);  // 9 to 16 rows: the register path
  Problem batched = problem(DataType::bf16, DataType::bf16, 1, 1024, 8192);  // 4 tiles an item
  batched.batch = 2, batched.a.stride = 8192, batched.b.stride = 8192 * 1024, batched.stride_d = 1024;
  EXPECT_EQ(skinny_model_choice(batched, dev).bulk, 1);  // 8 tiles
  batched.batch = 3;                                      // 12: enough to fill more SMs
  EXPECT_EQ(skinny_model_choice(batched, dev).bulk, 0);
  EXPECT_TRUE(skinny_first(problem(DataType::bf16, DataType::bf16, 1, 512, 4096)));
  // An M-major A must first be copied K-major for the TMA: worth its launch from 1536 of k a tile.
  auto m_major = [&](std::int64_t n, std::int64_t k) {
    Problem p = problem(DataType::bf16, DataType::bf16, 4, n, k);
    p.a = {p.a.ptr, 4, 0, false};
    return skinny_model_choice(p, dev).bulk;
  };
  EXPECT_EQ(m_major(1024, 6144), 1);
  EXPECT_EQ(m_major(1024, 4096), 0);
  // A K-major W (not measured) and FP32 operands keep the register path.
  Problem w_kmajor = problem(DataType::bf16, DataType::bf16, 1, 1024, 8192);
  w_kmajor.b = {w_kmajor.b.ptr, 8192, 0, true};
  EXPECT_EQ(skinny_model_choice(w_kmajor, dev).bulk, 0);
  Problem tf32 = problem(DataType::f32, DataType::f32, 1, 1024, 8192);
  tf32.tf32 = true;
  EXPECT_EQ(skinny_model_choice(tf32, dev).bulk, 0);
  const std::size_t ws = std::size_t(1) << 26;
  auto why = [&](const Problem& p) { return skinny_reject(p, SkinnyConfig{2, 1}, dev, ws).value_or("accepted"); };
  EXPECT_EQ(why(problem(DataType::bf16, DataType::f32, 16, 4096, 4096)), "accepted");
  EXPECT_EQ(why(problem(DataType::f16, DataType::f32, 4096, 9, 4104)), "accepted");  // a short n, k not of 64
  // 17 to 64 short-side columns: eight consumer warps of 32 rows each.
  EXPECT_EQ(why(problem(DataType::bf16, DataType::f32, 17, 4096, 4096)), "accepted");
  EXPECT_EQ(why(problem(DataType::f16, DataType::f16, 4096, 64, 4096)), "accepted");
  // FP32 operands as TF32: at most 16 short-side columns; FP32 products (no TF32) it does not offer.
  Problem f32 = problem(DataType::f32, DataType::f32, 16, 4096, 4096);
  f32.tf32 = true;
  EXPECT_EQ(why(f32), "accepted");
  Problem f32_wide = problem(DataType::f32, DataType::f32, 17, 4096, 4096);
  f32_wide.tf32 = true;
  EXPECT_NE(why(f32_wide).find("at most 16 short-side columns of FP32"), std::string::npos);
  f32.tf32 = false;
  EXPECT_NE(why(f32).find("TF32"), std::string::npos);
  // TF32 decode steps past 256 MiB of W take it as well (940 MiB; 16-bit ones above).
  Problem tf32_decode = problem(DataType::f32, DataType::f32, 16, 8192, 28672);
  tf32_decode.tf32 = true;
  EXPECT_EQ(skinny_model_choice(tf32_decode, dev).bulk, 1);
  tf32_decode.k = 4096;  // 128 MiB: the register path
  EXPECT_EQ(skinny_model_choice(tf32_decode, dev).bulk, 0);
  // Batch items of B that overlap (a stride under ld x rows) cannot be a 3-D tensor map.
  Problem overlapping = problem(DataType::bf16, DataType::f32, 16, 4096, 4096);
  overlapping.batch = 2, overlapping.b.stride = 4096 * 8;
  overlapping.a.stride = 16 * 4096, overlapping.stride_d = 16 * 4096;
  EXPECT_NE(why(overlapping).find("the TMA cannot read B"), std::string::npos);
  EXPECT_NE(skinny_reject(problem(DataType::bf16, DataType::f32, 16, 4096, 4096), SkinnyConfig{1, 2}, dev, ws)
                .value_or("accepted")
                .find("bulk must be 0 or 1"),
            std::string::npos);
  EXPECT_NE(skinny_simt_reject(problem(DataType::f32, DataType::f32, 1, 4096, 4096), SkinnyConfig{1, 1}, dev, ws)
                .value_or("accepted")
                .find("no TMA-fed form"),
            std::string::npos);
}

// The TMA-fed form's split counts a wave as the CTAs resident at once in clusters of the split, as
// the context measured them: where it could not, one CTA an SM, and the split is the one that
// model takes (3 slices of 32 tiles, 96 CTAs; 4 would be 128).
TEST(DispatchSkinny, TheTmaFedFormsSplitCountsTheClustersResident) {
  DeviceState dev = h100();
  const Problem p = problem(DataType::bf16, DataType::bf16, 16, 8192, 28672);
  EXPECT_EQ(skinny_model_choice(p, dev).splits, 2);
  for (int mt : {1, 2, 4, 8})
    for (int s = 1; s <= kSkinnyMaxSplits; ++s) dev.skinny_resident[skinny_bulk_kernel_index(mt) * kSkinnyMaxSplits + s - 1] = 0;
  EXPECT_EQ(skinny_model_choice(p, dev).splits, 3);
  // 16 tiles: one CTA an SM counted, 5 slices (80 CTAs, 0.61 of a wave); with the clusters
  // resident, 80 of 110 make 0.73 of one and 4 slices cost less (64 of 120).
  const Problem sixteen = problem(DataType::bf16, DataType::bf16, 16, 4096, 36864);
  EXPECT_EQ(skinny_model_choice(sixteen, dev).splits, 5);
  EXPECT_EQ(skinny_model_choice(sixteen, h100()).splits, 4);
}

// The TMA-fed form's persistent grid: one CTA an SM, each an even share of every tile's stages, the
// partial sums of tiles cut between CTAs in the workspace (two slots of a tile's sums per CTA,
// after the copy of X when there is one). What it refuses names the parameter.
TEST(DispatchSkinny, ThePersistentGridsChecksAndWorkspace) {
  const DeviceState dev = h100();
  const std::size_t ws = std::size_t(1) << 26;
  const Problem decode = problem(DataType::bf16, DataType::bf16, 16, 28672, 8192);
  const SkinnyConfig persistent{1, 1, 1};
  EXPECT_FALSE(skinny_reject(decode, persistent, dev, ws));
  // 112 tiles of 128 stages for 132 CTAs; 16 columns: a tile's sums are 256 x 16 floats.
  EXPECT_EQ(skinny_workspace_bytes(decode, persistent, dev), 132u * 2u * 256u * 16u * 4u);
  Problem m_major = decode;
  m_major.a = {m_major.a.ptr, 16, 0, false};  // copied K-major first: 16 x 8192 elements
  EXPECT_EQ(skinny_workspace_bytes(m_major, persistent, dev), 16u * 8192u * 2u + 132u * 2u * 256u * 16u * 4u);
  // 33 to 64 columns by wgmma: tiles of 128 rows by 64 columns.
  EXPECT_EQ(skinny_workspace_bytes(problem(DataType::bf16, DataType::bf16, 64, 28672, 8192), persistent, dev),
            132u * 2u * 128u * 64u * 4u);
  // A grid of fewer CTAs than SMs where there are fewer units (1 tile of 4 stages).
  EXPECT_EQ(skinny_workspace_bytes(problem(DataType::bf16, DataType::bf16, 1, 200, 256), persistent, dev),
            (4u * 2u * 256u * 8u * 4u + 255u) / 256u * 256u);
  auto why = [&](const Problem& p, const SkinnyConfig& c, std::size_t workspace) {
    return skinny_reject(p, c, dev, workspace).value_or("accepted");
  };
  EXPECT_NE(why(decode, SkinnyConfig{1, 0, 1}, ws).find("only the TMA-fed form"), std::string::npos);
  // With splits s, s CTAs a tile: 112 tiles x 2, 2 slots each; past the context's counters, refused.
  EXPECT_FALSE(skinny_reject(decode, SkinnyConfig{2, 1, 1}, dev, ws));
  EXPECT_EQ(skinny_workspace_bytes(decode, SkinnyConfig{2, 1, 1}, dev), 224u * 2u * 256u * 16u * 4u);
  const Problem lm_head_long = problem(DataType::bf16, DataType::bf16, 1, 600000, 4096);  // 2344 tiles
  EXPECT_FALSE(skinny_reject(lm_head_long, SkinnyConfig{1, 1, 1}, dev, std::size_t(1) << 30));
  EXPECT_NE(why(lm_head_long, SkinnyConfig{2, 1, 1}, std::size_t(1) << 30).find("4688 CTAs (2344 tiles times splits 2)"),
            std::string::npos);
  EXPECT_NE(why(decode, SkinnyConfig{1, 1, 2}, ws).find("persistent must be 0 or 1"), std::string::npos);
  EXPECT_NE(why(decode, persistent, 1 << 20).find("take 4325376 bytes of workspace, the call has 1048576"),
            std::string::npos);
  Problem batched = problem(DataType::bf16, DataType::bf16, 1, 1024, 8192);
  batched.batch = 2, batched.a.stride = 8192, batched.b.stride = 8192 * 1024, batched.stride_d = 1024;
  EXPECT_NE(why(batched, persistent, ws).find("one problem only"), std::string::npos);
  // The model takes it for an LM head (skinny_model_choice), not where the partial sums would not
  // fit the call's workspace, nor for a batch.
  const Problem lm_head = problem(DataType::bf16, DataType::bf16, 1, 128256, 4096);
  EXPECT_EQ(skinny_model_choice(lm_head, dev, ws).persistent, 1);
  EXPECT_EQ(skinny_model_choice(lm_head, dev, 1 << 20).persistent, 0);
  Problem lm_heads = lm_head;
  lm_heads.batch = 2, lm_heads.a.stride = 4096, lm_heads.stride_d = 128256;
  EXPECT_EQ(skinny_model_choice(lm_heads, dev, ws).persistent, 0);
}

// The small-tile kernel: any 16-bit problem whose operands it copies 16 bytes at a time; tried
// first for a batch of at least one problem of at most 64 x 64 per SM.
TEST(DispatchSmall, TakesBatchesOfSmallProblemsAndSaysWhyNot) {
  const DeviceState dev = h100();
  auto batched = [](DataType ab, DataType cd, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
    Problem p = problem(ab, cd, m, n, k);
    p.batch = batch;
    p.a.stride = m * k, p.b.stride = k * n, p.stride_d = m * n;
    return p;
  };
  const Problem heads = batched(DataType::bf16, DataType::bf16, 64, 64, 64, 1024);
  EXPECT_FALSE(small_reject(heads, dev));
  EXPECT_TRUE(small_first(heads, dev));
  EXPECT_TRUE(small_first(batched(DataType::f16, DataType::f32, 17, 40, 4096, 132), dev));
  EXPECT_FALSE(small_first(batched(DataType::bf16, DataType::bf16, 64, 64, 64, 131), dev));  // fewer items than SMs
  EXPECT_FALSE(small_first(batched(DataType::bf16, DataType::bf16, 65, 64, 64, 1024), dev));  // a 128-row tile's
  EXPECT_FALSE(small_first(batched(DataType::bf16, DataType::bf16, 128, 128, 128, 256), dev));
  Problem invariant = heads;  // the choice depends on m (the kernel itself does not)
  invariant.determinism = Determinism::batch_invariant;
  EXPECT_FALSE(small_first(invariant, dev));
  EXPECT_FALSE(small_reject(invariant, dev));
  auto why = [&](const Problem& p) { return small_reject(p, dev).value_or("accepted"); };
  EXPECT_NE(why(batched(DataType::f32, DataType::f32, 64, 64, 64, 1024)).find("bf16 and f16"), std::string::npos);
  EXPECT_NE(why(batched(DataType::bf16, DataType::f16, 64, 64, 64, 1024)).find("operands' type or f32"),
            std::string::npos);
  Problem odd_k = batched(DataType::bf16, DataType::bf16, 64, 64, 60, 1024);  // rows of A: 120 bytes
  EXPECT_NE(why(odd_k).find("A is copied 16 bytes at a time"), std::string::npos);
  EXPECT_FALSE(small_first(odd_k, dev));
  Problem odd_stride = heads;
  odd_stride.b.stride = 64 * 64 + 4;
  EXPECT_NE(why(odd_stride).find("B is copied"), std::string::npos);
  odd_stride.b.stride = 0;  // broadcast: one B for every item
  EXPECT_FALSE(small_reject(odd_stride, dev));
  // Offsets inside a tile are 32-bit: 64 rows of A, B or D must span fewer than 2^31 elements.
  Problem wide = heads;
  wide.a.ld = 33554424;  // (2^31 - 1 - 64) / 64 = 33554430, rounded down to 8 elements
  wide.a.stride = 64 * wide.a.ld;
  EXPECT_FALSE(small_reject(wide, dev));
  wide.a.ld += 8;
  wide.a.stride = 64 * wide.a.ld;
  EXPECT_NE(why(wide).find("lda 33554432 is over 33554430 elements"), std::string::npos);
  Problem wide_d = heads;
  wide_d.ldd = 33554432;
  EXPECT_NE(why(wide_d).find("ldd 33554432"), std::string::npos);
  DeviceState ampere = dev;
  ampere.cc = 75;
  EXPECT_NE(why(heads).find("accepted"), std::string::npos);
  EXPECT_NE(small_reject(heads, ampere).value_or("").find("sm_80"), std::string::npos);
}

TEST(DispatchSkinnySimt, TakesExactFp32WithSixteenOrFewerAndSaysWhyNot) {
  const DeviceState dev = h100();
  const SkinnyConfig c{4};
  const std::size_t ws = std::size_t(1) << 26;
  auto why = [&](const Problem& p, std::size_t workspace) {
    return skinny_simt_reject(p, c, dev, workspace).value_or("accepted");
  };
  // Exact FP32 (and FP32 where TF32 is allowed: its products are exact either way).
  EXPECT_FALSE(skinny_simt_reject(problem(DataType::f32, DataType::f32, 1, 4096, 4096), c, dev, ws));
  EXPECT_FALSE(skinny_simt_reject(problem(DataType::f32, DataType::f32, 16384, 8, 16384), c, dev, ws));
  Problem tf32 = problem(DataType::f32, DataType::f32, 16, 4096, 4096);
  tf32.tf32 = true;
  EXPECT_FALSE(skinny_simt_reject(tf32, c, dev, ws));
  EXPECT_NE(why(problem(DataType::bf16, DataType::f32, 1, 4096, 4096), ws).find("takes f32 operands"), std::string::npos);
  EXPECT_NE(why(problem(DataType::f32, DataType::f32, 17, 4096, 4096), ws).find("more than 16 rows"), std::string::npos);
  EXPECT_NE(why(problem(DataType::f32, DataType::f32, 8, 4096, 4098), ws).find("k = 4098"), std::string::npos);
  // B (the long operand) N-major: n a multiple of 4 (not of 8, as the mma.sync form needs).
  Problem n_4100 = problem(DataType::f32, DataType::f32, 8, 4100, 4096);
  EXPECT_FALSE(skinny_simt_reject(n_4100, c, dev, ws));
  Problem n_4102 = problem(DataType::f32, DataType::f32, 8, 4102, 4096);
  n_4102.b.ld = 4104;
  EXPECT_NE(why(n_4102, ws).find("n side, which is not a multiple of 4"), std::string::npos);
  Problem invariant = problem(DataType::f32, DataType::f32, 1, 4096, 4096);
  invariant.determinism = Determinism::batch_invariant;
  EXPECT_NE(why(invariant, ws).find("batch-invariant"), std::string::npos);
  // An M-major A is copied K-major first: 8 x 4096 FP32 elements.
  Problem m_major = problem(DataType::f32, DataType::f32, 8, 4096, 4096);
  m_major.a = {m_major.a.ptr, 8, 0, false};
  EXPECT_EQ(skinny_simt_workspace_bytes(m_major), 8u * 4096u * 4u);
  EXPECT_NE(why(m_major, 1024).find("131072 bytes, the call has 1024"), std::string::npos);
}

TEST(DispatchSkinnySimt, GoesFirstForFp32WithAMillionElementsOfW) {
  auto first = [](std::int64_t m, std::int64_t n, std::int64_t k, bool tf32 = false) {
    Problem p = problem(DataType::f32, DataType::f32, m, n, k);
    p.tf32 = tf32;
    return skinny_simt_first(p);
  };
  EXPECT_TRUE(first(1, 4096, 4096));
  EXPECT_TRUE(first(16, 28672, 8192));
  EXPECT_TRUE(first(16384, 8, 16384));  // a short n: A is the long operand
  EXPECT_FALSE(first(17, 4096, 4096));  // 17 or more: the tile kernels
  EXPECT_FALSE(first(8, 512, 1024));    // half a million elements of W
  EXPECT_TRUE(first(4, 4096, 4096, true));    // TF32 allowed: exact products, as fast with 1 to 4
  EXPECT_FALSE(first(8, 4096, 4096, true));   // from 8 the mma.sync form
  EXPECT_FALSE(first(16, 28672, 8192, true)); // 896 MiB: the mma.sync form too
  EXPECT_FALSE(first(16384, 8, 16384, true)); // a short n: the TF32 tile kernel
  EXPECT_FALSE(skinny_simt_first(problem(DataType::bf16, DataType::f32, 1, 4096, 4096)));
}

TEST(DispatchSkinnySimt, ModelSplitsKUntilTheGpuIsFull) {
  const DeviceState dev = h100();  // 2 CTAs of 8 warps an SM, as with 1 column (118 registers)
  // W big-major: 32 tiles of 128 rows: 6 splits are 0.82 of the 234 CTAs resident in clusters of 6;
  // 7 fill the 224 of clusters of 7 exactly, for 7/6 the reductions; 8 are more than the 240.
  EXPECT_EQ(skinny_simt_model_choice(problem(DataType::f32, DataType::f32, 1, 4096, 4096), dev).splits, 6);
  // W K-major (a short n of A's rows): 4096 tiles of 4 rows are 15 waves already.
  EXPECT_EQ(skinny_simt_model_choice(problem(DataType::f32, DataType::f32, 16384, 8, 16384), dev).splits, 1);
}

// Blocks of D for copies that do not fit the workspace whole: every block's copies fit, the blocks
// cover D in whole tiles, and the plan takes the fewest waves of tiles.
TEST(DispatchCopyBlocks, FitTheWorkspaceInWholeTilesWithTheFewestWaves) {
  const Problem p = problem(DataType::bf16, DataType::f32, 8193, 8193, 8193);
  const std::size_t line = 8200 * 2, ws = std::size_t(64) << 20;
  const CopyBlocks b = copy_blocks(p, line, line, ws, 256, 256, 66);
  ASSERT_GT(b.rows, 0);
  EXPECT_EQ(b.rows % 256, 0);
  EXPECT_EQ(b.cols % 256, 0);
  EXPECT_LE(b.a_bytes + b.b_bytes, ws);
  EXPECT_GE(b.a_bytes, std::size_t(b.rows) * line);
  EXPECT_GE(b.b_bytes, std::size_t(b.cols) * line);
  EXPECT_GT(b.count(p.m, p.n), 1);
  // No other split of the columns gives fewer waves (the rows of each as many as fit).
  for (std::int64_t cols = 256; cols < p.n; cols += 256) {
    const CopyBlocks one = copy_blocks(problem(DataType::bf16, DataType::f32, 8193, cols, 8193), line, line, ws, 256, 256, 66);
    if (one.rows == 0) continue;
    const std::int64_t col_blocks = (p.n + cols - 1) / cols;
    EXPECT_GE(one.waves * col_blocks, b.waves - one.waves) << cols;  // the last column block may be narrower
  }
  // Only A copied: whole columns, rows as many as fit; nothing fits: none.
  const CopyBlocks a_only = copy_blocks(p, line, 0, ws, 128, 256, 132);
  EXPECT_EQ(a_only.cols, p.n);
  EXPECT_EQ(a_only.b_bytes, 0u);
  EXPECT_LE(a_only.a_bytes, ws);
  EXPECT_EQ(copy_blocks(p, line, line, 256 * line, 256, 256, 66).rows, 0);
}

// BF16 with odd sizes whose copies exceed the workspace: the 16-bit kernel in blocks (before
// them, the generic kernel), named by describe(); TF32 takes blocks only while they cost at most
// three times the waves of one launch, else the FP32 kernel.
TEST(DispatchCopyBlocks, ServeOddSizesBeyondTheWorkspace) {
  ContextImpl ctx;
  ctx.device = h100();
  const std::size_t ws = std::size_t(64) << 20;
  const Problem big = problem(DataType::bf16, DataType::f32, 8193, 8193, 8193);
  const Choice c = choose(ctx, big, ws);
  EXPECT_EQ(c.family, Family::sm90);
  ASSERT_GT(c.blocks.rows, 0);
  EXPECT_LE(c.workspace_bytes, ws);
  EXPECT_NE(describe(c, big).config.find("blocks="), std::string::npos) << describe(c, big).config;
  Problem batched = big;
  batched.m = 4097, batched.batch = 2, batched.a.stride = 4097 * 8193, batched.b.stride = 8193 * 8193;
  batched.stride_d = 4097 * 8193;
  EXPECT_NE(choose(ctx, batched, ws).family, Family::sm90);  // a batch is copied whole or not at all
  Problem tf32 = problem(DataType::f32, DataType::f32, 4097, 4095, 4093);
  tf32.tf32 = true;
  const Choice t = choose(ctx, tf32, ws);
  EXPECT_EQ(t.family, Family::sm90_tf32);
  EXPECT_GT(t.blocks.rows, 0);
  EXPECT_LE(t.workspace_bytes, ws);
  Problem tf32_big = problem(DataType::f32, DataType::f32, 8193, 8193, 8193);
  tf32_big.tf32 = true;
  EXPECT_EQ(choose(ctx, tf32_big, ws).family, Family::simt);
  const auto why = tf32_reject(tf32_big, tf32_model_choice(tf32_big, ctx.device, ws, false), ctx.device, ws);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("times a launch over all of D"), std::string::npos) << *why;
}

// A block's copies take at most the bytes the plan gives them, whatever the operands' majorness,
// element size and the sides' remainders (an N-major copy pads its rows to 16 bytes: 1001
// columns take 1004 or 1008).
TEST(DispatchCopyBlocks, BlockCopiesFitTheirShareOfTheWorkspace) {
  for (DataType t : {DataType::bf16, DataType::f32})
    for (bool a_k_major : {true, false})
      for (bool b_k_major : {true, false})
        for (std::size_t ws : {std::size_t(1) << 20, std::size_t(3) << 20}) {
          Problem p = problem(t, DataType::f32, 1500, 1001, 999);
          p.a = {p.a.ptr, a_k_major ? 1002 : 1503, 0, a_k_major};
          p.b = {p.b.ptr, b_k_major ? 1001 : 1003, 0, b_k_major};
          const std::size_t es = size_of(t);
          const CopyBlocks b = copy_blocks(p, copy_line_bytes(p.a, p.k, es), copy_line_bytes(p.b, p.k, es), ws, 128,
                                           128, 132);
          ASSERT_GT(b.rows, 0);
          EXPECT_LE(b.a_bytes + b.b_bytes, ws);
          for (std::int64_t n0 = 0; n0 < p.n; n0 += b.cols)
            for (std::int64_t r0 = 0; r0 < p.m; r0 += b.rows) {
              const Problem q = block_of(p, r0, std::min(b.rows, p.m - r0), n0, std::min(b.cols, p.n - n0));
              const std::string where = fmt::format("{} A{} B{} at {},{} in {} bytes", to_string(t), a_k_major ? "K" : "M",
                                                    b_k_major ? "K" : "N", r0, n0, ws);
              EXPECT_LE(copy_of(q.a, q.m, q.k, 1, es).bytes, b.a_bytes) << where;
              EXPECT_LE(copy_of(q.b, q.n, q.k, 1, es).bytes, b.b_bytes) << where;
            }
        }
}

// A decode step with weights past the skinny register path's 256 MiB, where the sm90 kernel takes
// it (the TMA-fed skinny form goes first where it can; batch-invariant calls take no skinny form):
// 128 x 256 tiles with a stream-K tail, not 128 x 128 tiles (fewer than a wave of 256-wide ones) or
// slices of k.
TEST(DispatchSm90, DecodeStepsPastTheSkinnyKernelTakeWideTiles) {
  const DeviceState dev = h100();
  for (auto [m, n, k] : {std::tuple{16, 28672, 8192}, std::tuple{1, 128256, 4096}}) {
    const Problem p = problem(DataType::bf16, DataType::bf16, m, n, k);
    const Sm90Config c = sm90_model_choice(p, dev, std::size_t(1) << 26, false);
    EXPECT_EQ(c.tile_n, 256) << m << "x" << n << "x" << k;
    EXPECT_EQ(c.splits, 1) << m << "x" << n << "x" << k;
    EXPECT_NE(c.stream_k, 0) << m << "x" << n << "x" << k;
  }
  // A long k against n: 128 tiles of 64 x 64, no split, so wide tiles too.
  const Sm90Config long_k = sm90_model_choice(problem(DataType::bf16, DataType::bf16, 16, 8192, 28672), dev, std::size_t(1) << 26, false);
  EXPECT_EQ(long_k.tile_n, 256);
  EXPECT_EQ(long_k.splits, 1);
  // 32 rows, or 16 rows of a smaller B: the rules before it (64 x 64 tiles; 64 of them split in 2).
  const Sm90Config rows32 = sm90_model_choice(problem(DataType::bf16, DataType::bf16, 32, 14336, 4096), dev, std::size_t(1) << 26, false);
  EXPECT_EQ(rows32.tile_m, 64);
  EXPECT_EQ(rows32.tile_n, 64);
  EXPECT_EQ(sm90_model_choice(problem(DataType::bf16, DataType::bf16, 16, 4096, 4096), dev, std::size_t(1) << 26, false).splits, 2);
}

// TF32 TT (an M-major A, a K-major B) runs the transposed problem only where that copies nothing:
// with A's rows off 16 bytes (m = 5787) A is copied either way, and the direct problem copies it in
// blocks of D when its 71 MB do not fit the 64 MiB workspace; the transposed one, launched whole,
// would have been refused and the FP32 kernel taken the call.
// TF32 with a D the TMA cannot store: 128-row tiles, which copy D out in whole rows (the staged
// epilogue), where K is short; 256-row ones where D's rows are aligned, K is long, or C is read.
TEST(DispatchModel, Tf32UnalignedDTakes128RowTilesWhereKIsShort) {
  const DeviceState dev = h100();
  const std::size_t ws = std::size_t(64) << 20;
  struct Case {
    std::int64_t m, n, k;
    double beta;
    int tile_m;
  };
  for (const Case& t : {Case{13623, 6790, 373, 0.0, 128}, Case{2218, 3691, 318, 0.0, 128}, Case{4151, 2505, 1774, 0.0, 128},
                        Case{13623, 6792, 373, 0.0, 256}, Case{4228, 2723, 4309, 0.0, 256}, Case{13623, 6790, 373, 0.5, 256}}) {
    Problem p = problem(DataType::f32, DataType::f32, t.m, t.n, t.k);
    p.tf32 = true;
    p.beta = float(t.beta);
    EXPECT_EQ(tf32_model_choice(p, dev, ws, false).tile_m, t.tile_m) << t.m << "x" << t.n << "x" << t.k << " beta " << t.beta;
  }
}

TEST(DispatchModel, Tf32TransposedProblemOnlyWhereItCopiesNothing) {
  ContextImpl ctx;
  ctx.device = h100();
  const std::size_t ws = std::size_t(64) << 20;
  for (const std::int64_t m : {5788, 5787}) {
    Problem p = problem(DataType::f32, DataType::f32, m, 3072, 3072);
    p.tf32 = true;
    p.a = {p.a.ptr, m, 0, false};     // A stored K x M
    p.b = {p.b.ptr, 3072, 0, true};   // B stored N x K
    const Choice c = choose(ctx, p, ws);
    ASSERT_EQ(c.family, Family::sm90_tf32) << describe(c, p).kernel << ": " << describe(c, p).reason;
    EXPECT_EQ(tf32_swaps(p, c.tf32), m == 5788) << m;
    EXPECT_LE(c.workspace_bytes, ws);
    EXPECT_NE(describe(c, p).config.find(m == 5788 ? "swap_ab=d_col_major" : "copy_a=k_major"), std::string::npos)
        << describe(c, p).config;
  }
}

// Split-K's slice count weighs the partial sums against the operand bytes the slices read: A and B
// once, or as the tiles read them, A once per column of tiles and B once per row. Counting the
// re-reads gives more slices; the 16-bit kernels count them only where the tiles chosen so far
// leave most SMs idle, the TF32 kernel always (docs/shapes.md, "Split-K counts the tiles' re-reads").
TEST(DispatchSplitK, SlicesCountTheTilesReReadsWhereTheTilesLeaveSMsIdle) {
  const std::size_t room = std::size_t(1) << 26;
  const Problem tf32 = [] {
    Problem p = problem(DataType::f32, DataType::f32, 170, 1024, 4096);
    p.tf32 = true;
    return p;
  }();
  // 16 tiles of 128 x 128 for 132 SMs; 128 k-tiles of 32, slices of at least 16.
  EXPECT_EQ(split_k_model(tf32, 128, 128, false, 132, 32, 16, room), 2);
  EXPECT_EQ(split_k_model(tf32, 128, 128, true, 132, 32, 16, room), 8);
  // The workspace still bounds the slices: 8 of 170 x 1024 floats need 5.6 MB.
  EXPECT_EQ(split_k_model(tf32, 128, 128, true, 132, 32, 16, std::size_t(3) << 20), 4);
  const DeviceState dev = h100();
  EXPECT_EQ(tf32_model_choice(tf32, dev, room, false).splits, 8);
  const auto bf16 = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    return sm90_model_choice(problem(DataType::bf16, DataType::bf16, m, n, k), dev, room, false);
  };
  // 48 tiles of 128 x 64 (at most 40% of the SMs busy): 5 slices of 128 x 128 tiles, not whole tiles.
  const Sm90Config idle = bf16(500, 768, 6144);
  EXPECT_EQ(idle.tile_n, 128);
  EXPECT_EQ(idle.splits, 5);
  // 96 tiles of 128 x 64: whole, with a stream-K tail, as before (split, they ran slower).
  const Sm90Config busy = bf16(343, 2048, 2048);
  EXPECT_EQ(busy.splits, 1);
  EXPECT_EQ(busy.tile_n, 64);
  EXPECT_EQ(bf16(1024, 1024, 4096).splits, 1);
}
