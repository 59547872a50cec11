// The command-line tool as a user meets it: bad input gets one clear line and a non-zero exit.
// These run without a GPU; where one exists, the "no GPU" case is skipped.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "core/device.hpp"
#include "support/cli_runner.hpp"


using gemmlab::testing::CliOutcome;
using gemmlab::testing::run_cli;
using gemmlab::testing::expect_clean_failure;
namespace {


}  // namespace

TEST(Cli, ListWorksWithoutAGpu) {
  const CliOutcome o = run_cli("list");
  EXPECT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("seed.naive"), std::string::npos);
  EXPECT_NE(o.output.find("cublas.fp32"), std::string::npos);
}

TEST(Cli, HelpAndMissingSubcommand) {
  EXPECT_EQ(run_cli("--help").status, 0);
  const CliOutcome help = run_cli("help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("explain"), std::string::npos) << help.output;
  const CliOutcome run_help = run_cli("help run");
  EXPECT_EQ(run_help.status, 0);
  EXPECT_NE(run_help.output.find("--kernel"), std::string::npos) << run_help.output;
  EXPECT_NE(run_help.output.find("--no-hold"), std::string::npos) << run_help.output;
  const CliOutcome bare = run_cli("");
  EXPECT_EQ(bare.status, 1);
  EXPECT_NE(bare.output.find("gemmlab: error: a command is required"), std::string::npos) << bare.output;
  expect_clean_failure("frobnicate", "gemmlab: error: unknown command 'frobnicate'");
  expect_clean_failure("help frobnicate", "gemmlab: error: unknown command 'frobnicate'");
  const CliOutcome version = run_cli("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.output.find("gemmlab 0."), std::string::npos) << version.output;
}

// Every error, the argument parser's included, is one "gemmlab: error:" line and exit status 1.
TEST(Cli, ParserErrorsAreOneLineWithStatusOne) {
  for (const char* args : {"run --no-such-option", "list --family", "run --kernel seed.naive --size 64 extra",
                           "lab --iters many", "list --family bogus"}) {
    const CliOutcome o = run_cli(args);
    SCOPED_TRACE(std::string("gemmlab ") + args + "\n" + o.output);
    EXPECT_EQ(o.status, 1);
    EXPECT_EQ(o.output.rfind("gemmlab: error: ", 0), 0u);
    EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1);
  }
}

TEST(Cli, ListFitsAHundredColumnsAndDetailsOneKernel) {
  for (const char* args : {"list", "study --list"}) {
    const CliOutcome o = run_cli(args);  // not a terminal: 100 columns
    EXPECT_EQ(o.status, 0) << o.output;
    std::size_t start = 0, widest = 0;
    while (start < o.output.size()) {
      std::size_t end = o.output.find('\n', start);
      if (end == std::string::npos) end = o.output.size();
      std::size_t w = 0;  // code points, not bytes
      for (std::size_t i = start; i < end; ++i) w += (static_cast<unsigned char>(o.output[i]) & 0xC0) != 0x80;
      widest = std::max(widest, w);
      start = end + 1;
    }
    EXPECT_LE(widest, 100u) << args << "\n" << o.output;
  }
  const CliOutcome one = run_cli("list fp32.raster");
  EXPECT_EQ(one.status, 0) << one.output;
  for (const char* what : {"fp32.raster", "parameters", "allowed", "origin", "shapes"})
    EXPECT_NE(one.output.find(what), std::string::npos) << what << "\n" << one.output;
  expect_clean_failure("list fp32.rastr", "unknown kernel");
  expect_clean_failure("list --family bogus", "unknown family 'bogus'");
}

TEST(Cli, SizeZero) { expect_clean_failure("run --kernel seed.naive --size 0", "at least 1"); }
TEST(Cli, SizeNegative) { expect_clean_failure("run --kernel seed.naive -m 64 -n -3 -k 64", "at least 1"); }
TEST(Cli, SizeNotANumber) { expect_clean_failure("run --kernel seed.naive --size big", "size"); }
TEST(Cli, SizeIncomplete) { expect_clean_failure("run --kernel seed.naive -m 64 -n 64", "incomplete shape"); }
TEST(Cli, SizeMissing) { expect_clean_failure("run --kernel seed.naive", "problem size"); }
TEST(Cli, SizeTooLargeForIndexing) { expect_clean_failure("run --kernel seed.naive --size 100000", "at most"); }
TEST(Cli, UnknownKernel) { expect_clean_failure("run --kernel nope --size 64", "unknown kernel 'nope'"); }
TEST(Cli, BlockNotAllowed) { expect_clean_failure("run --kernel seed.naive --block 64 --size 64", "block=64 is not allowed"); }
TEST(Cli, UnknownParameter) { expect_clean_failure("run --kernel seed.naive --param tile=4 --size 64", "no parameter 'tile'"); }
TEST(Cli, MalformedParameter) {
  expect_clean_failure("run --kernel seed.naive --param block --size 64", "NAME=VALUE");
  // A value past 32 bits is refused as given, not wrapped into another value (it was: block=-727379969).
  expect_clean_failure("run --kernel seed.naive --param block=999999999999 --size 64",
                       "--param block: 999999999999 is outside the range of a kernel parameter");
}
TEST(Cli, BadIters) { expect_clean_failure("run --kernel seed.naive --size 64 --iters 0", "iters"); }
TEST(Cli, BadPrecisionOrOutput) { expect_clean_failure("run --kernel seed.naive --size 64 --output f8", "unknown output type"); }

TEST(Cli, LabRejectsBadShapesAndOutputs) {
  expect_clean_failure("lab --shapes 12x34", "");
  expect_clean_failure("lab --shapes 0x4x4", "at least 1");
  expect_clean_failure("lab --output f64", "--output must be f32 or same");
  expect_clean_failure("lab --kernels nothing.like.this", "no kernel matches");
  // A comma-separated list, as sweep takes: the pattern that matches nothing is named.
  expect_clean_failure("lab --kernels tc.wgmma.bf16,nothing.like.this", "no kernel matches 'nothing.like.this'");
}

TEST(Cli, TuneNeedsAKernelWithParameters) {
  expect_clean_failure("tune --kernel cublas.fp32 --size 64", "no parameters to tune");
  expect_clean_failure("tune --kernel nope --size 64", "unknown kernel 'nope'");
  expect_clean_failure("tune --kernel auto.fp64 --size 64", "unknown kernel 'auto.fp64'");
  // --layout: the library's candidates in any of the four layouts; not for the lab's kernels.
  expect_clean_failure("tune --kernel auto.fp32 --size 64 --layout NX", "--layout: 'NX' is not NN, NT, TN or TT");
  expect_clean_failure("tune --kernel fp32.tuned --size 64 --layout NT", "--layout applies to --kernel auto.<precision>");
  expect_clean_failure("tune --table t.json --layout TT", "--layout applies to --kernel auto.<precision>");
  // --bias and --activation: the library's candidates for a fused epilogue; named where a value is bad.
  expect_clean_failure("tune --kernel auto.bf16 --size 64 --bias diag", "--bias: 'diag' is not none, row or col");
  expect_clean_failure("tune --kernel auto.bf16 --size 64 --activation tanh",
                       "--activation: 'tanh' is not none, relu, gelu or silu");
  expect_clean_failure("tune --kernel fp32.tuned --size 64 --bias col",
                       "--bias and --activation apply to --kernel auto.<precision>");
  expect_clean_failure("tune --table t.json --activation gelu", "--table measures plain calls");
}

TEST(Cli, BenchRejectsBadEpilogueSizes) {
  expect_clean_failure("bench --suite epilogue --epilogue-sizes 0", "--epilogue-sizes");
  expect_clean_failure("bench --suite epilogue --epilogue-sizes 4096 --epilogue-sizes x", "--epilogue-sizes");
}

// The call suite (one problem from the command line) is checked before the GPU is opened: each
// mistake is named, here as on a machine without a GPU.
TEST(Cli, BenchCallSuiteNamesItsMistakes) {
  expect_clean_failure("bench --suite nope", "--suite: 'nope' is not one of layouts, squares, batched, grouped, call");
  expect_clean_failure("bench --suite call", "--suite call: give the problem's size");
  expect_clean_failure("bench --suite layouts -m 4 -n 4 -k 4", "-m, -n, -k and --size describe the call suite's problem");
  expect_clean_failure("bench --layout TN", "--layout describes the call suite's problem");
  expect_clean_failure("bench --suite squares --bias col", "--bias describes the call suite's problem");
  expect_clean_failure("bench -m 4 -n 4", "incomplete shape");
  expect_clean_failure("bench -m 4 -n 0 -k 4", "at least 1");
  expect_clean_failure("bench -s 64 --layout NX", "--layout: 'NX' is not NN, NT, TN or TT");
  expect_clean_failure("bench -s 64 --precision fp64", "--precision: 'fp64' is not one of fp32, tf32, bf16, fp16");
  expect_clean_failure("bench -s 64 --activation tanh", "--activation: 'tanh' is not none, relu, gelu or silu");
  expect_clean_failure("bench -s 64 --groups 2 --batch 2", "a call is grouped or batched, not both");
  expect_clean_failure("bench -s 64 --groups 2 --d-order col", "--d-order: grouped GEMM writes a row-major D");
  expect_clean_failure("bench -s 64 --l2 warm", "--l2");
}

TEST(Cli, UnreadableNpy) {
  expect_clean_failure("run --kernel seed.naive --input-a /nonexistent/a.npy --input-b /nonexistent/b.npy", "cannot open");
}

TEST(Cli, MalformedNpy) {
  const std::string p = (std::filesystem::temp_directory_path() / "gemmlab_cli_bad.npy").string();
  std::ofstream(p) << "definitely not numpy";
  expect_clean_failure("run --kernel seed.naive --input-a " + p + " --input-b " + p, "not a .npy file");
  std::filesystem::remove(p);
}

TEST(Cli, NoGpuSaysSoClearly) {
  if (gemmlab::device_count() > 0) GTEST_SKIP() << "a GPU is present; this case is about machines without one";
  expect_clean_failure("run --kernel seed.naive --size 64", "no CUDA GPU is available");
  expect_clean_failure("devices", "no CUDA GPU is available");
  expect_clean_failure("lab", "no CUDA GPU is available");
}
