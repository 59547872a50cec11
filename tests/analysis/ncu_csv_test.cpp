// Parsing Nsight Compute's CSV (recorded fixtures in tests/fixtures/analysis, see the README there)
// and deriving seed 000's Table 1 from it; malformed input fails with a clear Error.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/ncu.hpp"
#include "core/error.hpp"

using namespace gemmlab;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(GEMMLAB_SOURCE_DIR) + "/tests/fixtures/analysis/" + name);
  EXPECT_TRUE(f.good()) << name;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void expect_error(const std::string& text, const std::string& message) {
  try {
    parse_ncu_csv(text);
    FAIL() << "no error; expected one mentioning '" << message << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(NcuCsv, RawPageOneLaunch) {
  const auto launches = parse_ncu_csv(fixture("ncu_raw_naive.csv"));
  ASSERT_EQ(launches.size(), 1u);
  const NcuLaunch& l = launches[0];
  EXPECT_EQ(l.id, "0");
  EXPECT_NE(l.kernel_name.find("naive_gemm(int, int, int"), std::string::npos);  // commas inside quotes
  EXPECT_EQ(l.block_size, "(16, 16, 1)");
  EXPECT_DOUBLE_EQ(*l.get("gpu__time_duration.sum"), 45312);          // "45,312"
  EXPECT_DOUBLE_EQ(*l.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 2097152);
  EXPECT_DOUBLE_EQ(*l.get("sm__warps_active.avg.pct_of_peak_sustained_active"), 80.5);
  EXPECT_FALSE(l.get("no_such_metric").has_value());
  EXPECT_EQ(l.metrics.size(), 21u);
}

TEST(NcuCsv, DerivedTable1) {
  const ProfileMetrics m = derive_profile(parse_ncu_csv(fixture("ncu_raw_naive.csv")));
  EXPECT_EQ(m.launches, 1);
  EXPECT_TRUE(m.missing.empty()) << m.missing.front();
  EXPECT_DOUBLE_EQ(m.static_smem_bytes, 0);
  EXPECT_DOUBLE_EQ(m.registers_per_thread, 40);
  // Requested bytes = efficiency x sectors x 32: 2.00 x 2097152 x 32 and 1.00 x 8192 x 32.
  EXPECT_DOUBLE_EQ(m.requested_load_bytes, 134217728.0);
  EXPECT_DOUBLE_EQ(m.requested_store_bytes, 262144.0);
  EXPECT_DOUBLE_EQ(m.load_efficiency_pct, 200.0);
  EXPECT_DOUBLE_EQ(m.store_efficiency_pct, 100.0);
  EXPECT_NEAR(m.requested_load_gbs, 134217728.0 / 45312.0, 1e-9);  // bytes per ns = GB/s
  EXPECT_NEAR(m.requested_store_gbs, 262144.0 / 45312.0, 1e-9);
  EXPECT_DOUBLE_EQ(m.sm_activity_pct, 85.0);                        // 68000 / 80000 cycles
  EXPECT_DOUBLE_EQ(m.achieved_occupancy_pct, 80.5);
  EXPECT_NEAR(m.gips, 3200000.0 / 45312.0, 1e-9);
  EXPECT_DOUBLE_EQ(m.flops, 2.0 * 16777216 + 65536);                // 2 x FFMA + FMUL
  EXPECT_DOUBLE_EQ(m.dram_read_bytes, 540672);
  EXPECT_DOUBLE_EQ(m.dram_write_bytes, 266240);
  // Measured CGMA: flops per thread-level access = 33619968 / (32 x (1048576 + 2048 requests)).
  EXPECT_NEAR(m.measured_cgma(), 33619968.0 / (32.0 * (1048576.0 + 2048.0)), 1e-12);
  EXPECT_NEAR(m.flops_per_request(), 33619968.0 / (1048576.0 + 2048.0), 1e-9);
}

TEST(NcuCsv, TwoLaunchesScaledUnitsAndNotAvailable) {
  const auto launches = parse_ncu_csv(fixture("ncu_raw_two_launches.csv"));
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_DOUBLE_EQ(*launches[0].get("gpu__time_duration.sum"), 30000);  // 30 usecond
  EXPECT_DOUBLE_EQ(*launches[0].get("dram__bytes_read.sum"), 1.5e6);    // 1.5 Mbyte
  EXPECT_FALSE(launches[0].get("smsp__inst_executed.sum").has_value()); // n/a
  EXPECT_DOUBLE_EQ(*launches[1].get("smsp__inst_executed.sum"), 1000);  // "1,000"
  const ProfileMetrics m = derive_profile(launches);
  EXPECT_EQ(m.launches, 2);
  EXPECT_EQ(m.kernel_names.size(), 2u);
  EXPECT_DOUBLE_EQ(m.duration_ns, 40000);
  EXPECT_DOUBLE_EQ(m.dram_read_bytes, 2.0e6);
  // Percentages weigh by duration: (50 x 30 + 90 x 10) / 40 = 60.
  EXPECT_DOUBLE_EQ(m.achieved_occupancy_pct, 60);
  EXPECT_FALSE(m.missing.empty());  // this capture lacks most metrics, and says so
}

TEST(NcuCsv, DetailsLayout) {
  const auto launches = parse_ncu_csv(fixture("ncu_details_naive.csv"));
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_NEAR(*launches[0].get("gpu__time_duration.sum"), 45310, 1e-6);  // 45.31 usecond
  EXPECT_NEAR(*launches[0].get("dram__bytes_read.sum"), 540670, 1e-6);   // 540.67 Kbyte
  EXPECT_DOUBLE_EQ(*launches[0].get("smsp__inst_executed.sum"), 3200000);
}

TEST(NcuCsv, SelectsTheKernelByIdentifier) {
  const auto all = parse_ncu_csv(fixture("ncu_raw_two_launches.csv"));
  EXPECT_EQ(select_launches(all, "splitKreduce_kernel").size(), 1u);
  EXPECT_EQ(select_launches(all, "").size(), 2u);
  EXPECT_THROW(select_launches(all, "splitKreduce"), Error);  // whole identifiers only
  try {
    select_launches(all, "naive_gemm");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("splitKreduce_kernel"), std::string::npos) << "names what was profiled";
  }
  const auto naive = parse_ncu_csv(fixture("ncu_raw_naive.csv"));
  EXPECT_EQ(select_launches(naive, "naive_gemm").size(), 1u);
}

TEST(NcuCsv, Malformed) {
  expect_error("", "no ncu CSV table");
  expect_error("just some text\nand more\n", "no ncu CSV table");
  expect_error(fixture("ncu_no_table.txt"), "no ncu CSV table");
  expect_error(fixture("ncu_no_rows.csv"), "no kernel launch");
  expect_error(fixture("ncu_bad_field_count.csv"), "fields where the header has");
  expect_error(fixture("ncu_bad_quote.csv"), "unterminated");
  expect_error("\"ID\",\"Metric\"\n\"0\",\"1\"\n", "Kernel Name");
  EXPECT_THROW(derive_profile({}), Error);
}

TEST(NcuCsv, NonNumericValuesAreAbsentNotZero) {
  const std::string csv =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n"
      "\"\",\"\",\"nsecond\",\"byte\"\n"
      "\"0\",\"k\",\"n/a\",\"12abc\"\n";
  const auto l = parse_ncu_csv(csv);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(l[0].metrics.empty());
  const ProfileMetrics m = derive_profile(l);
  EXPECT_DOUBLE_EQ(m.gips, 0);  // no division by a missing duration
  EXPECT_FALSE(m.missing.empty());
}

TEST(NcuOutput, KnownFailuresBecomeOneLine) {
  auto message = [](const std::string& text, int status) {
    try {
      check_ncu_output(text, status);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(fixture("ncu_no_table.txt"), 1).find("ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_NE(message("==ERROR== LibraryNotLoaded: cannot load libcuda.so\n", 1).find("LibraryNotLoaded"),
            std::string::npos);
  EXPECT_NE(message("==WARNING== No kernels were profiled.\n", 0).find("profiled no kernel"), std::string::npos);
  EXPECT_NE(message("gemmlab: error: unknown kernel 'x'\n", 1).find("unknown kernel 'x'"), std::string::npos);
  EXPECT_NE(message("==ERROR== Failed to find metric foo__bar.sum\n", 1).find("foo__bar"), std::string::npos);
  EXPECT_NE(message("==ERROR== something else\n", 3).find("exit 3"), std::string::npos);
  EXPECT_EQ(message(fixture("ncu_raw_naive.csv"), 0), "no error");
}

TEST(NcuMetrics, TheListCoversTable1) {
  const auto& names = ncu_metric_names();
  for (const char* m : {"launch__shared_mem_per_block_static", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                        "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__cycles_active.avg",
                        "smsp__inst_executed.sum", "dram__bytes_read.sum", "gpu__time_duration.sum"})
    EXPECT_NE(std::find(names.begin(), names.end(), m), names.end()) << m;
  // Every metric the fixture has is one gemmlab asks for (the fixture mirrors a real capture).
  const auto launches = parse_ncu_csv(fixture("ncu_raw_naive.csv"));
  for (const auto& [name, value] : launches[0].metrics)
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

}  // namespace
