// The shape suite and its held-out shapes (sweep/suite.hpp): no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sweep/shapes.hpp"
#include "sweep/suite.hpp"

using namespace gemmlab;

namespace {

bool in_suite(const SuiteShape& s) {
  return std::any_of(shape_suite().begin(), shape_suite().end(),
                     [&](const SuiteShape& o) { return o.shape == s.shape && o.layout == s.layout; });
}

}  // namespace

TEST(ShapeSuite, HoldsSixtyShapesOfSevenKindsWithSixteenMemoryBound) {
  const auto& suite = shape_suite();
  EXPECT_EQ(suite.size(), 60u);
  std::set<std::string> kinds;
  int bound = 0;
  for (const SuiteShape& s : suite) kinds.insert(s.kind), bound += memory_bound(s.shape);
  EXPECT_EQ(kinds, (std::set<std::string>{"square", "llm", "skinny", "small-k", "large-k", "odd", "layout"}));
  EXPECT_EQ(bound, 16);  // docs/shapes.md quotes shares over these 16
}

TEST(HeldOutShapes, TheSameSeedGivesTheSameShapesAndAnotherOthers) {
  const auto a = held_out_shapes(1), b = held_out_shapes(1), c = held_out_shapes(2);
  ASSERT_EQ(a.size(), 30u);
  int same_as_c = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].shape, b[i].shape);
    EXPECT_EQ(a[i].layout, b[i].layout);
    same_as_c += a[i].shape == c[i].shape;
  }
  EXPECT_LT(same_as_c, 3);
  // The first shape of seed 1, so that a change of the drawing (which would make earlier held-out
  // results incomparable) is a change of this test too.
  EXPECT_EQ(a.front().kind, "square");
  EXPECT_EQ(to_string(a.front().shape), "285x285x285");
}

TEST(HeldOutShapes, AreNoSuiteShapeAndKeepTheirKindsRanges) {
  for (unsigned seed : {1u, 2u, 3u, 77u}) {
    const auto shapes = held_out_shapes(seed, 200);
    std::set<std::string> kinds;
    for (const SuiteShape& s : shapes) {
      SCOPED_TRACE(to_string(s.shape) + " " + s.kind + " " + s.layout);
      EXPECT_FALSE(in_suite(s));
      kinds.insert(s.kind);
      const Shape& x = s.shape;
      EXPECT_GE(std::min({x.m, x.n, x.k}), 1);
      if (s.kind == "square") {
        EXPECT_TRUE(x.m == x.n && x.n == x.k && x.m >= 160 && x.m <= 12000);
      } else if (s.kind == "llm") {
        EXPECT_TRUE(x.m >= 1 && x.m <= 8192 && x.n >= 1024 && x.k >= 2048);
      } else if (s.kind == "skinny") {
        EXPECT_LE(std::min(x.m, x.n), 256);
        EXPECT_GE(std::max(x.m, x.n), 2048);
      } else if (s.kind == "small-k") {
        EXPECT_TRUE(x.k >= 8 && x.k <= 512 && x.m >= 2048 && x.n >= 2048);
      } else if (s.kind == "large-k") {
        EXPECT_TRUE(x.k >= 16384 && x.m <= 768 && x.n <= 768);
      } else if (s.kind == "odd") {
        EXPECT_TRUE(x.m >= 100 && x.m <= 5000 && x.n >= 100 && x.n <= 5000 && x.k >= 100 && x.k <= 5000);
      } else {
        EXPECT_EQ(s.kind, "layout");
        EXPECT_NE(s.layout, "NN");
      }
      if (s.kind != "layout") EXPECT_EQ(s.layout, "NN");
    }
    EXPECT_EQ(kinds.size(), 7u);
  }
}

TEST(HeldOutShapes, ACountOutsideOneToAThousandIsAnError) {
  EXPECT_THROW(held_out_shapes(1, 0), Error);
  EXPECT_THROW(held_out_shapes(1, 1001), Error);
  EXPECT_EQ(held_out_shapes(1, 1).size(), 1u);
}

TEST(HeldOutShapes, AShapeListNamesThemBySeed) {
  std::vector<Shape> expected;
  for (const SuiteShape& s : held_out_shapes(7)) append_unique(expected, {s.shape});
  EXPECT_EQ(parse_shape_list("heldout:7"), expected);
  EXPECT_EQ(parse_shape_list("heldout"), parse_shape_list("heldout:1"));
  EXPECT_NE(parse_shape_list("heldout:1"), parse_shape_list("heldout:2"));
  for (const char* bad : {"heldout:", "heldout:x", "heldout:-1", "heldout:1,2", "heldout:99999999999"}) {
    try {
      (void)parse_shape_list(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}
