// The occupancy model against seed 003's Table 2 (every cell), hand-worked cases for CC 6.1 and
// 9.0, and sanity checks of the GPU database.
#include <gtest/gtest.h>

#include "analysis/gpu_specs.hpp"
#include "analysis/occupancy.hpp"
#include "core/error.hpp"

using namespace gemmlab;

namespace {

KernelResources res(int threads, int regs, std::size_t static_smem, std::size_t dynamic_smem = 0, int carveout = -1) {
  KernelResources r;
  r.threads_per_block = threads;
  r.regs_per_thread = regs;
  r.static_smem = static_smem;
  r.dynamic_smem = dynamic_smem;
  r.carveout_percent = carveout;
  return r;
}

// Seed 003, Table 2: GeForce GT 240 (CC 1.2), 16 registers per thread, 44 bytes of shared memory,
// blocks 8x8, 16x16 and 22x22.
struct Table2Column {
  int threads;
  int active_blocks, active_warps, active_threads;
  double occupancy;
  int warps_per_block, warp_limit;
  int regs_per_block, reg_limit;
  int smem_limit;
};

const Table2Column kTable2[] = {
    // threads, blocks, warps, threads, occupancy, warps/block, limit, regs/block, limit, smem limit
    {64, 8, 16, 512, 0.50, 2, 16, 1024, 16, 32},    // 8x8
    {256, 4, 32, 1024, 1.00, 8, 4, 4096, 4, 32},    // 16x16
    {484, 2, 32, 1024, 1.00, 16, 2, 8192, 2, 32},   // 22x22
};

TEST(OccupancySeed003, Table2EveryCell) {
  const ArchLimits gt240 = find_gpu("GT 240").limits();
  // The "GPU limit" column.
  EXPECT_EQ(gt240.max_blocks_per_sm, 8);
  EXPECT_EQ(gt240.max_warps_per_sm(), 32);
  EXPECT_EQ(gt240.max_threads_per_sm, 1024);
  EXPECT_EQ(gt240.max_threads_per_block, 512);
  EXPECT_EQ(gt240.max_threads_per_block / gt240.warp_size, 16);
  EXPECT_EQ(gt240.max_regs_per_thread, 128);
  EXPECT_EQ(gt240.max_regs_per_block, 16384);
  EXPECT_EQ(gt240.smem_per_block, 16384u);
  for (const Table2Column& c : kTable2) {
    SCOPED_TRACE(testing::Message() << c.threads << " threads");
    const Occupancy o = theoretical_occupancy(gt240, res(c.threads, 16, 44));
    EXPECT_EQ(o.active_blocks, c.active_blocks);
    EXPECT_EQ(o.active_warps, c.active_warps);
    EXPECT_EQ(o.active_threads, c.active_threads);
    EXPECT_DOUBLE_EQ(o.occupancy, c.occupancy);
    EXPECT_EQ(o.warps_per_block, c.warps_per_block);
    EXPECT_EQ(o.limit_warps, c.warp_limit);
    EXPECT_EQ(o.regs_per_block, c.regs_per_block);
    EXPECT_EQ(o.limit_regs, c.reg_limit);
    EXPECT_EQ(o.limit_smem, c.smem_limit);
    EXPECT_EQ(o.limit_blocks, 8);
    EXPECT_EQ(o.smem_per_block, 512u);  // 44 bytes take one 512-byte unit
  }
}

TEST(OccupancySeed003, TheTextsLimitingFactors) {
  // "8x8: the limit is the maximum number of blocks per SM; 16x16 and 22x22: warps and registers."
  const ArchLimits gt240 = find_gpu("gt240").limits();
  const Occupancy small = theoretical_occupancy(gt240, res(64, 16, 44));
  EXPECT_EQ(small.limited_by, (std::vector<std::string>{"blocks per SM"}));
  for (int threads : {256, 484}) {
    const Occupancy o = theoretical_occupancy(gt240, res(threads, 16, 44));
    EXPECT_EQ(o.limited_by, (std::vector<std::string>{"warps", "registers"}));
  }
}

TEST(OccupancyCc12, RegisterAllocationRoundsWarpsToPairs) {
  // CC 1.2 allocates registers per block: warps rounded up to an even number, then the total
  // rounded up to 512. 96 threads = 3 warps -> 4 warps x 32 x 10 = 1280 -> 1536 registers.
  const ArchLimits gt240 = arch_limits(1, 2);
  const Occupancy o = theoretical_occupancy(gt240, res(96, 10, 0));
  EXPECT_EQ(o.regs_per_block, 1536);
  EXPECT_EQ(o.limit_regs, 16384 / 1536);  // 10
  EXPECT_EQ(o.limit_smem, kUnlimited);
  EXPECT_EQ(o.active_blocks, 8);          // the block cap
}

TEST(OccupancyCc61, HandWorkedGtx1060) {
  // GTX 1060 (CC 6.1): 256 threads, 37 registers, 12 KB static shared memory.
  //   warps/block = 256 / 32 = 8; warp limit = 64 / 8 = 8.
  //   registers per warp = 37 x 32 = 1184 -> rounded up to 256: 1280; per block 8 x 1280 = 10240.
  //   The register file's 4 parts hold 65536 / 4 = 16384 each: floor(16384 / 1280) = 12 warps each,
  //   48 warps per SM -> 48 / 8 = 6 blocks.
  //   Shared memory: 12288 B in 256 B units = 12288; 96 KB per SM / 12288 = 8 blocks.
  //   Active: min(8, 6, 8, 32) = 6 blocks = 48 warps = 75%, limited by registers.
  const ArchLimits gpu = find_gpu("gtx1060").limits();
  const Occupancy o = theoretical_occupancy(gpu, res(256, 37, 12288));
  EXPECT_EQ(o.warps_per_block, 8);
  EXPECT_EQ(o.limit_warps, 8);
  EXPECT_EQ(o.regs_per_block, 10240);
  EXPECT_EQ(o.limit_regs, 6);
  EXPECT_EQ(o.smem_per_block, 12288u);
  EXPECT_EQ(o.limit_smem, 8);
  EXPECT_EQ(o.limit_blocks, 32);
  EXPECT_EQ(o.active_blocks, 6);
  EXPECT_EQ(o.active_warps, 48);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.75);
  EXPECT_EQ(o.limited_by, (std::vector<std::string>{"registers"}));
}

