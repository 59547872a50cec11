// The command-line tool as a user meets it: bad input gets one clear line and a non-zero exit.
// These run without a GPU; where one exists, the "no GPU" case is skipped.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "core/device.hpp"
#include "cli_runner.hpp"


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
  EXPECT_NE(run_cli("").status, 0);
  expect_clean_failure("frobnicate", "subcommand");
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
TEST(Cli, MalformedParameter) { expect_clean_failure("run --kernel seed.naive --param block --size 64", "NAME=VALUE"); }
TEST(Cli, BadIters) { expect_clean_failure("run --kernel seed.naive --size 64 --iters 0", "iters"); }
TEST(Cli, BadPrecisionOrOutput) { expect_clean_failure("run --kernel seed.naive --size 64 --output f8", "unknown output type"); }

TEST(Cli, LabRejectsBadShapesAndOutputs) {
  expect_clean_failure("lab --shapes 12x34", "");
  expect_clean_failure("lab --shapes 0x4x4", "at least 1");
  expect_clean_failure("lab --output f64", "--output must be f32 or same");
  expect_clean_failure("lab --kernels nothing.like.this", "no kernel matches");
}

TEST(Cli, TuneNeedsAKernelWithParameters) {
  expect_clean_failure("tune --kernel cublas.fp32 --size 64", "no parameters to tune");
  expect_clean_failure("tune --kernel nope --size 64", "unknown kernel 'nope'");
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
