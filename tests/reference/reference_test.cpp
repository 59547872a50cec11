#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/fill.hpp"
#include "reference/cpu_gemm.hpp"
#include "reference/verify.hpp"

using namespace gemmlab;

TEST(CpuReference, SmallKnownProduct) {
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154]
  const double a[] = {1, 2, 3, 4, 5, 6}, b[] = {7, 8, 9, 10, 11, 12};
  double c[4] = {};
  gemm_cpu({2, 2, 3}, 1.0, a, b, 0.0, c);
  EXPECT_EQ(c[0], 58);
  EXPECT_EQ(c[1], 64);
  EXPECT_EQ(c[2], 139);
  EXPECT_EQ(c[3], 154);
}

TEST(CpuReference, AlphaBetaAndBetaZeroIgnoresNaN) {
  const double a[] = {1, 2}, b[] = {3, 4};  // 1x2 times 2x1 = 11
  double c[1] = {std::numeric_limits<double>::quiet_NaN()};
  gemm_cpu({1, 1, 2}, 2.0, a, b, 0.0, c);  // beta == 0: C is not read
  EXPECT_EQ(c[0], 22);
  c[0] = 10;
  gemm_cpu({1, 1, 2}, 1.0, a, b, -0.5, c);
  EXPECT_EQ(c[0], 6);
}

TEST(CpuReference, AbsGemmIsTheErrorScale) {
  const double a[] = {1, -2}, b[] = {3, 4};
  double s[1];
  gemm_cpu({1, 1, 2}, 1.0, a, b, 0.0, s);
  EXPECT_EQ(s[0], -5);
  abs_gemm_cpu({1, 1, 2}, -1.0, a, b, 0.0, nullptr, s);
  EXPECT_EQ(s[0], 11);
}

TEST(Verify, ExactResultPasses) {
  const std::vector<double> ref = {1, 2, 3}, scale = {1, 2, 3};
  const Verification v = evaluate(compare_host(ref.data(), ref.data(), scale.data(), 3), tolerance_for(Precision::fp32));
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.rel_frobenius, 0);
}

TEST(Verify, NaNFailsEvenWhenTheNormIsTiny) {
  std::vector<double> ref(1000, 1.0), c(1000, 1.0), scale(1000, 1.0);
  c[500] = std::numeric_limits<double>::quiet_NaN();
  const Verification v = evaluate(compare_host(c.data(), ref.data(), scale.data(), 1000), tolerance_for(Precision::bf16));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.nonfinite, 1);
}

TEST(Verify, OneWrongElementAmongManyFails) {
  // The Frobenius norm alone would hide it (1/sqrt(1e6) = 1e-3 < the bf16 tolerance); the
  // element-wise check does not.
  const std::int64_t n = 1'000'000;
  std::vector<double> ref(n, 1.0), c(n, 1.0), scale(n, 1.0);
  c[12345] = 2.0;
  const Verification v = evaluate(compare_host(c.data(), ref.data(), scale.data(), n), tolerance_for(Precision::bf16));
  EXPECT_LT(v.rel_frobenius, tolerance_for(Precision::bf16).rel_frobenius);
  EXPECT_FALSE(v.passed);
  EXPECT_DOUBLE_EQ(v.max_elementwise, 1.0);
}

TEST(Verify, RoundingSizedErrorsPassPerPrecision) {
  std::vector<double> ref(100), c(100), scale(100);
  for (int i = 0; i < 100; ++i) {
    ref[i] = 1.0 + i;
    scale[i] = 2.0 * ref[i];
    c[i] = ref[i] * (1 + 1e-7);
  }
  EXPECT_TRUE(evaluate(compare_host(c.data(), ref.data(), scale.data(), 100), tolerance_for(Precision::fp32)).passed);
  for (int i = 0; i < 100; ++i) c[i] = ref[i] * (1 + 1e-3);
  EXPECT_FALSE(evaluate(compare_host(c.data(), ref.data(), scale.data(), 100), tolerance_for(Precision::fp32)).passed);
  EXPECT_TRUE(evaluate(compare_host(c.data(), ref.data(), scale.data(), 100), tolerance_for(Precision::tf32)).passed);
}

TEST(Verify, ZeroScaleRequiresExactZero) {
  const std::vector<double> ref = {0}, scale = {0}, c_ok = {0}, c_bad = {1e-30};
  EXPECT_TRUE(evaluate(compare_host(c_ok.data(), ref.data(), scale.data(), 1), tolerance_for(Precision::fp32)).passed);
  EXPECT_FALSE(evaluate(compare_host(c_bad.data(), ref.data(), scale.data(), 1), tolerance_for(Precision::fp32)).passed);
}

TEST(Fill, UniformValuesAreDeterministicAndInRange) {
  const auto a = fill_uniform_host(10000, 42, 1), b = fill_uniform_host(10000, 42, 1), c = fill_uniform_host(10000, 43, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double mean = 0;
  for (float x : a) {
    EXPECT_GE(x, -1.0f);
    EXPECT_LT(x, 1.0f);
    mean += x;
  }
  EXPECT_NEAR(mean / 10000, 0.0, 0.03);
}