TEST(OccupancyCc61, RegisterFilePartsCostABlock) {
  // 96 threads (3 warps), 33 registers: 33 x 32 = 1056 -> 1280 per warp. Per part
  // floor(16384 / 1280) = 12 warps, 48 per SM -> floor(48 / 3) = 16 blocks. Counting the register
  // file as one pool would give floor(65536 / (3 x 1280)) = 17: the parts matter.
  const Occupancy o = theoretical_occupancy(arch_limits(6, 1), res(96, 33, 0));
  EXPECT_EQ(o.limit_regs, 16);
  EXPECT_EQ(o.limit_smem, kUnlimited);  // no shared memory, nothing reserved before CC 8.0
  EXPECT_EQ(o.active_blocks, 16);
  EXPECT_DOUBLE_EQ(o.occupancy, 48.0 / 64.0);
}

TEST(OccupancyCc61, SeedZeroSaysHundredPercentWith32Registers) {
  // Seed 000: GTX 1050, blocks 8x8, 16x16, 32x32, 32 registers: "100% in every case".
  const ArchLimits gpu = find_gpu("gtx1050").limits();
  for (int threads : {64, 256, 1024}) EXPECT_DOUBLE_EQ(theoretical_occupancy(gpu, res(threads, 32, 0)).occupancy, 1.0);
}

TEST(OccupancyCc90, HandWorkedH100LargeTile) {
  // H100 (CC 9.0): 128 threads, 168 registers, 48 KB static + 16 KB dynamic shared memory.
  //   warps/block = 4; warp limit = 64 / 4 = 16.
  //   registers per warp = 168 x 32 = 5376 (a multiple of 256); per part floor(16384 / 5376) = 3
  //   warps, 12 per SM -> 12 / 4 = 3 blocks; per block 4 x 5376 = 21504.
  //   Shared memory: 65536 used + 1024 reserved = 66560 (a multiple of 128); over 48 KB, so the
  //   kernel must opt in; the SM gives 228 KB = 233472: floor(233472 / 66560) = 3 blocks.
  //   Active: min(16, 3, 3, 32) = 3 blocks = 12 warps = 18.75%, limited by registers and shared memory.
  const ArchLimits gpu = find_gpu("h100").limits();
  const Occupancy o = theoretical_occupancy(gpu, res(128, 168, 49152, 16384));
  EXPECT_EQ(o.limit_warps, 16);
  EXPECT_EQ(o.regs_per_block, 21504);
  EXPECT_EQ(o.limit_regs, 3);
  EXPECT_EQ(o.smem_per_block, 66560u);
  EXPECT_TRUE(o.needs_smem_optin);
  EXPECT_EQ(o.smem_per_sm, 233472u);
  EXPECT_EQ(o.limit_smem, 3);
  EXPECT_EQ(o.active_blocks, 3);
  EXPECT_DOUBLE_EQ(o.occupancy, 12.0 / 64.0);
  EXPECT_EQ(o.limited_by, (std::vector<std::string>{"registers", "shared memory"}));
}

