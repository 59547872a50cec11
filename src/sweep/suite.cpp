#include "sweep/suite.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "core/error.hpp"
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

// Draws from a mt19937_64 by arithmetic of its own (the standard distributions' outputs differ
// between standard libraries; the engine's do not).
class Draw {
 public:
  explicit Draw(unsigned seed) : rng_(seed) {}
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(rng_() % std::uint64_t(hi - lo + 1)); }
  // Uniform in log: as many shapes between 100 and 1000 as between 1000 and 10000.
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi) {
    const double u = double(rng_() >> 11) / double(std::uint64_t(1) << 53);
    const double v = std::exp(std::log(double(lo)) + u * (std::log(double(hi)) - std::log(double(lo))));
    return std::clamp<std::int64_t>(std::llround(v), lo, hi);
  }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[std::size_t(uniform(0, std::int64_t(v.size()) - 1))]; }

 private:
  std::mt19937_64 rng_;
};

// One held-out shape of kind number `kind` (the order of the suite's kinds, layout last).
SuiteShape held_out_shape(Draw& d, int kind) {
  // (N, K) of model widths the suite does not hold: 2048, 3072, 5120, 7168 wide models and their
  // MLPs (11008, 13824, 18432), attention of grouped queries (1024-wide K/V projections).
  static const std::vector<std::pair<std::int64_t, std::int64_t>> widths{
      {2048, 2048}, {3072, 3072}, {5120, 5120}, {7168, 7168}, {1024, 4096}, {11008, 4096}, {4096, 11008},
      {13824, 5120}, {5120, 13824}, {18432, 7168}, {7168, 18432}, {8192, 8192}, {32000, 4096}};
  switch (kind) {
    case 0: {
      const std::int64_t s = d.log_uniform(160, 12000);
      return {Shape{s, s, s}, "square", "NN"};
    }
    case 1: {
      const auto [n, k] = d.pick(widths);
      return {Shape{d.log_uniform(1, 8192), n, k}, "llm", "NN"};
    }
    case 2: {
      const std::int64_t narrow = d.log_uniform(2, 256), a = d.log_uniform(2048, 16384), b = d.log_uniform(2048, 16384);
      return {d.uniform(0, 1) ? Shape{narrow, a, b} : Shape{a, narrow, b}, "skinny", "NN"};
    }
    case 3: return {Shape{d.log_uniform(2048, 16384), d.log_uniform(2048, 16384), d.log_uniform(8, 512)}, "small-k", "NN"};
    case 4: return {Shape{d.log_uniform(32, 768), d.log_uniform(32, 768), d.log_uniform(16384, 65536)}, "large-k", "NN"};
    case 5: return {Shape{d.uniform(100, 5000), d.uniform(100, 5000), d.uniform(100, 5000)}, "odd", "NN"};
    default: {
      SuiteShape s = held_out_shape(d, int(d.uniform(0, 1)));  // a square or an LLM layer
      s.kind = "layout";
      s.layout = d.pick(std::vector<std::string>{"NT", "TN", "TT"});
      return s;
    }
  }
}

}  // namespace

std::vector<SuiteShape> held_out_shapes(unsigned seed, int count) {
  if (count < 1 || count > 1000) throw Error("held-out shapes: the count must be 1 to 1000, not " + std::to_string(count));
  // The kinds in the suite's proportions, roughly: of every 10, 1 square, 4 LLM layers, 1 skinny,
  // 1 small-K, 1 large-K, 1 odd, 1 layout.
  static constexpr int kKinds[10] = {0, 1, 1, 1, 1, 2, 3, 4, 5, 6};
  Draw d(seed);
  std::vector<SuiteShape> out;
  while (int(out.size()) < count) {
    const SuiteShape s = held_out_shape(d, kKinds[out.size() % 10]);
    const auto same = [&](const SuiteShape& o) { return o.shape == s.shape && o.layout == s.layout; };
    if (std::none_of(shape_suite().begin(), shape_suite().end(), same) && std::none_of(out.begin(), out.end(), same))
      out.push_back(s);
  }
  return out;
}

const std::vector<SuiteShape>& shape_suite() {
  static const std::vector<SuiteShape> suite = build_suite();
  return suite;
}

std::vector<Shape> unique_shapes(const std::vector<SuiteShape>& shapes) {
  std::vector<Shape> out;
  for (const SuiteShape& s : shapes) append_unique(out, {s.shape});
  return out;
}

std::vector<Shape> suite_shapes() { return unique_shapes(shape_suite()); }

bool memory_bound(const Shape& s) {
  return (s.m <= 64 && s.n >= 4096 && s.k >= 4096) || (s.n <= 64 && s.m >= 4096 && s.k >= 4096);
}

std::optional<SuiteTypes> suite_types(const std::string& precision, bool same_out) {
  if (precision == "fp32") return SuiteTypes{DataType::f32, DataType::f32, Compute::f32, "fp32"};
  if (precision == "tf32") return SuiteTypes{DataType::f32, DataType::f32, Compute::tf32, "tf32"};
  if (precision == "bf16") return SuiteTypes{DataType::bf16, same_out ? DataType::bf16 : DataType::f32, Compute::f32, "bf16"};
  if (precision == "fp16") return SuiteTypes{DataType::f16, same_out ? DataType::f16 : DataType::f32, Compute::f32, "fp16"};
  return std::nullopt;
}

Gemm dense_call(const SuiteTypes& t, std::int64_t m, std::int64_t n, std::int64_t k, const std::string& layout, bool d_col) {
  Gemm g;
  g.m = m, g.n = n, g.k = k;
  g.a.type = g.b.type = t.ab;
  g.d.type = g.c.type = t.cd;
  g.compute = t.compute;
  g.op_a = layout[0] == 'T' ? Op::transpose : Op::none;
  g.op_b = layout[1] == 'T' ? Op::transpose : Op::none;
  if (d_col) g.d.order = g.c.order = Order::col_major;
  return g;
}

}  // namespace gemmlab
