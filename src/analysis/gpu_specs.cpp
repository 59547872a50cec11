#include "analysis/gpu_specs.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

namespace {

constexpr std::size_t KB = 1024;

std::vector<std::size_t> kb_list(std::initializer_list<std::size_t> kbs) {
  std::vector<std::size_t> out;
  for (std::size_t k : kbs) out.push_back(k * KB);
  return out;
}

// Limits shared by every CC from 3.0 on; the per-CC table below changes what differs.
ArchLimits modern(int cc) {
  ArchLimits a;
  a.cc = cc;
  a.max_threads_per_block = 1024;
  a.max_threads_per_sm = 2048;
  a.regs_per_sm = 65536;
  a.max_regs_per_block = 65536;
  a.max_regs_per_thread = 255;
  a.reg_alloc_unit = 256;  // registers per warp are rounded up to 256 (8 per thread)
  a.reg_alloc_per_warp = true;
  a.reg_file_parts = 4;
  a.smem_per_block = 48 * KB;
  a.smem_alloc_unit = 256;
  return a;
}

std::string normalise(const std::string& s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += char(std::tolower(static_cast<unsigned char>(c)));
  for (const char* prefix : {"nvidia", "geforce", "tesla"})
    if (out.rfind(prefix, 0) == 0) out = out.substr(std::string(prefix).size());
  return out;
}

}  // namespace

