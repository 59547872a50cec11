#include "sweep/suite.hpp"

#include "sweep/shapes.hpp"

namespace gemmlab {

namespace {

std::vector<SuiteShape> build_suite() {
  std::vector<SuiteShape> out;
  auto add = [&](std::int64_t m, std::int64_t n, std::int64_t k, const char* kind, const char* layout = "NN") {
    out.push_back(SuiteShape{Shape{m, n, k}, kind, layout});
  };
  // Squares, powers of two and not.
  for (std::int64_t s : {128, 256, 512, 1000, 1024, 1536, 2048, 3072, 4096, 5120, 6144, 8192, 16384}) add(s, s, s, "square");
  // LLM layers: M tokens (1 for decode, thousands for prefill) against the (N, K) of common
  // projections: attention 4096 x 4096, MLP up 14336 x 4096 and down 4096 x 14336, a 70B model's
  // MLP (28672 x 8192, 8192 x 28672), and an LM head of 128256 x 4096.
  for (std::int64_t m : {1, 16, 64, 128, 512, 2048, 8192}) add(m, 4096, 4096, "llm");
  for (std::int64_t m : {1, 32, 256, 4096}) add(m, 14336, 4096, "llm");
  for (std::int64_t m : {1, 32, 256, 4096}) add(m, 4096, 14336, "llm");
  for (std::int64_t m : {16, 128, 2048}) add(m, 28672, 8192, "llm");
  for (std::int64_t m : {16, 128, 2048}) add(m, 8192, 28672, "llm");
  for (std::int64_t m : {1, 64, 1024}) add(m, 128256, 4096, "llm");
  // Skinny and flat: one of M, N from 1 to 256, the others up to 16384.
  add(16384, 8, 16384, "skinny");
  add(8192, 64, 8192, "skinny");
  add(16384, 256, 4096, "skinny");
  add(256, 16384, 16384, "skinny");
  // Small K with large M, N; large K with small M, N.
  add(8192, 8192, 16, "small-k");
  add(16384, 16384, 64, "small-k");
  add(8192, 8192, 256, "small-k");
  add(4096, 4096, 512, "small-k");
  add(64, 64, 65536, "large-k");
  add(128, 128, 65536, "large-k");
  add(512, 512, 32768, "large-k");
  // Sizes that fit no tile, and rows that are not a multiple of 16 bytes.
  add(4097, 4095, 4093, "odd");
  add(1023, 1025, 1027, "odd");
  add(1500, 1500, 1500, "odd");
  add(333, 777, 555, "odd");
  add(7, 13, 4099, "odd");
  add(999, 4096, 4096, "odd");
  // Transposed layouts on a square and on a decode-like shape.
  for (const char* l : {"NT", "TN", "TT"}) add(1000, 1000, 1000, "layout", l);
  for (const char* l : {"NT", "TN", "TT"}) add(16, 4096, 4096, "layout", l);
  return out;
}

}  // namespace

const std::vector<SuiteShape>& shape_suite() {
  static const std::vector<SuiteShape> suite = build_suite();
  return suite;
}

std::vector<Shape> suite_shapes() {
  std::vector<Shape> out;
  for (const SuiteShape& s : shape_suite()) append_unique(out, {s.shape});
  return out;
}

bool memory_bound(const Shape& s) {
  return (s.m <= 64 && s.n >= 4096 && s.k >= 4096) || (s.n <= 64 && s.m >= 4096 && s.k >= 4096);
}

}  // namespace gemmlab
