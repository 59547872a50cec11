// The analysis commands (occupancy, profile, peak, run --roofline) as a user meets them, without
// a GPU: seed 003's table from the command line, the offline kernel lookup through a stand-in
// cuobjdump, the profile flow through a stand-in ncu, and one clear line for every bad input.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/kernel_binary.hpp"
#include "core/device.hpp"
#include "kernels/registry.hpp"
#include "support/cli_runner.hpp"

namespace fs = std::filesystem;


using gemmlab::testing::CliOutcome;
using gemmlab::testing::run_cli;
using gemmlab::testing::expect_clean_failure;
namespace {


std::string fixture_path(const std::string& name) {
  return std::string(GEMMLAB_SOURCE_DIR) + "/tests/fixtures/analysis/" + name;
}

// A temporary directory with executable stand-ins for NVIDIA's tools.
class FakeTools {
 public:
  FakeTools() {
    dir_ = fs::temp_directory_path() / ("gemmlab_fake_tools_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(dir_);
  }
  ~FakeTools() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // A script `name` that prints `text` and exits with `status`.
  std::string add(const std::string& name, const std::string& text, int status = 0) {
    const fs::path out = dir_ / (name + ".out");
    std::ofstream(out) << text;
    const fs::path script = dir_ / name;
    std::ofstream(script) << "#!/bin/sh\ncat '" << out.string() << "'\nexit " << status << "\n";
    fs::permissions(script, fs::perms::owner_all);
    return script.string();
  }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
  static inline int counter_ = 0;
};

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The cells of the table row whose label is `label` ("active blocks"): the fields after it.
std::vector<std::string> row_cells(const std::string& output, const std::string& label) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find(label + "  ");
    if (at == std::string::npos) continue;
    // The label must be the "item" column: nothing but the criterion column before it.
    const std::string before = line.substr(0, at);
    const bool item_column = before.find_first_not_of(' ') == std::string::npos ||
                             (before.size() >= 2 && before.compare(before.size() - 2, 2, "  ") == 0);
    if (!item_column) continue;
    std::istringstream cells(line.substr(at + label.size()));
    std::vector<std::string> out;
    std::string c;
    while (cells >> c) out.push_back(c);
    return out;
  }
  return {};
}

using Cells = std::vector<std::string>;

TEST(OccupancyCli, ReproducesSeed003Table2) {
  const CliOutcome o = run_cli("occupancy --gpu gt240 --threads 64,256,484 --regs 16 --smem 44");
  ASSERT_EQ(o.status, 0) << o.output;
  // Columns 8x8 (64 threads), 16x16, 22x22, then the GPU limit.
  EXPECT_EQ(row_cells(o.output, "active blocks"), (Cells{"8", "4", "2", "8"}));
  EXPECT_EQ(row_cells(o.output, "active warps"), (Cells{"16", "32", "32", "32"}));
  EXPECT_EQ(row_cells(o.output, "active threads"), (Cells{"512", "1024", "1024", "1024"}));
  EXPECT_EQ(row_cells(o.output, "occupancy"), (Cells{"50%", "100%", "100%", "100%"}));
  EXPECT_EQ(row_cells(o.output, "threads / block"), (Cells{"64", "256", "484", "512"}));
  EXPECT_EQ(row_cells(o.output, "warps / block"), (Cells{"2", "8", "16", "16"}));
  EXPECT_EQ(row_cells(o.output, "registers / thread"), (Cells{"16", "16", "16", "128"}));
  EXPECT_EQ(row_cells(o.output, "registers / block"), (Cells{"1024", "4096", "8192", "16384"}));
  EXPECT_EQ(row_cells(o.output, "shared memory / block (B)"), (Cells{"44", "44", "44", "16384"}));
  // The three "block limit" rows: warps, registers, shared memory.
  std::vector<Cells> limits;
  std::istringstream in(o.output);
  std::string line;
  while (std::getline(in, line))
    if (line.find("block limit") != std::string::npos) limits.push_back(row_cells(line, "block limit"));
  ASSERT_EQ(limits.size(), 3u);
  EXPECT_EQ(limits[0], (Cells{"16", "4", "2", "8"}));
  EXPECT_EQ(limits[1], (Cells{"16", "4", "2", "8"}));
  EXPECT_EQ(limits[2], (Cells{"32", "32", "32", "8"}));
}

