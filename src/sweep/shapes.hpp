// The problem shapes a sweep runs, as users write them: square sizes, separate M / N / K lists
// (their product, or zipped element by element), and explicit MxNxK lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace gemmlab {

// "1024x512x256,64x64x64" -> shapes; "suite" -> the shape suite's shapes, "heldout" or
// "heldout:SEED" -> the held-out shapes of seed 1 or SEED (sweep/suite.hpp), layouts dropped.
// Throws Error on anything else (each item needs three positive integers separated by 'x').
std::vector<Shape> parse_shape_list(const std::string& text);

// Square shapes N x N x N for every size.
std::vector<Shape> square_shapes(const std::vector<std::int64_t>& sizes);

// The most shapes one sweep's lists may give: more would take the planner gigabytes, and a sweep
// of them years.
inline constexpr std::int64_t kMaxShapes = 100000;

// Shapes from separate M, N and K lists.
//   product (zip == false): every combination, M varying slowest, K fastest; more than kMaxShapes
//   of them is an Error.
//   zip (zip == true): the i-th shape takes the i-th value of each list; a list of one value is
//   repeated to the others' length; lists of other different lengths are an Error.
std::vector<Shape> shapes_from_dimensions(const std::vector<std::int64_t>& ms, const std::vector<std::int64_t>& ns,
                                          const std::vector<std::int64_t>& ks, bool zip);

// Appends `more` to `shapes`, leaving out shapes already present (order kept).
void append_unique(std::vector<Shape>& shapes, const std::vector<Shape>& more);

}  // namespace gemmlab
