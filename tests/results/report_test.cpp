// gemmlab report / compare / sweep as a user meets them, without a GPU. Reports are drawn from
// the SYNTHETIC fixtures in tests/fixtures (tests/support/fixtures.cpp wrote them with gemmlab's
// own writers). Needs python3 with matplotlib (scripts/setup installs it).
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/device.hpp"
#include "results/record.hpp"
#include "support/fixtures.hpp"
#include "support/cli_runner.hpp"

namespace fs = std::filesystem;


using gemmlab::testing::CliOutcome;
using gemmlab::testing::run_cli;
using gemmlab::testing::expect_clean_failure;
namespace {

const std::string kFixtures = std::string(GEMMLAB_SOURCE_DIR) + "/tests/fixtures/";


std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Width and height from a PNG's IHDR chunk; {0, 0} if the file is not a PNG.
std::pair<unsigned, unsigned> png_size(const fs::path& p) {
  const std::string d = read_text(p);
  const std::string signature = "\x89PNG\r\n\x1a\n";
  if (d.size() < 24 || d.compare(0, 8, signature) != 0 || d.compare(12, 4, "IHDR") != 0) return {0, 0};
  auto be32 = [&](std::size_t at) {
    return (unsigned(std::uint8_t(d[at])) << 24) | (unsigned(std::uint8_t(d[at + 1])) << 16) |
           (unsigned(std::uint8_t(d[at + 2])) << 8) | unsigned(std::uint8_t(d[at + 3]));
  };
  return {be32(16), be32(20)};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("gemmlab_report_test_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  std::string str(const std::string& name = "") const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::set<std::string> kernels_in(const std::string& file) {
  std::set<std::string> ids;
  for (const auto& r : gemmlab::read_results_file(file)["results"]) ids.insert(r["kernel"].get<std::string>());
  return ids;
}

}  // namespace

TEST(Fixtures, AreCurrent) {
  // The committed fixtures are what gemmlab's writers produce today; if a record changes shape,
  // regenerate them: build/tests/gemmlab_make_fixtures tests/fixtures
  TempDir dir;
  gemmlab::fixtures::write_fixture_files(dir.str());
  for (const char* f : {"sweep_a.json", "sweep_a.csv", "sweep_b.json", "transfer.json"}) {
    SCOPED_TRACE(f);
    EXPECT_EQ(read_text(dir.path() / f), read_text(kFixtures + f))
        << "tests/fixtures/" << f << " is stale: run build/tests/gemmlab_make_fixtures tests/fixtures";
  }
}

TEST(Report, FromJsonFixtures) {
  TempDir dir;
  const std::string out = dir.str("report");
  const CliOutcome o = run_cli("report " + kFixtures + "sweep_a.json " + kFixtures + "transfer.json -o " + out +
                            " --baseline fixture.slow --peaks " + kFixtures + "peaks.json");
  ASSERT_EQ(o.status, 0) << o.output;

  // Every plot: a PNG of 800 x 500 pixels.
  const std::set<std::string> expected = {"overview.png",          "roofline.png",
                                          "gflops_fixture.tiled.png", "gflops_fixture.tensor.png",
                                          "gflops_fixture.slow.png",  "speedup_fixture.slow.png",
                                          "transfer_1.png"};
  std::set<std::string> pngs;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".png") {
      pngs.insert(e.path().filename().string());
      EXPECT_EQ(png_size(e.path()), (std::pair<unsigned, unsigned>{800, 500})) << e.path();
    }
  EXPECT_EQ(pngs, expected);