ArchLimits arch_limits(int major, int minor) {
  const int cc = major * 10 + minor;
  if (major == 1) {
    // Tesla architecture (G80/GT200): registers allocated per block, in units of 256 (CC 1.0,
    // 1.1) or 512 (1.2, 1.3) after rounding the block's warps up to an even number; shared memory
    // in 512-byte units out of 16 KB; at most 8 blocks and 24 (32) warps per SM.
    ArchLimits a;
    a.cc = cc;
    const bool gt200 = minor >= 2;
    a.max_threads_per_block = 512;
    a.max_threads_per_sm = gt200 ? 1024 : 768;
    a.max_blocks_per_sm = 8;
    a.regs_per_sm = gt200 ? 16384 : 8192;
    a.max_regs_per_block = a.regs_per_sm;
    a.max_regs_per_thread = 128;
    a.reg_alloc_unit = gt200 ? 512 : 256;
    a.reg_alloc_per_warp = false;
    a.reg_warp_granularity = 2;
    a.reg_file_parts = 1;
    a.smem_per_sm = a.smem_per_block = a.smem_per_block_optin = 16 * KB;
    a.smem_alloc_unit = 512;
    return a;
  }
  if (major == 3 && minor <= 7) {
    ArchLimits a = modern(cc);  // Kepler
    a.max_blocks_per_sm = 16;
    a.max_regs_per_thread = minor >= 5 ? 255 : 63;
    if (minor == 7) a.regs_per_sm = 131072;
    a.smem_per_sm = minor == 7 ? 112 * KB : 48 * KB;
    a.smem_per_block_optin = 48 * KB;
    return a;
  }
  if (major == 5 && minor <= 3) {
    ArchLimits a = modern(cc);  // Maxwell
    a.max_blocks_per_sm = 32;
    a.smem_per_sm = minor == 2 ? 96 * KB : 64 * KB;
    a.smem_per_block_optin = 48 * KB;
    return a;
  }
  if (major == 6 && minor <= 2) {
    ArchLimits a = modern(cc);  // Pascal: GP100 (6.0) has two register-file parts, GP10x four
    a.max_blocks_per_sm = 32;
    a.reg_file_parts = minor == 0 ? 2 : 4;
    a.smem_per_sm = minor == 1 ? 96 * KB : 64 * KB;
    a.smem_per_block_optin = 48 * KB;
    return a;
  }
  if (major == 7 && (minor == 0 || minor == 2)) {
    ArchLimits a = modern(cc);  // Volta
    a.max_blocks_per_sm = 32;
    a.smem_per_sm = 96 * KB;
    a.smem_per_block_optin = 96 * KB;
    a.smem_carveouts = kb_list({0, 8, 16, 32, 64, 96});
    return a;
  }
  if (major == 7 && minor == 5) {
    ArchLimits a = modern(cc);  // Turing
    a.max_threads_per_sm = 1024;
    a.max_blocks_per_sm = 16;
    a.smem_per_sm = 64 * KB;
    a.smem_per_block_optin = 64 * KB;
    a.smem_carveouts = kb_list({32, 64});
    return a;
  }
  if (major == 8 && (minor == 0 || minor == 6 || minor == 7 || minor == 9)) {
    ArchLimits a = modern(cc);  // Ampere and Ada: 128-byte shared-memory units, 1 KB reserved per block
    a.smem_alloc_unit = 128;
    a.smem_reserved_per_block = 1 * KB;
    const bool big = minor == 0 || minor == 7;  // A100 and Orin: 192 KB L1/shared per SM
    a.max_threads_per_sm = minor == 0 ? 2048 : 1536;
    a.max_blocks_per_sm = minor == 0 ? 32 : (minor == 9 ? 24 : 16);
    a.smem_per_sm = big ? 164 * KB : 100 * KB;
    a.smem_per_block_optin = big ? 163 * KB : 99 * KB;
    a.smem_carveouts = big ? kb_list({0, 8, 16, 32, 64, 100, 132, 164}) : kb_list({0, 8, 16, 32, 64, 100});
    return a;
  }
  if ((major == 9 && minor == 0) || (major == 10 && minor <= 3)) {
    ArchLimits a = modern(cc);  // Hopper, data-centre Blackwell: 256 KB L1/shared per SM
    a.max_blocks_per_sm = major == 10 && minor == 1 ? 24 : 32;
    a.smem_alloc_unit = 128;
    a.smem_reserved_per_block = 1 * KB;
    a.smem_per_sm = 228 * KB;
    a.smem_per_block_optin = 227 * KB;
    a.smem_carveouts = kb_list({0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
    return a;
  }
  if (major == 12 && minor <= 1) {
    ArchLimits a = modern(cc);  // consumer Blackwell
    a.max_threads_per_sm = 1536;
    a.max_blocks_per_sm = 24;
    a.smem_alloc_unit = 128;
    a.smem_reserved_per_block = 1 * KB;
    a.smem_per_sm = 100 * KB;
    a.smem_per_block_optin = 99 * KB;
    a.smem_carveouts = kb_list({0, 8, 16, 32, 64, 100});
    return a;
  }
  throw Error(fmt::format("gemmlab has no occupancy model for compute capability {}.{} (it knows 1.x, 3.x, 5.x, "
                          "6.x, 7.0/7.2/7.5, 8.0/8.6/8.7/8.9, 9.0, 10.x and 12.x)",
                          major, minor));
}

const std::vector<GpuSpec>& gpu_database() {
  static const std::vector<GpuSpec> db = [] {
    std::vector<GpuSpec> v;
    auto add = [&](std::string key, std::string name, std::string source, int major, int minor, int sms, int lanes,
                   double mhz, double gbs, double bf16, double mem_gib) {
      GpuSpec g;
      g.key = std::move(key);
      g.name = std::move(name);
      g.source = std::move(source);
      g.cc_major = major;
      g.cc_minor = minor;
      g.sm_count = sms;
      g.fp32_lanes_per_sm = lanes;
      g.clock_mhz = mhz;
      g.dram_gbs = gbs;
      g.bf16_dense_tflops = bf16;
      g.memory_bytes = std::size_t(mem_gib * double(1ull << 30));
      v.push_back(std::move(g));
    };
    // Seed 003, Table 1: 12 SMs, 96 cores, 1400 MHz processor clock, 25.6 GB/s (DDR3 board).
    add("gt240", "GeForce GT 240", "seed 003 Table 1", 1, 2, 12, 8, 1400, 25.6, 0, 1);
    // Seed 000: 5 SMs, 640 cores, 1493 MHz, 3504 MHz memory clock on 128 bits = 112 GB/s.
    add("gtx1050", "GeForce GTX 1050", "seed 000 section 2; NVIDIA specifications", 6, 1, 5, 128, 1493, 112.1, 0, 2);
    // Seed 002 quotes 192 GB/s and "4 TFLOPS": the 6 GB board, 10 SMs at 1708 MHz boost.
    add("gtx1060", "GeForce GTX 1060 6GB", "seed 002; NVIDIA specifications", 6, 1, 10, 128, 1708, 192, 0, 6);
    add("gtx1080", "GeForce GTX 1080", "NVIDIA specifications (seed 004's GPU)", 6, 1, 20, 128, 1733, 320, 0, 8);
    add("rtx4060", "GeForce RTX 4060", "NVIDIA specifications (seed 001's GPU)", 8, 9, 24, 128, 2460, 272, 0, 8);
    add("a100", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 datasheet", 8, 0, 108, 64, 1410, 1555, 312, 40);
    add("a100-80gb", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 datasheet", 8, 0, 108, 64, 1410, 2039, 312, 80);
    add("h100-pcie", "NVIDIA H100 PCIe", "NVIDIA H100 datasheet", 9, 0, 114, 128, 1755, 2000, 756, 80);
    // H100 SXM5: 132 SMs x 128 lanes x 2 x 1.98 GHz = 66.9 TFLOPS FP32; 989 TFLOPS dense BF16; 3.35 TB/s.
    add("h100", "NVIDIA H100 SXM5 80GB", "NVIDIA H100 datasheet", 9, 0, 132, 128, 1980, 3350, 989, 80);
    add("h200", "NVIDIA H200 SXM 141GB", "NVIDIA H200 datasheet", 9, 0, 132, 128, 1980, 4800, 989, 141);
    return v;
  }();
  return db;
}

const GpuSpec& find_gpu(const std::string& name) {
  const std::string want = normalise(name);
  for (const GpuSpec& g : gpu_database())
    if (normalise(g.key) == want || normalise(g.name) == want) return g;
  std::vector<std::string> keys;
  for (const GpuSpec& g : gpu_database()) keys.push_back(g.key);
  throw Error(fmt::format("unknown GPU '{}' (known: {}; 'gemmlab occupancy --list-gpus' shows them)", name,
                          fmt::join(keys, ", ")));
}

const GpuSpec* match_gpu(const DeviceInfo& dev) {
  const std::string n = normalise(dev.name);
  // The reported names differ from the marketing ones ("NVIDIA H100 80GB HBM3"): match on the
  // model number in the key, the compute capability and the SM count (which tells the SXM and
  // PCIe boards apart), then take the memory size closest to the device's (A100 40 / 80 GB).
  const GpuSpec* best = nullptr;
  auto memory_gap = [&](const GpuSpec& g) {
    return std::abs(double(g.memory_bytes) - double(dev.global_mem_bytes));
  };
  for (const GpuSpec& g : gpu_database()) {
    if (g.cc() != dev.cc() || g.sm_count != dev.sm_count) continue;
    // The model number: the key's letters and first run of digits ("a100-80gb" -> "a100").
    const std::size_t digit = g.key.find_first_of("0123456789");
    const std::string model = g.key.substr(0, g.key.find_first_not_of("0123456789", digit));
    if (n.find(model) == std::string::npos) continue;
    if (!best || memory_gap(g) < memory_gap(*best)) best = &g;
  }
  return best;
}

ArchLimits limits_of(const DeviceInfo& dev, std::size_t reserved_smem_per_block) {
  ArchLimits a = arch_limits(dev.cc_major, dev.cc_minor);
  // The device's own counts win over the table; the allocation rules stay the CC's.
  if (dev.warp_size > 0) a.warp_size = dev.warp_size;
  if (dev.max_threads_per_block > 0) a.max_threads_per_block = dev.max_threads_per_block;
  if (dev.max_threads_per_sm > 0) a.max_threads_per_sm = dev.max_threads_per_sm;
  if (dev.max_blocks_per_sm > 0) a.max_blocks_per_sm = dev.max_blocks_per_sm;
  if (dev.regs_per_sm > 0) a.regs_per_sm = dev.regs_per_sm;
  if (dev.regs_per_block > 0) a.max_regs_per_block = dev.regs_per_block;
  if (dev.smem_per_sm > 0) a.smem_per_sm = dev.smem_per_sm;
  if (dev.smem_per_block > 0) a.smem_per_block = dev.smem_per_block;
  if (dev.smem_per_block_optin > 0) a.smem_per_block_optin = dev.smem_per_block_optin;
  a.smem_reserved_per_block = reserved_smem_per_block;
  return a;
}

DeviceInfo device_info_of(const GpuSpec& g) {
  const ArchLimits a = g.limits();
  DeviceInfo d;
  d.name = g.name;
  d.cc_major = g.cc_major;
  d.cc_minor = g.cc_minor;
  d.sm_count = g.sm_count;
  d.fp32_lanes_per_sm = g.fp32_lanes_per_sm;
  d.clock_khz = int(g.clock_mhz * 1000);
  d.global_mem_bytes = g.memory_bytes;
  d.smem_per_block = a.smem_per_block;
  d.smem_per_block_optin = a.smem_per_block_optin;
  d.smem_per_sm = a.smem_per_sm;
  d.regs_per_block = a.max_regs_per_block;
  d.regs_per_sm = a.regs_per_sm;
  d.max_threads_per_block = a.max_threads_per_block;
  d.max_threads_per_sm = a.max_threads_per_sm;
  d.max_blocks_per_sm = a.max_blocks_per_sm;
  d.warp_size = a.warp_size;
  const bool tesla = g.cc_major == 1;
  d.max_block_dim[0] = tesla ? 512 : 1024;
  d.max_block_dim[1] = tesla ? 512 : 1024;
  d.max_block_dim[2] = 64;
  d.max_grid_dim[0] = tesla ? 65535 : 2147483647;
  d.max_grid_dim[1] = 65535;
  d.max_grid_dim[2] = tesla ? 1 : 65535;
  return d;
}

}  // namespace gemmlab