TEST(OccupancyCli, ListsTheDatabase) {
  const CliOutcome o = run_cli("occupancy --list-gpus");
  EXPECT_EQ(o.status, 0);
  for (const char* key : {"gt240", "gtx1050", "gtx1060", "gtx1080", "rtx4060", "a100", "h100", "h200"})
    EXPECT_NE(o.output.find(key), std::string::npos) << key;
}

TEST(OccupancyCli, KernelOfflineWithGivenResources) {
  const CliOutcome o = run_cli("occupancy --gpu gtx1050 --kernel seed.naive --regs 32 --smem 0");
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("8x8"), std::string::npos);  // a column per allowed block size
  EXPECT_NE(o.output.find("CGMA"), std::string::npos);
  EXPECT_EQ(row_cells(o.output, "occupancy").front(), "100%");  // seed 000: 100% with 32 registers
}

TEST(OccupancyCli, KernelOfflineThroughCuobjdump) {
  // A stand-in cuobjdump that reports the naive kernel (under the name gemmlab will look for)
  // with 38 registers and 0 bytes of shared memory.
  const gemmlab::Kernel& k = gemmlab::Registry::instance().get("seed.naive");
  const std::string mangled =
      gemmlab::host_symbol_at(k.plan(gemmlab::Shape{64, 64, 64}, gemmlab::resolve_params(k, {})).function);
  ASSERT_FALSE(mangled.empty());
  FakeTools tools;
  const std::string dump = "\nFatbin elf code:\n================\narch = sm_90\ncode version = [1,8]\nhost = linux\n"
                           "compile_size = 64bit\n\nResource usage:\n Common:\n  GLOBAL:0\n Function " + mangled +
                           ":\n  REG:38 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:944 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
  const std::string cuobjdump = tools.add("cuobjdump", dump);
  const CliOutcome o = run_cli("occupancy --gpu h100 --kernel seed.naive --block 16", "GEMMLAB_CUOBJDUMP=" + cuobjdump);
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_EQ(row_cells(o.output, "registers / thread"), (Cells{"38", "255"}));
  // 38 x 32 = 1216 -> 1280 per warp; 12 warps per register-file part, 48 per SM: 6 blocks of 8 warps.
  EXPECT_EQ(row_cells(o.output, "active blocks"), (Cells{"6", "32"}));
  EXPECT_NE(o.output.find("naive_gemm"), std::string::npos) << "says which function it used";
  // The same from a saved dump.
  const std::string saved = tools.add("dump.txt", dump);
  const CliOutcome s = run_cli("occupancy --gpu h100 --kernel seed.naive --block 16 --resources " + saved + ".out");
  ASSERT_EQ(s.status, 0) << s.output;
  EXPECT_EQ(row_cells(s.output, "registers / thread"), (Cells{"38", "255"}));
  // And a regex that matches nothing.
  expect_clean_failure("occupancy --gpu h100 --kernel seed.naive --function nothing_like_it --resources " + saved + ".out",
                       "no device function matching");
}

TEST(OccupancyCli, Errors) {
  expect_clean_failure("occupancy --gpu voodoo2 --threads 64 --regs 16", "unknown GPU 'voodoo2'");
  expect_clean_failure("occupancy --gpu gt240", "give --kernel");
  expect_clean_failure("occupancy --gpu gt240 --threads 64", "give --regs");
  expect_clean_failure("occupancy --gpu gt240 --threads 0 --regs 16", "at least one thread");
  expect_clean_failure("occupancy --gpu h100 --kernel seed.naive --block 64 --regs 32 --smem 0", "block=64 is not allowed");
  expect_clean_failure("occupancy --gpu h100 --kernel nope --regs 32", "unknown kernel 'nope'");
  expect_clean_failure("occupancy --gpu h100 --kernel seed.naive --param tile=4 --regs 32", "no parameter 'tile'");
  expect_clean_failure("occupancy --gpu h100 --threads 64 --regs 16 --carveout 101", "--carveout");
  expect_clean_failure("occupancy --gpu h100 --kernel seed.naive --resources /nonexistent/dump.txt", "cannot open");
  expect_clean_failure("occupancy --gpu h100 --kernel seed.naive", "cuobjdump", "PATH=/nonexistent CUDA_HOME=");
  expect_clean_failure("occupancy --gpu h100 --kernel cublas.fp32 --regs 32 --smem 0", "library call");
  expect_clean_failure("occupancy --gpu h100 --kernel seed.naive --threads 64 --regs 32", "launch plan");
  expect_clean_failure("occupancy --kernel seed.naive --function naive", "use them with --gpu");
}