TEST(OccupancyCc90, ReservedSharedMemoryAndCarveOut) {
  // 256 threads, 32 registers, 2 KB static shared memory on an H100.
  //   warps: 64 / 8 = 8 blocks; registers: 1024 per warp, 16 warps per part, 64 per SM -> 8 blocks.
  //   Shared memory: 2048 + 1024 reserved = 3072 per block.
  //   Default carve-out (the largest, 228 KB): 233472 / 3072 = 76 blocks -> 8 active, 100%.
  const ArchLimits gpu = arch_limits(9, 0);
  const Occupancy full = theoretical_occupancy(gpu, res(256, 32, 2048));
  EXPECT_EQ(full.smem_per_block, 3072u);
  EXPECT_EQ(full.limit_smem, 76);
  EXPECT_EQ(full.active_blocks, 8);
  //   A preferred carve-out of 0%: a block does not fit in 0 KB, so the SM takes the smallest size
  //   a block fits in, 8 KB: floor(8192 / 3072) = 2 blocks = 16 warps = 25%.
  const Occupancy small = theoretical_occupancy(gpu, res(256, 32, 2048, 0, 0));
  EXPECT_EQ(small.smem_per_sm, 8192u);
  EXPECT_EQ(small.limit_smem, 2);
  EXPECT_DOUBLE_EQ(small.occupancy, 0.25);
  //   50% of 228 KB = 114 KB, rounded up to the next carve-out: 132 KB = 135168 / 3072 = 44.
  EXPECT_EQ(theoretical_occupancy(gpu, res(256, 32, 2048, 0, 50)).limit_smem, 44);
  //   Even without shared memory of its own a block costs the reserved 1 KB: 228 blocks' worth.
  EXPECT_EQ(theoretical_occupancy(gpu, res(256, 32, 0)).limit_smem, 228);
}

TEST(OccupancyLimits, NothingFits) {
  const ArchLimits h100 = arch_limits(9, 0);
  EXPECT_EQ(theoretical_occupancy(h100, res(2048, 16, 0)).active_blocks, 0);        // too many threads
  EXPECT_EQ(theoretical_occupancy(h100, res(1024, 128, 0)).active_blocks, 0);       // 128 x 1024 > 65536 registers
  EXPECT_EQ(theoretical_occupancy(h100, res(128, 32, 240 * 1024)).active_blocks, 0);  // beyond the opt-in limit
  EXPECT_EQ(theoretical_occupancy(h100, res(128, 256, 0)).active_blocks, 0);        // > 255 registers per thread
  const Occupancy o = theoretical_occupancy(h100, res(2048, 16, 0));
  EXPECT_NE(o.why_zero.find("2048 threads"), std::string::npos) << o.why_zero;
  EXPECT_THROW(theoretical_occupancy(h100, res(0, 16, 0)), Error);
}

TEST(OccupancyLimits, PartialWarpsTakeWholeWarpSlots) {
  // 33 threads occupy 2 warp slots.
  const Occupancy o = theoretical_occupancy(arch_limits(9, 0), res(33, 16, 0));
  EXPECT_EQ(o.warps_per_block, 2);
  EXPECT_EQ(o.active_blocks, 32);  // the block cap
  EXPECT_EQ(o.active_warps, 64);
}