  const std::string md = read_text(fs::path(out) / "report.md");
  const std::string html = read_text(fs::path(out) / "report.html");
  ASSERT_FALSE(md.empty());
  ASSERT_FALSE(html.empty());
  // Every kernel in the data appears in both.
  for (const std::string& id : kernels_in(kFixtures + "sweep_a.json")) {
    EXPECT_NE(md.find(id), std::string::npos) << id;
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  // Markdown links the images; HTML embeds them all and references nothing outside itself.
  for (const std::string& png : expected) EXPECT_NE(md.find("(" + png + ")"), std::string::npos) << png;
  EXPECT_EQ(count(html, "<img "), expected.size());
  EXPECT_EQ(count(html, "src=\"data:image/png;base64,"), expected.size());
  EXPECT_EQ(count(html, "src=\""), expected.size());
  // Links only within the page (its contents list).
  EXPECT_GT(count(html, "href=\"#"), 0u);
  EXPECT_EQ(count(html, "href=\""), count(html, "href=\"#"));
  // Titles name the device and the date; the tables hold what the seeds tabulate.
  EXPECT_NE(md.find("Synthetic fixture (not a measurement), 2000-01-01"), std::string::npos);
  EXPECT_NE(md.find("% of cuBLAS"), std::string::npos);
  EXPECT_NE(md.find("median ms"), std::string::npos);
  EXPECT_NE(md.find("skipped: block=8 is not allowed"), std::string::npos);
  EXPECT_NE(md.find("FAIL (rel error 3.1e-01)"), std::string::npos);
  EXPECT_NE(md.find("## Speed-up over fixture.slow"), std::string::npos);
  EXPECT_NE(md.find("synthetic peaks"), std::string::npos);  // the --peaks file's "source"
  EXPECT_NE(md.find("| pinned 1024x1024x1024 |"), std::string::npos);  // the time-breakdown table
}

TEST(Report, FromCsvSaysDeviceUnknown) {
  TempDir dir;
  const std::string out = dir.str("report");
  const CliOutcome o = run_cli("report " + kFixtures + "sweep_a.csv -o " + out);
  ASSERT_EQ(o.status, 0) << o.output;
  const std::string md = read_text(fs::path(out) / "report.md");
  EXPECT_NE(md.find("device unknown"), std::string::npos);
  EXPECT_NE(md.find("No peaks known"), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::path(out) / "roofline.png"));
  for (const std::string& id : kernels_in(kFixtures + "sweep_a.csv")) EXPECT_NE(md.find(id), std::string::npos) << id;
  EXPECT_EQ(png_size(fs::path(out) / "overview.png"), (std::pair<unsigned, unsigned>{800, 500}));
}

TEST(Report, BadInputIsOneClearLine) {
  TempDir dir;
  const std::string out = dir.str("report");
  expect_clean_failure("report /nonexistent/results.json -o " + out, "cannot open");
  expect_clean_failure("report " + kFixtures + "sweep_a.json -o " + out + " --baseline nope", "--baseline nope");
  expect_clean_failure("report " + kFixtures + "sweep_a.json -o " + out + " --peaks /nonexistent.json", "--peaks");
  std::ofstream(dir.str("bad_peaks.json")) << R"({"fp32_tflops": 10})";
  expect_clean_failure("report " + kFixtures + "sweep_a.json -o " + out + " --peaks " + dir.str("bad_peaks.json"),
                       "needs dram_gbs");
  std::ofstream(dir.str("not_results.json")) << R"({"hello": 1})";
  expect_clean_failure("report " + dir.str("not_results.json") + " -o " + out, "not a gemmlab results file");
  // A number past a double's range is a parse error of its own kind (out_of_range), once an
  // "internal error" with exit status 2.
  std::ofstream(dir.str("huge_number.json")) << R"({"results": [{"time_median_ms": 1e999}]})";
  expect_clean_failure("report " + dir.str("huge_number.json") + " -o " + out, "huge_number.json: not valid JSON");
  std::ofstream(dir.str("broken.csv")) << "kernel,m\n\"unterminated,1\n";
  expect_clean_failure("report " + dir.str("broken.csv") + " -o " + out, "broken.csv");
  expect_clean_failure("report " + kFixtures + "sweep_a.json", "--output");
}

