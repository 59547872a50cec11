// The plan dispatch gives every problem of the shape suite and the held-out shapes (seed 1), in
// each precision as `gemmlab bench --suite shapes` calls it, on models of the H100 and the H200
// with their built-in tables, against a committed snapshot (suite_plans.txt). A change to dispatch,
// a model or a table that moves a suite shape to another kernel or configuration fails here until
// the snapshot is written again, so the change's diff shows which shapes it moves:
//   GEMMLAB_UPDATE_PLANS=1 build/tests/gemmlab_cpu_tests --gtest_filter='SuitePlans.*'
// The GPUs are models (support/device_models.hpp), so this says what dispatch decides, not what a
// device measures; the shape suites' timings are docs/results/<gpu>/shapes/.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/context_impl.hpp"
#include "api/problem.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/table.hpp"
#include "gemmlab/gemm.hpp"
#include "support/device_models.hpp"
#include "sweep/suite.hpp"

using namespace gemmlab;
using namespace gemmlab::detail;

namespace {

const std::string kSnapshot = std::string(GEMMLAB_SOURCE_DIR) + "/tests/dispatch/suite_plans.txt";

// A dense call as the shape suites make it (sweep/suite.hpp dense_call, cmd_bench.cpp); the
// pointers stand in for cudaMalloc's (256-byte aligned).
Gemm suite_call(const std::string& precision, const SuiteShape& s) {
  Gemm g = dense_call(*suite_types(precision, true), s.shape.m, s.shape.n, s.shape.k, s.layout);
  g.a.data = reinterpret_cast<const void*>(std::uintptr_t(1) << 40);
  g.b.data = reinterpret_cast<const void*>(std::uintptr_t(2) << 40);
  g.d.data = reinterpret_cast<void*>(std::uintptr_t(3) << 40);
  return g;
}

// "H100 tf32 shapes 1000x1000x1000 NN | kernel config" for every GPU, precision, suite and shape.
std::vector<std::string> current_plans() {
  const std::size_t workspace = Context::Options{}.workspace_bytes;
  std::vector<std::string> lines;
  const std::pair<const char*, const char*> gpus[] = {{"H100", "NVIDIA H100 80GB HBM3"}, {"H200", "NVIDIA H200"}};
  const std::pair<const char*, std::vector<SuiteShape>> suites[] = {{"shapes", shape_suite()},
                                                                   {"heldout", held_out_shapes(1)}};
  for (const auto& [gpu, name] : gpus) {
    ContextImpl ctx;
    ctx.device = test::hopper_model(name, true);
    std::string source;
    ctx.table = builtin_table(name, source);
    for (const char* precision : {"bf16", "fp16", "tf32", "fp32"})
      for (const auto& [suite, shapes] : suites)
        for (const SuiteShape& s : shapes) {
          const Problem p = normalize(suite_call(precision, s));
          const Plan plan = describe(choose(ctx, p, workspace), p);
          lines.push_back(fmt::format("{} {} {} {}x{}x{} {} | {} {}", gpu, precision, suite, s.shape.m, s.shape.n,
                                      s.shape.k, s.layout, plan.kernel, plan.config));
        }
  }
  return lines;
}

}  // namespace

TEST(SuitePlans, MatchTheCommittedSnapshot) {
  const std::vector<std::string> now = current_plans();
  ASSERT_GT(now.size(), 700u);  // 2 GPUs x 4 precisions x (60 suite + 30 held-out shapes)
  if (std::getenv("GEMMLAB_UPDATE_PLANS")) {
    std::ofstream out(kSnapshot);
    out << "# Written by tests/dispatch/suite_plans_test.cpp (GEMMLAB_UPDATE_PLANS=1); see its header.\n";
    for (const std::string& line : now) out << line << '\n';
    ASSERT_TRUE(out.good()) << "cannot write " << kSnapshot;
    GTEST_SKIP() << "wrote " << kSnapshot << ": " << now.size() << " plans";
  }
  std::ifstream in(kSnapshot);
  ASSERT_TRUE(in.good()) << "cannot read " << kSnapshot;
  std::map<std::string, std::string> was;  // "H100 tf32 shapes 1000x1000x1000 NN" -> its plan
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') was[line.substr(0, line.find(" | "))] = line.substr(line.find(" | ") + 3);
  std::ostringstream moved;
  int changes = 0;
  for (const std::string& l : now) {
    const std::string key = l.substr(0, l.find(" | ")), plan = l.substr(l.find(" | ") + 3);
    const auto it = was.find(key);
    if (it != was.end() && it->second == plan) continue;
    if (++changes <= 40)
      moved << "  " << key << ": " << (it == was.end() ? "(not in the snapshot)" : it->second) << "  ->  " << plan << '\n';
  }
  EXPECT_EQ(changes, 0) << changes << " suite problems change plan (the first 40 below); if that is the intent, "
                        << "write the snapshot again (GEMMLAB_UPDATE_PLANS=1, this file's header) and commit it "
                        << "with the measurements that justify it:\n"
                        << moved.str();
  EXPECT_EQ(was.size(), now.size()) << "the snapshot holds problems the suites no longer have";
}