TEST(GpuDatabase, TheRequiredGpusAreThere) {
  struct Want {
    const char* key;
    int major, minor, sms;
  };
  for (const Want& w : {Want{"gt240", 1, 2, 12}, Want{"gtx1050", 6, 1, 5}, Want{"gtx1060", 6, 1, 10},
                        Want{"gtx1080", 6, 1, 20}, Want{"rtx4060", 8, 9, 24}, Want{"a100", 8, 0, 108},
                        Want{"h100", 9, 0, 132}, Want{"h200", 9, 0, 132}}) {
    SCOPED_TRACE(w.key);
    const GpuSpec& g = find_gpu(w.key);
    EXPECT_EQ(g.cc_major, w.major);
    EXPECT_EQ(g.cc_minor, w.minor);
    EXPECT_EQ(g.sm_count, w.sms);
  }
}

TEST(GpuDatabase, EveryEntryIsConsistent) {
  for (const GpuSpec& g : gpu_database()) {
    SCOPED_TRACE(g.key);
    const ArchLimits a = g.limits();
    EXPECT_EQ(a.cc, g.cc());
    EXPECT_GT(g.sm_count, 0);
    EXPECT_GT(g.clock_mhz, 0);
    EXPECT_GT(g.dram_gbs, 0);
    EXPECT_EQ(a.max_threads_per_sm % a.warp_size, 0);
    EXPECT_LE(a.max_threads_per_block, a.max_threads_per_sm);
    EXPECT_LE(a.max_regs_per_block, a.regs_per_sm);
    EXPECT_LE(a.smem_per_block, a.smem_per_block_optin);
    EXPECT_LE(a.smem_per_block_optin + a.smem_reserved_per_block, a.smem_per_sm);
    if (!a.smem_carveouts.empty()) EXPECT_EQ(a.smem_carveouts.back(), a.smem_per_sm);
    EXPECT_EQ(&find_gpu(g.name), &g);  // the full name finds it too
    // A trivial kernel reaches full occupancy everywhere.
    EXPECT_DOUBLE_EQ(theoretical_occupancy(a, res(256, 16, 0)).occupancy, 1.0);
  }
}

TEST(GpuDatabase, DatasheetPeaks) {
  EXPECT_NEAR(find_gpu("h100").peak_fp32_tflops(), 66.9, 0.1);  // the datasheet's 67 TFLOPS
  EXPECT_DOUBLE_EQ(find_gpu("h100").bf16_dense_tflops, 989);
  EXPECT_DOUBLE_EQ(find_gpu("h100").dram_gbs, 3350);
  EXPECT_NEAR(find_gpu("gtx1060").peak_fp32_tflops(), 4.37, 0.01);  // seed 002's "4 TFLOPS"
  EXPECT_DOUBLE_EQ(find_gpu("gtx1060").dram_gbs, 192);
}

TEST(GpuDatabase, NamesAndErrors) {
  EXPECT_EQ(find_gpu("GeForce GTX 1080").key, "gtx1080");
  EXPECT_EQ(find_gpu("H100").key, "h100");
  EXPECT_EQ(find_gpu("NVIDIA GeForce RTX 4060").key, "rtx4060");
  try {
    find_gpu("voodoo2");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gt240"), std::string::npos) << "the message lists the known GPUs";
  }
  EXPECT_THROW(arch_limits(2, 0), Error);
  EXPECT_THROW(arch_limits(4, 0), Error);
}

TEST(GpuDatabase, MatchesRealDeviceNames) {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.global_mem_bytes = std::size_t(80) << 30;
  ASSERT_NE(match_gpu(d), nullptr);
  EXPECT_EQ(match_gpu(d)->key, "h100");
  d.name = "NVIDIA H100 PCIe";
  d.sm_count = 114;
  ASSERT_NE(match_gpu(d), nullptr);
  EXPECT_EQ(match_gpu(d)->key, "h100-pcie");
  d.name = "NVIDIA A100-SXM4-80GB";
  d.cc_major = 8;
  d.sm_count = 108;
  ASSERT_NE(match_gpu(d), nullptr);
  EXPECT_EQ(match_gpu(d)->key, "a100-80gb");
  d.name = "Some Future GPU";
  EXPECT_EQ(match_gpu(d), nullptr);
}

TEST(GpuDatabase, DeviceLimitsOverrideTheTable) {
  DeviceInfo d = device_info_of(find_gpu("h100"));
  d.max_blocks_per_sm = 16;
  const ArchLimits a = limits_of(d, 1024);
  EXPECT_EQ(a.max_blocks_per_sm, 16);
  EXPECT_EQ(a.smem_reserved_per_block, 1024u);
  EXPECT_EQ(a.reg_alloc_unit, 256);  // the rules stay the CC's
}

}  // namespace
