#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/stats.hpp"

using namespace gemmlab;

TEST(Stats, OddSampleMedianIsMiddleValue) {
  const std::vector<double> x = {5, 1, 3};
  const Stats s = summarize(x);
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.stddev, 2);  // sample standard deviation: sqrt((4 + 0 + 4) / 2)
}

TEST(Stats, EvenSampleMedianAveragesTheMiddlePair) {
  const std::vector<double> x = {4, 1, 2, 3};
  EXPECT_DOUBLE_EQ(summarize(x).median, 2.5);
}

TEST(Stats, SingleSampleHasZeroSpread) {
  const std::vector<double> x = {7.5};
  const Stats s = summarize(x);
  EXPECT_DOUBLE_EQ(s.median, 7.5);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.p10, 7.5);
}

TEST(Stats, PercentilesInterpolate) {
  std::vector<double> x;
  for (int i = 0; i <= 10; ++i) x.push_back(i);
  const Stats s = summarize(x);
  EXPECT_DOUBLE_EQ(s.p10, 1.0);
  EXPECT_DOUBLE_EQ(s.p90, 9.0);
}

TEST(Stats, KnownStandardDeviation) {
  const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_NEAR(summarize(x).stddev, 2.138089935, 1e-9);
}

TEST(Stats, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize(std::vector<double>{}), Error);
  EXPECT_THROW(summarize(std::vector<double>{1.0, std::numeric_limits<double>::quiet_NaN()}), Error);
  EXPECT_THROW(summarize(std::vector<double>{std::numeric_limits<double>::infinity()}), Error);
}
