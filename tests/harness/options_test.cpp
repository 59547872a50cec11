#include <gtest/gtest.h>

#include "core/size_list.hpp"
#include "core/error.hpp"
#include "harness/run.hpp"

using namespace gemmlab;

TEST(SizeList, ListsAndRanges) {
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(parse_size_list("256"), V({256}));
  EXPECT_EQ(parse_size_list("64,128,256"), V({64, 128, 256}));
  EXPECT_EQ(parse_size_list("256:2048:x2"), V({256, 512, 1024, 2048}));
  EXPECT_EQ(parse_size_list("1000:5000:+1000"), V({1000, 2000, 3000, 4000, 5000}));
  EXPECT_EQ(parse_size_list("100:350:+100,1024"), V({100, 200, 300, 1024}));
}

TEST(SizeList, Errors) {
  for (const char* bad : {"", "abc", "12,", "0", "-5", "256:128:x2", "1:10", "1:10:*2", "1:10:x1", "1:10:+0", "64:128:xq"})
    EXPECT_THROW(parse_size_list(bad), Error) << bad;
}

TEST(ShapeValidation, RejectsZeroNegativeAndHuge) {
  EXPECT_NO_THROW(validate_shape({1, 1, 1}));
  EXPECT_NO_THROW(validate_shape({4097, 4095, 4093}));
  EXPECT_THROW(validate_shape({0, 4, 4}), Error);
  EXPECT_THROW(validate_shape({4, -1, 4}), Error);
  EXPECT_THROW(validate_shape({65536, 65536, 2}), Error);  // C would have 2^32 elements
}