TEST(ProfileCli, MissingNcuSaysSo) {
  expect_clean_failure("profile --kernel seed.naive --size 64", "Nsight Compute (ncu) not found",
                       "PATH=/nonexistent CUDA_HOME= GEMMLAB_NCU=");
  expect_clean_failure("profile --kernel seed.naive --size 64", "GEMMLAB_NCU=/nonexistent/ncu is not an executable",
                       "GEMMLAB_NCU=/nonexistent/ncu");
}

TEST(ProfileCli, BadInputFailsBeforeProfiling) {
  expect_clean_failure("profile --kernel nope --size 64", "unknown kernel 'nope'");
  expect_clean_failure("profile --kernel seed.naive --block 64 --size 64", "block=64 is not allowed");
  expect_clean_failure("profile --kernel seed.naive", "problem size", "GEMMLAB_NCU=/bin/true");
  expect_clean_failure("profile --size 64", "give --kernel");
  expect_clean_failure("profile --ncu-csv /nonexistent.csv", "cannot open");
  expect_clean_failure("profile --ncu-csv " + fixture_path("ncu_bad_quote.csv"), "unterminated");
  expect_clean_failure("profile --ncu-csv " + fixture_path("ncu_no_table.txt"), "no ncu CSV table");
}

TEST(ProfileCli, CounterPermissionError) {
  FakeTools tools;
  const std::string ncu = tools.add("ncu", read(fixture_path("ncu_no_table.txt")), 1);
  expect_clean_failure("profile --kernel seed.naive --size 64", "ERR_NVGPUCTRPERM", "GEMMLAB_NCU=" + ncu);
}

TEST(ProfileCli, WholeFlowThroughAStandInNcu) {
  // ncu replaced by a script that prints a recorded profile: everything after it is real.
  FakeTools tools;
  const std::string ncu = tools.add("ncu", read(fixture_path("ncu_raw_naive.csv")));
  const std::string json = tools.dir() + "/profile.json", raw = tools.dir() + "/raw.csv";
  const CliOutcome o = run_cli("profile --kernel seed.naive --block 16 --size 256 --json " + json + " --save-csv " + raw,
                            "GEMMLAB_NCU=" + ncu);
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("GMLE"), std::string::npos);
  EXPECT_NE(o.output.find("200.00%"), std::string::npos) << "load efficiency of the fixture";
  EXPECT_NE(o.output.find("85.00%"), std::string::npos) << "SM activity of the fixture";
  EXPECT_NE(o.output.find("CGMA, kernel model"), std::string::npos);
  EXPECT_NE(o.output.find("CGMA, measured"), std::string::npos);
  const std::string j = read(json);
  EXPECT_NE(j.find("\"measured_cgma\""), std::string::npos);
  EXPECT_NE(j.find("\"model_cgma\""), std::string::npos);
  EXPECT_EQ(read(raw), read(fixture_path("ncu_raw_naive.csv")));
}

TEST(ProfileCli, KernelMissingFromTheProfile) {
  FakeTools tools;
  const std::string ncu = tools.add("ncu", read(fixture_path("ncu_raw_two_launches.csv")));
  expect_clean_failure("profile --kernel seed.naive --size 64", "kernel 'naive_gemm' not found", "GEMMLAB_NCU=" + ncu);
}

TEST(ProfileCli, RecordedCsv) {
  const CliOutcome o = run_cli("profile --ncu-csv " + fixture_path("ncu_raw_naive.csv") + " --kernel seed.naive --size 256");
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("FP32 flops counted"), std::string::npos);
  EXPECT_NE(o.output.find("1.0020 x 2MNK"), std::string::npos) << "(2 x 16777216 + 65536) / 2 x 256^3";
  const CliOutcome all = run_cli("profile --ncu-csv " + fixture_path("ncu_raw_two_launches.csv"));
  ASSERT_EQ(all.status, 0) << all.output;
  EXPECT_NE(all.output.find("2 launches"), std::string::npos);
}

TEST(PeakAndRooflineCli, Errors) {
  expect_clean_failure("run --kernel seed.naive --size 64 --peaks /nonexistent/peaks.json", "cannot open peaks file");
  expect_clean_failure("peak --iters 0", "iters");
  if (gemmlab::device_count() > 0) GTEST_SKIP() << "a GPU is present; the rest is about machines without one";
  expect_clean_failure("peak", "no CUDA GPU is available");
  expect_clean_failure("occupancy --kernel seed.naive", "no CUDA GPU is available");
  expect_clean_failure("profile-launch --kernel seed.naive --size 64", "no CUDA GPU is available");
}

}  // namespace
