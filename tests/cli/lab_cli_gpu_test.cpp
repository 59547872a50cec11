// gemmlab lab from the command line, timed both ways: cuBLAS once per size after the kernels
// (default), and every kernel alternating with cuBLAS runs of its own (--interleave).
#include <filesystem>
#include <string>

#include "support/cli_runner.hpp"
#include "support/gpu_test.hpp"
#include "results/record.hpp"

using namespace gemmlab;
using gemmlab::testing::CliOutcome;
using gemmlab::testing::run_cli;

namespace {

class LabCli : public GpuTest {};

TEST_F(LabCli, InterleavedLabPairsEveryKernelWithItsOwnCublasRuns) {
  const std::string json = (std::filesystem::temp_directory_path() / "gemmlab_lab_cli_test.json").string();
  for (const bool interleave : {false, true}) {
    std::filesystem::remove(json);
    // Sizes where the naive kernel is clearly slower than cuBLAS (below about 300 it is faster: at
    // 96^3 cuBLAS took 0.017 ms on the H100, the naive kernel 0.007 ms).
    const CliOutcome o = run_cli(std::string("lab --kernels seed.naive --sizes 515,1021 --iters 5 --json ") + json +
                                 (interleave ? " --interleave" : ""));
    SCOPED_TRACE(o.output);
    ASSERT_EQ(o.status, 0);
    const auto results = read_results_file(json)["results"];
    int kernels = 0, cublas = 0;
    for (const auto& rec : results) {
      if (rec["kernel"] == "cublas.fp32") {
        ++cublas;
        continue;
      }
      ++kernels;
      EXPECT_TRUE(rec["kernel_passed"].get<bool>());
      // The naive kernel is far slower than cuBLAS: the ratio is the right way round.
      const double ratio = rec["ratio_to_cublas"].get<double>();
      EXPECT_GT(ratio, 0.0);
      EXPECT_LT(ratio, 1.0);
      if (interleave) {
        EXPECT_EQ(rec["timing_order"], "interleaved");
        EXPECT_GT(rec["cublas_time_median_ms"].get<double>(), 0.0);
        EXPECT_TRUE(rec["cublas_passed"].get<bool>());
      }
    }
    EXPECT_EQ(kernels, 2);
    // Blocked: one cuBLAS record per size; alternating: cuBLAS lives in each kernel's record.
    EXPECT_EQ(cublas, interleave ? 0 : 2);
    EXPECT_EQ(o.output.find("cuBLAS ms") != std::string::npos, interleave);
    EXPECT_EQ(o.output.find("timed alternately with cuBLAS") != std::string::npos, interleave);
  }
  std::filesystem::remove(json);
}

}  // namespace

namespace {

// gemmlab tune --kernel auto.<precision>: every candidate of the library's dispatch, each checked
// against float64 (a failed check ends the command with an error), ranked, with the call's own
// choice marked and cuBLAS below.
TEST_F(LabCli, TuneOfTheLibraryRanksEveryDispatchCandidate) {
  const CliOutcome o = run_cli("tune --kernel auto.fp32 -m 8 -n 520 -k 1024 --iters 3 --warmup 1");
  SCOPED_TRACE(o.output);
  ASSERT_EQ(o.status, 0);
  EXPECT_NE(o.output.find("sm90.skinny_simt.f32.f32"), std::string::npos);
  EXPECT_NE(o.output.find("sm80.simt_pipelined.f32.f32"), std::string::npos);
  EXPECT_NE(o.output.find("<- gemm()"), std::string::npos);
  EXPECT_NE(o.output.find("cuBLAS"), std::string::npos);
}

// With a fused epilogue: the candidates for it (each checked against float64 with the bias and the
// activation), next to cuBLASLt's fused call where it has one, and without an anchor where not.
TEST_F(LabCli, TuneOfTheLibraryTakesAFusedEpilogue) {
  const CliOutcome gelu = run_cli("tune --kernel auto.bf16 -m 300 -n 520 -k 1024 --bias col --activation gelu --iters 3 --warmup 1");
  SCOPED_TRACE(gelu.output);
  ASSERT_EQ(gelu.status, 0);
  EXPECT_NE(gelu.output.find("epilogue bias(col)+gelu"), std::string::npos);
  EXPECT_NE(gelu.output.find("epilogue=fused"), std::string::npos);
  EXPECT_NE(gelu.output.find("<- gemm()"), std::string::npos);
  EXPECT_NE(gelu.output.find("cublasLtMatmul GELU_BIAS"), std::string::npos);
  const CliOutcome silu = run_cli("tune --kernel auto.fp16 -m 300 -n 520 -k 1024 --bias row --activation silu --iters 3 --warmup 1");
  SCOPED_TRACE(silu.output);
  ASSERT_EQ(silu.status, 0);
  EXPECT_NE(silu.output.find("no cuBLAS anchor"), std::string::npos);
}

// gemmlab bench on one call described on the command line: checked against float64 beside
// cuBLAS's same call (cuBLASLt's with a fused epilogue), both timed; a grouped call beside
// cublasGemmGroupedBatchedEx; a memory-bound shape timed with the L2 flushed, with its share of the
// DRAM roof; a call cuBLAS cannot make is refused with the reason.
TEST_F(LabCli, BenchTimesOneCallBesideCublas) {
  const std::string json = (std::filesystem::temp_directory_path() / "gemmlab_bench_call_test.json").string();
  struct Case {
    std::string args, anchor;
    bool cold;
  };
  for (const Case& c : {Case{"-m 37 -n 300 -k 129 --precision bf16 --layout TN --bias col --activation gelu", "GELU_BIAS", false},
                        Case{"-m 301 -n 96 -k 136 --precision fp16 --output same --layout NT --groups 3", "Grouped", false},
                        Case{"-m 5 -n 4096 -k 4096 --precision tf32 --d-order col --batch 2", "cublas", true}}) {
    std::filesystem::remove(json);
    const CliOutcome o = run_cli("bench " + c.args + " --iters 3 --json " + json);
    SCOPED_TRACE(o.output);
    ASSERT_EQ(o.status, 0);
    const auto results = read_results_file(json)["results"];
    ASSERT_EQ(results.size(), 1u);
    const auto& r = results[0];
    EXPECT_EQ(r["suite"], "call");
    EXPECT_TRUE(r["passed"].get<bool>());
    EXPECT_TRUE(r["anchor_passed"].get<bool>());
    EXPECT_NE(r["anchor"].get<std::string>().find(c.anchor), std::string::npos) << r["anchor"];
    EXPECT_GT(r["median_ms"].get<double>(), 0.0);
    EXPECT_GT(r["anchor_median_ms"].get<double>(), 0.0);
    EXPECT_FALSE(r["plan"].get<std::string>().empty());
    EXPECT_EQ(r["l2_flushed"].get<bool>(), c.cold);
    EXPECT_EQ(o.output.find("of DRAM roof") != std::string::npos, c.cold);
  }
  std::filesystem::remove(json);
  const CliOutcome silu = run_cli("bench -s 64 --precision bf16 --activation silu --iters 3");
  EXPECT_NE(silu.status, 0);
  EXPECT_NE(silu.output.find("no SiLU epilogue"), std::string::npos) << silu.output;
}

}  // namespace
