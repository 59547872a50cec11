// The sweep on a GPU with the real runner (run_gemm): every item verified and timed, cuBLAS once
// per shape with the ratio attached, awkward shapes, resume, and the CLI end to end.
#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <sys/wait.h>

#include "support/gpu_test.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"
#include "sweep/sweep.hpp"

using namespace gemmlab;

namespace {

class SweepGpu : public GpuTest {};

std::string tmp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gemmlab_gpu_sweep_" + name)).string();
}

SweepSpec spec_for(std::vector<Shape> shapes) {
  SweepSpec spec;
  spec.params["block"] = ParamChoice{{8, 16, 64}, false};  // 64: not allowed for seed.naive -> skipped
  spec.shapes = std::move(shapes);
  spec.timing = TimingPlan{1, 5, 0.5, false};
  return spec;
}

}  // namespace

TEST_F(SweepGpu, RealRunsAreVerifiedTimedAndComparedToCublas) {
  Lab lab;
  const std::string path = tmp("real.json");
  std::filesystem::remove(path);
  const SweepSpec spec = spec_for({Shape{64, 64, 64}, Shape{97, 61, 33}, Shape{1, 1, 1}});
  const auto kernels = select_kernels({"seed.naive"}, {});
  const auto plan = plan_sweep(spec, kernels, lab.device());
  SweepOutput out(path, "", run_context(lab.device(), "sweep_gpu_test"));
  out.open(false, true);
  std::ostringstream log;
  SweepProgress progress(log, false);
  int cublas_runs = 0;
  const SweepRunner runner = [&](const RunSpec& s) {
    cublas_runs += Registry::instance().get(s.kernel).info().family == "baseline";
    return run_gemm(lab, s);
  };
  const SweepOutcome r = run_sweep(plan, spec, runner, out, progress);
  EXPECT_TRUE(r.ok()) << log.str();
  EXPECT_EQ(cublas_runs, 3);
  EXPECT_EQ(r.skipped, 3u);  // block=64 at each shape
  const auto recs = read_results_file(path)["results"];
  ASSERT_EQ(recs.size(), plan.size());
  for (const auto& rec : recs) {
    if (rec["status"] == "skipped") continue;
    EXPECT_EQ(rec["status"], "ok") << rec.dump();
    EXPECT_GT(rec["time_median_ms"].get<double>(), 0);
    EXPECT_TRUE(rec["kernel_passed"].get<bool>());
    if (rec["family"] != "baseline") EXPECT_GT(rec["ratio_to_cublas"].get<double>(), 0);
  }

  // Resume: nothing left to do, nothing run again.
  SweepOutput again(path, "", run_context(lab.device(), "sweep_gpu_test"));
  again.open(true, false);
  int runs = 0;
  const SweepOutcome r2 = run_sweep(plan, spec, [&](const RunSpec& s) { ++runs; return run_gemm(lab, s); }, again,
                                    progress);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(r2.resumed, plan.size());
  std::filesystem::remove(path);
}

TEST_F(SweepGpu, CommandLineWritesJsonAndCsvAndReportsFailuresInItsStatus) {
  const std::string json = tmp("cli.json"), csv = tmp("cli.csv");
  std::filesystem::remove(json);
  std::filesystem::remove(csv);
  const std::string cmd = std::string(GEMMLAB_EXE) + " sweep --kernels seed.naive --block 8,16 --sizes 32:128:x2 " +
                          "--iters 3 --json " + json + " --csv " + csv + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_TRUE(p);
  std::string text;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), int(buf.size()), p)) text += buf.data();
  const int raw = pclose(p);
  EXPECT_EQ(WEXITSTATUS(raw), 0) << text;
  const auto j = read_results_file(json);
  EXPECT_EQ(j["results"].size(), 3u * 3u);  // per size: cuBLAS + 2 blocks
  EXPECT_EQ(read_results_file(csv)["results"].size(), j["results"].size());
  EXPECT_TRUE(j["context"].contains("device"));
  std::filesystem::remove(json);
  std::filesystem::remove(csv);
}