TEST(Report, ScriptsDirOverride) {
  TempDir dir;
  const CliOutcome o = run_cli("report " + kFixtures + "sweep_a.json -o " + dir.str("r"));
  EXPECT_EQ(o.status, 0) << o.output;
  const std::string env = "GEMMLAB_SCRIPTS_DIR=/nonexistent ";
  const std::string cmd = env + GEMMLAB_EXE + " report " + kFixtures + "sweep_a.json -o " + dir.str("r2") + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_TRUE(p);
  std::string text;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), int(buf.size()), p)) text += buf.data();
  const int raw = pclose(p);
  EXPECT_NE(WEXITSTATUS(raw), 0);
  EXPECT_NE(text.find("GEMMLAB_SCRIPTS_DIR=/nonexistent holds no report.py"), std::string::npos) << text;
}

TEST(CompareCli, ShowsChangesAndFailsOnRegressionWhenAsked) {
  const std::string a = kFixtures + "sweep_a.json", b = kFixtures + "sweep_b.json";
  CliOutcome o = run_cli("compare " + a + " " + b);
  EXPECT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("SLOWER"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("faster"), std::string::npos);
  EXPECT_NE(o.output.find("4 faster, 4 slower, 24 within noise"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("Synthetic fixture"), std::string::npos);
  o = run_cli("compare " + a + " " + b + " --changes-only --metric time");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.output.find("B/A time"), std::string::npos);
  EXPECT_NE(o.output.find("1.250"), std::string::npos) << o.output;  // 25% more time
  EXPECT_EQ(o.output.find("within noise |"), std::string::npos);
  expect_clean_failure("compare " + a + " " + b + " --fail-on-regression", "4 regressions");
  EXPECT_EQ(run_cli("compare " + a + " " + a + " --fail-on-regression").status, 0);
  EXPECT_EQ(run_cli("compare " + a + " " + kFixtures + "sweep_a.csv --fail-on-regression").status, 0);
  expect_clean_failure("compare " + a + " /nonexistent.json", "cannot open");
  TempDir dir;
  std::ofstream(dir.str("other.json")) << R"({"results": [{"kernel": "other", "m": 1, "n": 1, "k": 1}]})";
  expect_clean_failure("compare " + a + " " + dir.str("other.json"), "no configuration in common");
}

TEST(SweepCli, BadOptionsFailBeforeTouchingTheGpu) {
  expect_clean_failure("sweep --json x.json", "give the sizes");
  expect_clean_failure("sweep --sizes 64", "--json FILE");
  expect_clean_failure("sweep --sizes 0 --json x.json", "at least 1");
  expect_clean_failure("sweep --sizes 64:32:x2 --json x.json", "START <= STOP");
  expect_clean_failure("sweep --block 8,x --sizes 64 --json x.json", "'x' is not an integer");
  expect_clean_failure("sweep --param nosuchparam=4 --sizes 64 --json x.json", "no selected kernel has a parameter 'nosuchparam'");
  expect_clean_failure("sweep --param block --sizes 64 --json x.json", "NAME=VALUES");
  expect_clean_failure("sweep --kernels nope --sizes 64 --json x.json", "no kernel matches 'nope'");
  expect_clean_failure("sweep --precision fp8 --sizes 64 --json x.json", "unknown precision");
  expect_clean_failure("sweep --output f8 --sizes 64 --json x.json", "unknown output type");
  expect_clean_failure("sweep -m 64 -n 64 --json x.json", "give all of -m, -n and -k");
  expect_clean_failure("sweep --zip --sizes 64 --json x.json", "--zip");
  expect_clean_failure("sweep -m 1,2 -n 1,2,3 -k 4 --zip --json x.json", "element by element");
  expect_clean_failure("sweep --shapes 64x64 --json x.json", "MxNxK");
  expect_clean_failure("sweep --sizes 64 --json x.json --resume --overwrite", "choose one");
  if (gemmlab::device_count() == 0) expect_clean_failure("sweep --sizes 64 --json x.json", "no CUDA GPU is available");
  EXPECT_FALSE(fs::exists("x.json"));
}
