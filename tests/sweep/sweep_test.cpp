// The sweep's logic without a GPU: planning (parameters, skips and their reasons, cuBLAS once
// per shape), recording as it goes, resuming, failures that do not stop it, progress lines,
// shape lists. The measuring is a fake runner returning SYNTHETIC results (tests/support).
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/size_list.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"
#include "support/fixtures.hpp"
#include "sweep/shapes.hpp"
#include "sweep/sweep.hpp"

using namespace gemmlab;
using namespace gemmlab::fixtures;

namespace {

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("gemmlab_sweep_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

SweepSpec small_spec() {
  SweepSpec spec;
  spec.params["block"] = ParamChoice{{8, 16, 32}, false};
  spec.params["outputs"] = ParamChoice{{2, 4}, false};
  spec.shapes = {Shape{256, 256, 256}, Shape{1000, 1000, 1000}, Shape{1024, 1024, 1024}};
  spec.timing = TimingPlan{1, 5, 1.0, false};
  spec.slow_limit = 512;
  return spec;
}

// Counts what it is asked to run; optionally fails or aborts on chosen items.
struct FakeRunner {
  std::map<std::string, int> calls;  // kernel id -> runs
  int total = 0;
  int abort_after = -1;                                   // throw SweepAbort on this call number
  std::function<bool(const RunSpec&)> fail_verification;  // make this result fail
  std::function<bool(const RunSpec&)> throw_error;        // throw Error for this spec

  SweepRunner runner() {
    return [this](const RunSpec& s) {
      if (abort_after >= 0 && total == abort_after) throw SweepAbort("the GPU context is lost (simulated)");
      ++total;
      ++calls[s.kernel];
      if (throw_error && throw_error(s)) throw Error("simulated: out of device memory");
      RunResult r = synthetic_result(s);
      if (fail_verification && fail_verification(s)) {
        r.kernel.first.passed = false;
        r.kernel.first.nonfinite = 12;
      }
      return r;
    };
  }
};

SweepOutcome run(const std::vector<SweepItem>& plan, const SweepSpec& spec, FakeRunner& fake, SweepOutput& out,
                 std::ostream* log = nullptr) {
  std::ostringstream sink;
  SweepProgress progress(log ? *log : sink, false, [] { return 0.0; });
  return run_sweep(plan, spec, fake.runner(), out, progress);
}

std::size_t count_status(const std::vector<nlohmann::json>& records, const std::string& status) {
  std::size_t n = 0;
  for (const auto& r : records) n += r.value("status", "") == status;
  return n;
}

}  // namespace

TEST(SweepPlan, ProductOfParametersShapesAndKernelsWithSkipReasons) {
  const SweepSpec spec = small_spec();
  const auto plan = plan_sweep(spec, fake_kernels(), fake_device());
  // Per shape: tiled 3 blocks x 2 outputs, tensor 1, slow 3 blocks (outputs is not its parameter),
  // plus the cuBLAS items the measured ones need.
  std::map<std::string, int> per_kernel;
  std::set<std::string> keys;
  for (const auto& item : plan) {
    ++per_kernel[item.kernel->info().id];
    EXPECT_TRUE(keys.insert(item.key).second) << "duplicate item " << item.key;
  }
  EXPECT_EQ(per_kernel["fixture.tiled"], 3 * 6);
  EXPECT_EQ(per_kernel["fixture.tensor"], 3);
  EXPECT_EQ(per_kernel["fixture.slow"], 3 * 3);
  EXPECT_EQ(per_kernel["cublas.bf16"], 3);  // tensor runs at every shape
  EXPECT_EQ(per_kernel["cublas.fp32"], 2);  // at 1000 no fp32 kernel can run: no fp32 baseline there

  auto find = [&](const std::string& id, const std::string& params, std::int64_t n) -> const SweepItem& {
    for (const auto& item : plan)
      if (item.kernel->info().id == id && params_to_string(item.params) == params && item.shape.m == n) return item;
    throw std::runtime_error("no item " + id + " " + params);
  };
  EXPECT_EQ(find("fixture.tiled", "block=8 outputs=2", 256).skip_reason.value_or(""),
            "block=8 is not allowed (allowed: 16, 32)");
  EXPECT_NE(find("fixture.tiled", "block=16 outputs=2", 1000).skip_reason.value_or("").find("multiples"),
            std::string::npos);
  EXPECT_FALSE(find("fixture.tiled", "block=16 outputs=2", 1024).skip_reason);
  EXPECT_NE(find("fixture.slow", "block=8", 1024).skip_reason.value_or("").find("slow by design"), std::string::npos);
  EXPECT_FALSE(find("fixture.slow", "block=8", 256).skip_reason);
  // Every shape's baselines come before its kernels.
  for (std::size_t i = 1; i < plan.size(); ++i)
    if (plan[i].baseline && plan[i].shape == plan[i - 1].shape) EXPECT_TRUE(plan[i - 1].baseline);
  // Kernels point at their cuBLAS item.
  const SweepItem& t = find("fixture.tensor", "", 256);
  EXPECT_EQ(t.baseline_key, find("cublas.bf16", "", 256).key);
}

TEST(SweepPlan, DefaultsAllValuesAndErrors) {
  SweepSpec spec;
  spec.shapes = {Shape{512, 512, 512}};
  // No parameters named: each kernel's default only.
  auto plan = plan_sweep(spec, {fake_kernels()[0]}, fake_device());
  ASSERT_EQ(plan.size(), 2u);  // cublas.fp32 + tiled block=16 outputs=2
  EXPECT_EQ(params_to_string(plan[1].params), "block=16 outputs=2");
  // --all-params: every allowed combination.
  spec.all_params = true;
  EXPECT_EQ(plan_sweep(spec, {fake_kernels()[0]}, fake_device()).size(), 1u + 4u);
  // "all" for one parameter.
  spec.all_params = false;
  spec.params["outputs"] = ParamChoice{{}, true};
  EXPECT_EQ(plan_sweep(spec, {fake_kernels()[0]}, fake_device()).size(), 1u + 2u);
  // A parameter no selected kernel has is a typo.
  spec.params["tile"] = ParamChoice{{4}, false};
  EXPECT_THROW(plan_sweep(spec, fake_kernels(), fake_device()), Error);
  spec.params.clear();
  spec.output = "f8";
  EXPECT_THROW(plan_sweep(spec, fake_kernels(), fake_device()), Error);
  spec.output = "same";  // bf16 kernel writes bf16, its baseline too
  plan = plan_sweep(spec, {fake_kernels()[1]}, fake_device());
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].output, DType::bf16);
  EXPECT_EQ(plan[1].output, DType::bf16);
  spec.shapes.clear();
  EXPECT_THROW(plan_sweep(spec, fake_kernels(), fake_device()), Error);
}

