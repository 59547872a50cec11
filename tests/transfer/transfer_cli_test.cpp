// gemmlab transfer, link and the seed001 study at the command line: bad input gets one clear line
// and a non-zero exit, before any GPU is needed.
#include <array>
#include <cstdio>
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

TEST(TransferCli, HelpListsTheModes) {
  const CliOutcome o = run_cli("transfer --help");
  EXPECT_EQ(o.status, 0) << o.output;
  for (const char* s : {"pageable", "pinned-c", "overlapped", "--streams", "--panels", "--runs", "--max-seconds"})
    EXPECT_NE(o.output.find(s), std::string::npos) << s;
  EXPECT_EQ(run_cli("link --help").status, 0);
}

TEST(TransferCli, KernelRequired) { expect_clean_failure("transfer --size 64", "--kernel"); }
TEST(TransferCli, UnknownKernel) { expect_clean_failure("transfer --kernel nope --size 64", "unknown kernel 'nope'"); }
TEST(TransferCli, SizeMissing) { expect_clean_failure("transfer --kernel seed.naive", "problem size"); }
TEST(TransferCli, SizeZero) { expect_clean_failure("transfer --kernel seed.naive --size 0", "at least 1"); }
TEST(TransferCli, UnknownMode) {
  expect_clean_failure("transfer --kernel seed.naive --size 64 --host fast", "unknown host memory mode 'fast'");
}
TEST(TransferCli, NotAnFp32Kernel) {
  expect_clean_failure("transfer --kernel cublas.bf16 --size 64", "moves FP32 matrices");
}
TEST(TransferCli, BlockNotAllowed) {
  expect_clean_failure("transfer --kernel seed.naive --block 64 --size 64", "block=64 is not allowed");
}
TEST(TransferCli, BadNumbers) {
  expect_clean_failure("transfer --kernel seed.naive --size 64 --runs 0", "--runs");
  expect_clean_failure("transfer --kernel seed.naive --size 64 --streams 0", "--streams");
  expect_clean_failure("transfer --kernel seed.naive --size 64 --panels 65", "--panels");
  expect_clean_failure("transfer --kernel seed.naive --size 64 --max-seconds -1", "--max-seconds");
  expect_clean_failure("transfer --kernel seed.naive --size 64 --warmup -2", "--warmup");
  expect_clean_failure("link --max-mib 0", "--max-mib");
  expect_clean_failure("link --reps 0", "--reps");
}

TEST(TransferCli, NoGpuSaysSoClearly) {
  if (gemmlab::device_count() > 0) GTEST_SKIP() << "a GPU is present; this case is about machines without one";
  expect_clean_failure("transfer --kernel seed.naive --size 64 --host pinned", "no CUDA GPU is available");
  expect_clean_failure("link", "no CUDA GPU is available");
  expect_clean_failure("study seed001 --quick", "no CUDA GPU is available");
}

TEST(TransferCli, StudyIsListed) {
  const CliOutcome o = run_cli("study --list");
  EXPECT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("seed001"), std::string::npos);
}
