// The shape suite: a fixed, broad set of GEMM shapes in the classes real programs run (squares,
// LLM layers from decode to prefill, skinny and flat, small and large K, sizes that fit no tile,
// and a few transposed layouts), so that "faster than cuBLAS" is claimed over more than the
// shapes a kernel was tuned on. `gemmlab bench --suite shapes` times `auto` on it next to cuBLAS;
// `gemmlab lab --shapes suite` and `gemmlab sweep --shapes suite` take its shapes.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace gemmlab {

struct SuiteShape {
  Shape shape;
  std::string kind;    // "square", "llm", "skinny", "small-k", "large-k", "odd", "layout"
  std::string layout;  // op(A) op(B) of row-major operands: "NN", "NT", "TN" or "TT"
};

// Every shape of the suite, in that order of kinds.
const std::vector<SuiteShape>& shape_suite();

// The suite's shapes alone (layouts dropped, duplicates removed), for --shapes suite.
std::vector<Shape> suite_shapes();

// Memory-bound by the suite's rule: M <= 64 or N <= 64, with the other two sides >= 4096. Such
// shapes are timed with the L2 flushed and judged by their share of the DRAM bandwidth.
bool memory_bound(const Shape& s);

}  // namespace gemmlab