TEST(SweepPlan, MemoryAndIndexLimitsAreSkipsNotCrashes) {
  SweepSpec spec;
  spec.shapes = {Shape{65536, 65536, 8}, Shape{40000, 40000, 40000}};
  DeviceInfo small = fake_device();
  small.global_mem_bytes = std::size_t(16) << 30;
  const auto plan = plan_sweep(spec, {fake_kernels()[1]}, small);
  for (const auto& item : plan) {
    ASSERT_TRUE(item.skip_reason) << item.key;
    if (item.shape.m == 65536) EXPECT_NE(item.skip_reason->find("at most"), std::string::npos) << *item.skip_reason;
    if (item.shape.m == 40000) EXPECT_NE(item.skip_reason->find("device memory"), std::string::npos) << *item.skip_reason;
  }
}

TEST(Sweep, RecordsEverythingAndMeasuresCublasOncePerShape) {
  TempDir dir;
  const SweepSpec spec = small_spec();
  const auto plan = plan_sweep(spec, fake_kernels(), fake_device());
  SweepOutput out(dir.file("s.json"), dir.file("s.csv"), fixture_context());
  out.open(false, false);
  FakeRunner fake;
  const SweepOutcome r = run(plan, spec, fake, out);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(fake.calls["cublas.fp32"], 2);
  EXPECT_EQ(fake.calls["cublas.bf16"], 3);
  EXPECT_EQ(r.measured + r.skipped, plan.size());
  EXPECT_EQ(std::size_t(fake.total), r.measured);

  // The JSON file is complete and holds every item exactly once, in plan order.
  const nlohmann::json file = read_results_file(dir.file("s.json"));
  ASSERT_EQ(file["results"].size(), plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(config_key(file["results"][i]), plan[i].key);
  EXPECT_EQ(file["context"]["device"], fake_device().name);
  // The CSV has the same records, and reads back to the same keys.
  const nlohmann::json csv = read_results_file(dir.file("s.csv"));
  ASSERT_EQ(csv["results"].size(), plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(config_key(csv["results"][i]), plan[i].key);

  for (const auto& rec : file["results"]) {
    const std::string status = rec["status"];
    if (status == "skipped") {
      EXPECT_FALSE(rec.value("reason", "").empty());
      EXPECT_FALSE(rec.contains("time_median_ms"));
    } else {
      EXPECT_EQ(status, "ok");
      EXPECT_GT(rec["time_median_ms"].get<double>(), 0);
      if (rec["family"] != "baseline") {
        // The ratio comes from the one cuBLAS measurement of this shape.
        ASSERT_TRUE(rec.contains("ratio_to_cublas")) << rec["kernel"];
        EXPECT_NEAR(rec["ratio_to_cublas"].get<double>(),
                    rec["cublas_time_median_ms"].get<double>() / rec["time_median_ms"].get<double>(), 1e-12);
      }
    }
  }
}

TEST(Sweep, InterruptedSweepResumesWithoutRepeatingAnything) {
  TempDir dir;
  const SweepSpec spec = small_spec();
  const auto plan = plan_sweep(spec, fake_kernels(), fake_device());
  {
    SweepOutput out(dir.file("s.json"), dir.file("s.csv"), fixture_context());
    out.open(false, false);
    FakeRunner fake;
    fake.abort_after = 7;  // the 8th measurement finds the GPU gone
    EXPECT_THROW(run(plan, spec, fake, out), SweepAbort);
  }
  const auto partial = read_results_file(dir.file("s.json"))["results"];
  ASSERT_GT(partial.size(), 7u);
  ASSERT_LT(partial.size(), plan.size());
  EXPECT_EQ(read_results_file(dir.file("s.csv"))["results"].size(), partial.size());

  // Without --resume the files are not replaced.
  {
    SweepOutput again(dir.file("s.json"), dir.file("s.csv"), fixture_context());
    EXPECT_THROW(again.open(false, false), Error);
  }
  SweepOutput out(dir.file("s.json"), dir.file("s.csv"), fixture_context());
  out.open(true, false);
  EXPECT_EQ(out.resumed_count(), partial.size());
  FakeRunner fake;
  const SweepOutcome r = run(plan, spec, fake, out);
  EXPECT_EQ(r.resumed, partial.size());
  EXPECT_EQ(r.resumed + r.measured + r.skipped, plan.size());

  std::set<std::string> keys;
  const auto all = read_results_file(dir.file("s.json"))["results"];
  ASSERT_EQ(all.size(), plan.size());
  for (const auto& rec : all) EXPECT_TRUE(keys.insert(config_key(rec)).second) << "measured twice: " << config_key(rec);
  EXPECT_EQ(read_results_file(dir.file("s.csv"))["results"].size(), plan.size());
  // The baselines measured before the interruption serve the kernels after it: cuBLAS ran only
  // for shapes whose baseline was not yet in the file.
  EXPECT_EQ(fake.calls["cublas.fp32"] + fake.calls["cublas.bf16"],
            5 - int(std::count_if(partial.begin(), partial.end(),
                                  [](const nlohmann::json& j) { return j["family"] == "baseline"; })));
  for (const auto& rec : all)
    if (rec["status"] == "ok" && rec["family"] != "baseline") EXPECT_TRUE(rec.contains("ratio_to_cublas"));
}

TEST(Sweep, ResumeFromCsvOnly) {
  TempDir dir;
  const SweepSpec spec = small_spec();
  const auto plan = plan_sweep(spec, fake_kernels(), fake_device());
  {
    SweepOutput out("", dir.file("s.csv"), fixture_context());
    out.open(false, false);
    FakeRunner fake;
    fake.abort_after = 5;
    EXPECT_THROW(run(plan, spec, fake, out), SweepAbort);
  }
  SweepOutput out("", dir.file("s.csv"), fixture_context());
  out.open(true, false);
  FakeRunner fake;
  const SweepOutcome r = run(plan, spec, fake, out);
  EXPECT_GT(r.resumed, 5u);
  EXPECT_EQ(read_results_file(dir.file("s.csv"))["results"].size(), plan.size());
}

TEST(Sweep, VerificationFailuresAndErrorsAreRecordedAndTheSweepGoesOn) {
  TempDir dir;
  const SweepSpec spec = small_spec();
  const auto plan = plan_sweep(spec, fake_kernels(), fake_device());
  SweepOutput out(dir.file("s.json"), "", fixture_context());
  out.open(false, false);
  FakeRunner fake;
  fake.fail_verification = [](const RunSpec& s) { return s.kernel == "fixture.tiled" && s.shape.m == 256; };
  fake.throw_error = [](const RunSpec& s) { return s.kernel == "fixture.tensor" && s.shape.m == 1024; };
  std::ostringstream log;
  const SweepOutcome r = run(plan, spec, fake, out, &log);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failed, 4u);  // the four allowed tiled combinations at 256
  EXPECT_EQ(r.errors, 1u);
  const auto recs = read_results_file(dir.file("s.json"))["results"];
  EXPECT_EQ(recs.size(), plan.size());
  EXPECT_EQ(count_status(recs, "verification-failed"), 4u);
  EXPECT_EQ(count_status(recs, "error"), 1u);
  for (const auto& rec : recs)
    if (rec["status"] == "error") EXPECT_EQ(rec["reason"], "simulated: out of device memory");
  EXPECT_NE(log.str().find("VERIFICATION FAILED"), std::string::npos);
  EXPECT_NE(log.str().find("error: simulated"), std::string::npos);

  // --resume runs the errored configuration again (and only it), and drops the old error record.
  SweepOutput again(dir.file("s.json"), "", fixture_context());
  again.open(true, false);
  FakeRunner second;
  const SweepOutcome r2 = run(plan, spec, second, again);
  EXPECT_EQ(second.total, 1);
  EXPECT_EQ(second.calls["fixture.tensor"], 1);
  EXPECT_EQ(r2.measured, 1u);
  const auto after = read_results_file(dir.file("s.json"))["results"];
  EXPECT_EQ(after.size(), plan.size());
  EXPECT_EQ(count_status(after, "error"), 0u);
}

TEST(SweepOutput, RulesForExistingFiles) {
  TempDir dir;
  EXPECT_THROW(SweepOutput("", "", fixture_context()), Error);
  {
    SweepOutput out(dir.file("s.json"), "", fixture_context());
    out.open(false, false);
    out.append(nlohmann::json{{"kernel", "x"}, {"status", "skipped"}});
  }
  SweepOutput overwrite(dir.file("s.json"), "", fixture_context());
  overwrite.open(false, true);
  EXPECT_TRUE(read_results_file(dir.file("s.json"))["results"].empty());
  // Resuming a file measured on another GPU would mix two devices in one sweep.
  nlohmann::json other = fixture_context();
  other["device"] = "Another GPU";
  SweepOutput wrong(dir.file("s.json"), "", other);
  EXPECT_THROW(wrong.open(true, false), Error);
  // Resuming where nothing exists yet starts a new sweep.
  SweepOutput fresh(dir.file("new.json"), "", fixture_context());
  fresh.open(true, false);
  EXPECT_EQ(fresh.resumed_count(), 0u);
}

// A file to resume that someone edited: fields of another type are read as text, and a record
// that is not an object is refused with the file's name, not a JSON type error.
TEST(SweepOutput, ResumingAMalformedFileIsAnErrorOrReadsItsFieldsAsText) {
  TempDir dir;
  {
    std::ofstream f(dir.file("typed.json"));
    f << R"({"context": {"date": 3}, "results": [{"kernel": 1, "status": 5}, {"kernel": "k", "status": "ok"}]})";
  }
  SweepOutput typed(dir.file("typed.json"), "", fixture_context());
  EXPECT_NO_THROW(typed.open(true, false));
  EXPECT_EQ(typed.resumed_count(), 2u);
  {  // a device that is a number is still a device, and not this one
    std::ofstream f(dir.file("device.json"));
    f << R"({"context": {"device": 7}, "results": []})";
  }
  SweepOutput device(dir.file("device.json"), "", fixture_context());
  EXPECT_THROW(device.open(true, false), Error);
  {
    std::ofstream f(dir.file("bad.json"));
    f << R"({"results": [{"kernel": "k", "status": "ok"}, 42]})";
  }
  SweepOutput bad(dir.file("bad.json"), "", fixture_context());
  try {
    bad.open(true, false);
    ADD_FAILURE() << "a record that is not an object was resumed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not an object"), std::string::npos) << e.what();
  }
}

