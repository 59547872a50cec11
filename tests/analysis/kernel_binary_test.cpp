// Finding a kernel's resources in the compiled program without a GPU: cuobjdump's resource
// listing, gemmlab's own symbol table, and the name matching between them.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/kernel_binary.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"

using namespace gemmlab;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(GEMMLAB_SOURCE_DIR) + "/tests/fixtures/analysis/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(CuobjdumpResources, ParsesEveryFunctionOfEveryArch) {
  const auto all = parse_resource_usage(fixture("cuobjdump_resource_usage.txt"));
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].arch, "sm_90");
  EXPECT_EQ(all[0].demangled, "void gemmlab::(anonymous namespace)::tiled<16>(float*)");
  EXPECT_EQ(all[0].registers, 12);
  EXPECT_EQ(all[0].shared_bytes, 2048u);  // SHARED:3072 less the 1 KB the system reserves (sm_80+)
  EXPECT_EQ(all[1].registers, 38);
  EXPECT_EQ(all[2].arch, "sm_90a");
  EXPECT_EQ(all[2].registers, 40);
  EXPECT_EQ(all[2].local_bytes, 8u);
  EXPECT_EQ(all[2].stack_bytes, 16u);
}

TEST(CuobjdumpResources, Malformed) {
  EXPECT_THROW(parse_resource_usage(""), Error);
  EXPECT_THROW(parse_resource_usage("Fatbin ptx code:\narch = sm_90\n"), Error);
  EXPECT_THROW(parse_resource_usage("arch = sm_90\n Function _Z1kv:\n  nonsense\n"), Error);
  EXPECT_THROW(parse_resource_usage("arch = sm_90\n Function _Z1kv:\n  REG:x SHARED:0\n"), Error);
  EXPECT_THROW(parse_resource_usage("arch = sm_90\n Function _Z1kv:\n"), Error);
}

TEST(CuobjdumpResources, SelectsByNameRegexAndArch) {
  const auto all = parse_resource_usage(fixture("cuobjdump_resource_usage.txt"));
  const std::string naive = "gemmlab::(anonymous namespace)::naive_gemm(int, int, int, float, float const*, float const*, float, float*)";
  EXPECT_EQ(select_function(all, naive, "", 90).arch, "sm_90");   // the exact arch first
  EXPECT_EQ(select_function(all, naive, "", 90).registers, 38);
  EXPECT_EQ(select_function(all, naive, "", 12).arch, "sm_90");   // GT 240: the closest build there is
  EXPECT_EQ(select_function(all, naive, "", 100).arch, "sm_90");  // below 10.0: the highest, portable first
  EXPECT_EQ(select_function(all, "", "tiled<16>", 90).shared_bytes, 2048u);
  EXPECT_EQ(select_function(all, "", "naive", 90).registers, 38);
  EXPECT_THROW(select_function(all, "void nope()", "", 90), Error);
  EXPECT_THROW(select_function(all, "", "nope", 90), Error);
  EXPECT_THROW(select_function(all, "", "([", 90), Error);  // not a regex
}

TEST(KernelSymbols, FunctionIdentifier) {
  EXPECT_EQ(function_identifier("void gemmlab::(anonymous namespace)::tiled<16>(float*)"), "tiled");
  EXPECT_EQ(function_identifier("gemmlab::(anonymous namespace)::naive_gemm(int, int)"), "naive_gemm");
  EXPECT_EQ(function_identifier("void gemmlab::<unnamed>::tiled<16, 8>(float *)"), "tiled");
  EXPECT_EQ(function_identifier("plain"), "plain");
  EXPECT_EQ(demangle("_Z1kPfS_"), "k(float*, float*)");
  EXPECT_EQ(demangle("not mangled"), "not mangled");
}

TEST(KernelSymbols, FindsARegisteredKernelInOwnSymbolTable) {
  // The naive kernel's plan() gives its __global__ function; gemmlab finds the kernel's name at
  // that address in its own executable (this test binary links the same library).
  const Kernel& k = Registry::instance().get("seed.naive");
  const Params p = resolve_params(k, {});
  const LaunchPlan plan = k.plan(Shape{64, 64, 64}, p);
  const std::string mangled = host_symbol_at(plan.function);
  ASSERT_FALSE(mangled.empty()) << "no symbol at the kernel's address (stripped binary?)";
  EXPECT_EQ(function_identifier(demangle(mangled)), "naive_gemm");
  EXPECT_EQ(host_symbol_at(nullptr), "");
}

}  // namespace
