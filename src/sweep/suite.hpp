// The shape suite: a fixed, broad set of GEMM shapes in the classes real programs run (squares,
// LLM layers from decode to prefill, skinny and flat, small and large K, sizes that fit no tile,
// and a few transposed layouts), so that "faster than cuBLAS" is claimed over more than the
// shapes a kernel was tuned on. `gemmlab bench --suite shapes` times `auto` on it next to cuBLAS;
// `gemmlab lab --shapes suite` and `gemmlab sweep --shapes suite` take its shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "gemmlab/gemm.hpp"

namespace gemmlab {

struct SuiteShape {
  Shape shape;
  std::string kind;    // "square", "llm", "skinny", "small-k", "large-k", "odd", "layout"
  std::string layout;  // op(A) op(B) of row-major operands: "NN", "NT", "TN" or "TT"
};

// Every shape of the suite, in that order of kinds.
const std::vector<SuiteShape>& shape_suite();

// Held-out shapes: `count` shapes of the suite's kinds drawn from `seed` (the same seed gives the
// same shapes on every machine), none of them a suite shape, so that a claim made on the suite can
// be checked on shapes no kernel, table or model was tuned to. Kinds and ranges: squares of 160 to
// 12000; LLM layers of 1 to 8192 tokens against the (N, K) of model widths the suite lacks; skinny
// (one side 2 to 256, the others 2048 to 16384); small K (8 to 512) and large K (16384 to 65536);
// odd sizes of 100 to 5000; and NT, TN or TT on one of the others. `count` of 1 to 1000.
std::vector<SuiteShape> held_out_shapes(unsigned seed, int count = 30);

// The shapes alone (layouts dropped, duplicates removed, order kept), for a shape list.
std::vector<Shape> unique_shapes(const std::vector<SuiteShape>& shapes);

// The suite's shapes alone, for --shapes suite: unique_shapes(shape_suite()).
std::vector<Shape> suite_shapes();

// The types of a call in `precision` as the bench suites name it ("fp32", "tf32", "bf16" or
// "fp16"): FP32 operands multiplied in FP32 or TF32; 16-bit operands with D in FP32 or, with
// `same_out`, in their own type. Nothing for another name.
struct SuiteTypes {
  DataType ab, cd;
  Compute compute;
  const char* name;
};
std::optional<SuiteTypes> suite_types(const std::string& precision, bool same_out);

// A dense call of packed row-major operands, op(A) and op(B) from `layout` ("NN", "NT", "TN" or
// "TT"), D (and C) column-major where `d_col`. The pointers are left null. The shape suites call
// it with suite_types(precision, true): D in the operands' type, as in a model's layers.
Gemm dense_call(const SuiteTypes& t, std::int64_t m, std::int64_t n, std::int64_t k, const std::string& layout,
                bool d_col = false);

// Memory-bound by the suite's rule: M <= 64 or N <= 64, with the other two sides >= 4096. Such
// shapes are timed with the L2 flushed and judged by their share of the DRAM bandwidth.
bool memory_bound(const Shape& s);

}  // namespace gemmlab