TEST(SweepProgress, LinesWithoutATerminal) {
  const SweepSpec spec = small_spec();
  const auto plan = plan_sweep(spec, fake_kernels(), fake_device());
  double now = 0;
  std::ostringstream os;
  SweepProgress p(os, false, [&] { return now; });
  p.start(2, 1);
  p.begin(0, plan[0]);
  now = 62;
  nlohmann::json ok = {{"status", "ok"}, {"time_median_ms", 1.5}, {"gflops", 1234.5}, {"ratio_to_cublas", 0.5}};
  p.end(0, plan[0], ok, true);
  nlohmann::json skipped = {{"status", "skipped"}, {"reason", "because"}};
  p.end(1, plan[2], skipped, false);
  p.finish();
  const std::string s = os.str();
  EXPECT_NE(s.find("sweep: 2 items, 1 to measure"), std::string::npos) << s;
  EXPECT_NE(s.find("[1/2] " + SweepProgress::describe(plan[0]) + ": 1.5 ms, 1234 GFLOPS, 50.0% of cuBLAS, verified"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("[2/2] " + SweepProgress::describe(plan[2]) + ": skipped: because"), std::string::npos) << s;
  EXPECT_NE(s.find("done in 1:02"), std::string::npos) << s;
  EXPECT_EQ(SweepProgress::clock(3725), "1:02:05");
}

TEST(SweepProgress, TerminalBarShowsCountsEtaAndCurrentItem) {
  const auto plan = plan_sweep(small_spec(), fake_kernels(), fake_device());
  double now = 0;
  std::ostringstream os;
  SweepProgress p(os, true, [&] { return now; });
  p.start(3, 3);
  p.begin(0, plan[0]);
  now = 10;
  p.end(0, plan[0], nlohmann::json{{"status", "ok"}}, true);
  p.begin(1, plan[1]);
  const std::string s = os.str();
  EXPECT_NE(s.find("1/3"), std::string::npos) << s;
  EXPECT_NE(s.find("0:10 elapsed"), std::string::npos) << s;
  EXPECT_NE(s.find("ETA 0:20"), std::string::npos) << s;  // 10 s per measured item, 2 left
  EXPECT_NE(s.find(SweepProgress::describe(plan[1])), std::string::npos) << s;
}

TEST(SweepShapes, ListsProductsZipsAndErrors) {
  using V = std::vector<std::int64_t>;
  const auto s = parse_shape_list("1024x512x256,7x1x13");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], (Shape{1024, 512, 256}));
  EXPECT_EQ(s[1], (Shape{7, 1, 13}));
  for (const char* bad : {"", "1024", "1024x512", "1x2x3x4", "0x1x1", "ax1x1", "1x1x1,", "-1x2x3", "1x x1"})
    EXPECT_THROW(parse_shape_list(bad), Error) << bad;

  const auto product = shapes_from_dimensions(V{1, 2}, V{3}, V{4, 5}, false);
  ASSERT_EQ(product.size(), 4u);
  EXPECT_EQ(product[0], (Shape{1, 3, 4}));
  EXPECT_EQ(product[1], (Shape{1, 3, 5}));
  EXPECT_EQ(product[3], (Shape{2, 3, 5}));
  const auto zipped = shapes_from_dimensions(V{1, 2}, V{3}, V{4, 5}, true);
  ASSERT_EQ(zipped.size(), 2u);
  EXPECT_EQ(zipped[1], (Shape{2, 3, 5}));
  EXPECT_THROW(shapes_from_dimensions(V{1, 2}, V{3, 4, 5}, V{6}, true), Error);
  EXPECT_THROW(shapes_from_dimensions(V{}, V{3}, V{6}, false), Error);
  // Lists of 10,000 values each (the most a range gives) would multiply to 10^12 shapes: refused
  // before allocating (found by tests/fuzz, target lists). The bound itself is allowed.
  const V ten_thousand = parse_size_list("1:10000:+1");
  EXPECT_THROW(shapes_from_dimensions(ten_thousand, ten_thousand, V{1, 2}, false), Error);
  EXPECT_EQ(shapes_from_dimensions(ten_thousand, V{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, V{1}, false).size(),
            std::size_t(kMaxShapes));
  EXPECT_EQ(shapes_from_dimensions(ten_thousand, ten_thousand, V{1}, true).size(), 10000u);

  std::vector<Shape> all = square_shapes(parse_size_list("256:1024:x2"));
  append_unique(all, parse_shape_list("512x512x512,100x200x300"));
  EXPECT_EQ(all.size(), 4u);
}

TEST(SizeList, RangesThatDoNotHitStopAndHugeStops) {
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(parse_size_list("100:1000:x3"), V({100, 300, 900}));
  EXPECT_EQ(parse_size_list("256:8192:x2").size(), 6u);
  EXPECT_EQ(parse_size_list("1000:5500:+1000"), V({1000, 2000, 3000, 4000, 5000}));
  // A stop near the int64 limit must not overflow on the step past it.
  EXPECT_EQ(parse_size_list("4611686018427387904:9223372036854775807:x2"), V({4611686018427387904}));
  EXPECT_EQ(parse_size_list("9223372036854775800:9223372036854775807:+5"), V({9223372036854775800LL, 9223372036854775805LL}));
  EXPECT_THROW(parse_size_list("1:100000:+1"), Error);  // too many values
}
