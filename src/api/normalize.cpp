// Validation and normalisation of a call (problem.hpp): every check that needs no GPU.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "api/problem.hpp"
#include "gemmlab/error.hpp"

namespace gemmlab::detail {

namespace {

constexpr std::int64_t kMaxDim = std::numeric_limits<std::int32_t>::max();

[[noreturn]] void invalid(const std::string& arg, const std::string& msg) { throw InvalidArgument(arg, msg); }

bool valid(DataType t) { return t <= DataType::e5m2; }
bool valid(Order o) { return o <= Order::col_major; }
bool valid(Op o) { return o <= Op::transpose; }

void check_enum(bool ok, const std::string& arg, int value) {
  if (!ok) invalid(arg, fmt::format("{} is not one of the enumeration's values", value));
}

void check_fp8(DataType t, const std::string& arg) {
  if (t == DataType::e4m3 || t == DataType::e5m2)
    throw Unsupported(fmt::format("{}: FP8 ({}) is not offered yet; gemmlab computes f32, bf16 and f16 operands",
                                  arg, to_string(t)));
}

void check_aligned(const void* p, DataType t, const std::string& arg) {
  if (reinterpret_cast<std::uintptr_t>(p) % size_of(t) != 0)
    invalid(arg, fmt::format("{} is not aligned to the {} bytes of one {} element", p, size_of(t), to_string(t)));
}

// The stored matrix of an operand is `rows` x `cols` in its own order; returns the leading dimension
// (the given one, or the packed one for 0) after checking it.
std::int64_t resolve_ld(std::int64_t ld, Order order, std::int64_t rows, std::int64_t cols, const std::string& name) {
  const std::int64_t packed = std::max<std::int64_t>(1, order == Order::row_major ? cols : rows);
  if (ld == 0) return packed;
  if (ld < packed)
    invalid(name + ".ld", fmt::format("{} is less than the {} {} of the stored {} x {} {} matrix", ld,
                                      order == Order::row_major ? "row length" : "column length", packed, rows, cols,
                                      to_string(order)));
  if (ld > std::numeric_limits<std::int64_t>::max() / std::max<std::int64_t>(1, std::max(rows, cols)))
    invalid(name + ".ld", fmt::format("{} is too large: the matrix would not fit in 64-bit offsets", ld));
  return ld;
}

// An input operand of a product: op(X) is `rows` x `cols` (A: m x k, B: k x n). Returns the operand
// as kernels see it; k_major as described in problem.hpp.
Operand make_operand(const Matrix& x, Op op, std::int64_t rows, std::int64_t cols, bool is_b, std::int64_t batch,
                     const std::string& name) {
  check_enum(valid(x.order), name + ".order", int(x.order));
  if (!x.data) invalid(name + ".data", "is null");
  if (x.scale) invalid(name + ".scale", "per-operand scales are reserved for FP8 and must be null");
  if (x.batch_stride < 0) invalid(name + ".batch_stride", fmt::format("{} is negative", x.batch_stride));
  check_aligned(x.data, x.type, name + ".data");
  const bool t = op == Op::transpose;
  const std::int64_t stored_rows = t ? cols : rows, stored_cols = t ? rows : cols;
  Operand o;
  o.ptr = x.data;
  o.ld = resolve_ld(x.ld, x.order, stored_rows, stored_cols, name);
  o.stride = x.batch_stride;
  o.k_major = is_b ? ((x.order == Order::col_major) != t) : ((x.order == Order::row_major) != t);
  if (batch > 1 && o.stride != 0 && o.stride > std::numeric_limits<std::int64_t>::max() / batch)
    invalid(name + ".batch_stride", "is too large: the batch would not fit in 64-bit offsets");
  return o;
}

// The memory interval [lo, hi) in bytes a strided matrix covers.
struct Span {
  std::uintptr_t lo = 0, hi = 0;
  bool overlaps(const Span& o) const { return lo < o.hi && o.lo < hi; }
};
// The names a refusal of one matrix's span gives: its pointer, its leading dimension (empty for a
// vector) and its batch stride.
// (Literals: no string is built unless a call is refused, since every call's spans are worked out.)
struct SpanNames {
  const char* data;
  const char* ld;  // empty for a vector
  const char* stride;
};
// The span of `rows` lines of `cols` elements `ld` apart, over `batch` items `stride` apart, worked
// out exactly: a matrix that would run past the end of the address space is refused (its end would
// wrap around to a small address, and the overlap checks would pass what they must refuse). Names
// the batch stride when one item fits, else the leading dimension when it is not the packed one,
// else the pointer.
Span span_of(const void* p, DataType t, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
             std::int64_t stride, const SpanNames& names) {
  using Wide = unsigned __int128;
  const auto lo = reinterpret_cast<std::uintptr_t>(p);
  if (rows <= 0 || cols <= 0) return {lo, lo};
  const Wide size = size_of(t), end = Wide(std::numeric_limits<std::uintptr_t>::max()) + 1;
  const Wide item = Wide(lo) + (Wide(rows - 1) * Wide(ld) + Wide(cols)) * size;
  const Wide hi = item + Wide(batch - 1) * Wide(stride) * size;
  if (hi >= end) {
    const char* arg = item < end ? names.stride : *names.ld && ld > cols ? names.ld : names.data;
    invalid(arg, fmt::format("a {} matrix of {} lines of {} elements {} apart{} from {} would run past the end of the "
                             "address space",
                             to_string(t), rows, cols, ld,
                             batch > 1 && stride > 0 ? fmt::format(", {} items {} apart,", batch, stride) : std::string(),
                             p));
  }
  return {lo, std::uintptr_t(hi)};
}

// Whether two items of a strided batch share an element: items of `rows` stored lines of `cols`
// elements, `ld` apart, and `stride` elements between consecutive items (stride > 0). Items may
// interleave without touching (ld = 2 cols, stride = cols); only an item t apart whose offset
// q * ld + r lands an element on another's (column r < cols, or wrapping into the next line) does.
bool items_overlap(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch, std::int64_t stride) {
  const std::int64_t extent = (rows - 1) * ld + cols;
  // Every t with t * stride < extent, at most a million (beyond that the items are disjoint in
  // any layout a caller can allocate: stride * 1e6 < extent needs extent > 1e6 * stride).
  for (std::int64_t t = 1; t < batch && t <= 1000000 && t * stride < extent; ++t) {
    const std::int64_t o = t * stride, q = o / ld, r = o % ld;
    if ((q < rows && r < cols) || (q + 1 < rows && r > ld - cols)) return true;
  }
  return false;
}

void check_scalar(const Scalar& s, const std::string& name) {
  if (s.device && reinterpret_cast<std::uintptr_t>(s.device) % alignof(float) != 0)
    invalid(name + ".device", "is not aligned to 4 bytes");
}

// The type rules of gemm.hpp's table.
void check_types(DataType ab, DataType b_type, DataType cd, Compute compute) {
  check_fp8(ab, "a.type");
  check_fp8(b_type, "b.type");
  check_fp8(cd, "d.type");
  if (b_type != ab)
    throw Unsupported(fmt::format("b.type: A is {} and B is {}; gemmlab multiplies operands of one type", to_string(ab),
                                  to_string(b_type)));
  const bool ok = (ab == DataType::f32 && cd == DataType::f32) || (ab == DataType::bf16 && (cd == DataType::f32 || cd == DataType::bf16)) ||
                  (ab == DataType::f16 && (cd == DataType::f32 || cd == DataType::f16));
  if (!ok)
    throw Unsupported(fmt::format("d.type: {} operands give f32{} output, not {}", to_string(ab),
                                  ab == DataType::f32 ? "" : fmt::format(" or {}", to_string(ab)), to_string(cd)));
  if (compute != Compute::f32 && compute != Compute::tf32)
    invalid("compute", fmt::format("{} is not one of the enumeration's values", int(compute)));
}

// What gemm and grouped gemm share: C, D, the scalars, the epilogue and the modes. rows_d is m
// (or the grouped total); `batch` items (1 for grouped). Fills the row-major C/D fields of p.
void common(Problem& p, const Matrix& c, const MatrixOut& d, const Scalar& alpha, const Scalar& beta,
            const Epilogue& e, Determinism det, std::int64_t batch, bool grouped, std::int64_t bias_groups = 1) {
  check_enum(valid(d.order), "d.order", int(d.order));
  check_enum(det <= Determinism::fast, "determinism", int(det));
  if (!d.data) invalid("d.data", "is null");
  check_aligned(d.data, d.type, "d.data");
  if (d.batch_stride < 0) invalid("d.batch_stride", fmt::format("{} is negative", d.batch_stride));
  if (batch > 1 && d.batch_stride == 0)
    invalid("d.batch_stride", fmt::format("is 0 with batch = {}: every item would write the same D", batch));
  check_scalar(alpha, "alpha");
  check_scalar(beta, "beta");
  p.alpha = alpha.value;
  p.alpha_ptr = alpha.device;
  p.beta = beta.device ? 0.0f : beta.value;
  p.beta_ptr = beta.device;
  p.determinism = det;
  const std::int64_t m = p.m, n = p.n;
  p.d = d.data;
  p.ldd = resolve_ld(d.ld, d.order, m, n, "d");
  p.stride_d = d.batch_stride;
  if (grouped && d.order != Order::row_major)
    invalid("d.order", "grouped GEMM writes a row-major D (the groups are row ranges)");
  const Span d_span = span_of(d.data, d.type, d.order == Order::row_major ? m : n, d.order == Order::row_major ? n : m,
                              p.ldd, batch, d.batch_stride, {"d.data", "d.ld", "d.batch_stride"});
  // Items of D that share memory would race for it: a silent wrong answer, so refused.
  if (batch > 1 && items_overlap(d.order == Order::row_major ? m : n, d.order == Order::row_major ? n : m, p.ldd, batch,
                                 d.batch_stride))
    invalid("d.batch_stride", fmt::format("{} makes batch items of D share memory (one item spans {} elements with "
                                          "ld = {}); items must not overlap",
                                          d.batch_stride, (d.order == Order::row_major ? m - 1 : n - 1) * p.ldd +
                                                              (d.order == Order::row_major ? n : m),
                                          p.ldd));

  if (p.reads_c()) {
    check_enum(valid(c.order), "c.order", int(c.order));
    if (!c.data) invalid("c.data", beta.device ? "is null, but beta is a device pointer (C is read when *beta != 0)"
                                               : fmt::format("is null, but beta = {} reads C", beta.value));
    if (c.type != d.type)
      throw Unsupported(fmt::format("c.type: C is {} and D is {}; C and D share one type", to_string(c.type), to_string(d.type)));
    if (c.order != d.order) invalid("c.order", fmt::format("is {} and D is {}; C and D share one order", to_string(c.order), to_string(d.order)));
    if (c.scale) invalid("c.scale", "per-operand scales are reserved for FP8 and must be null");
    if (c.batch_stride < 0) invalid("c.batch_stride", fmt::format("{} is negative", c.batch_stride));
    check_aligned(c.data, c.type, "c.data");
    p.c = c.data;
    p.ldc = resolve_ld(c.ld, c.order, m, n, "c");
    p.stride_c = c.batch_stride;
    if (c.data == d.data) {
      if (p.ldc != p.ldd || p.stride_c != p.stride_d)
        invalid("c", "is D's memory with another leading dimension or batch stride; C may be D only as the same view");
    } else {
      const Span c_span = span_of(c.data, c.type, c.order == Order::row_major ? m : n,
                                  c.order == Order::row_major ? n : m, p.ldc, batch, c.batch_stride,
                                  {"c.data", "c.ld", "c.batch_stride"});
      if (c_span.overlaps(d_span)) invalid("c", "overlaps D without being the same view of it");
    }
  }

  check_enum(e.bias_kind <= BiasKind::per_column, "epilogue.bias_kind", int(e.bias_kind));
  check_enum(e.activation <= Activation::silu, "epilogue.activation", int(e.activation));
  p.act = e.activation;
  p.bias_kind = e.bias_kind;
  if (e.bias_kind == BiasKind::none) {
    if (e.bias) invalid("epilogue.bias", "is given but bias_kind is none");
  } else {
    if (!e.bias) invalid("epilogue.bias", fmt::format("is null, but bias_kind is {}", to_string(e.bias_kind)));
    const DataType bt = e.bias_type.value_or(d.type);
    check_enum(valid(bt), "epilogue.bias_type", int(bt));
    if (bt != DataType::f32 && bt != d.type)
      throw Unsupported(fmt::format("epilogue.bias_type: a bias is f32 or D's type ({}), not {}", to_string(d.type),
                                    to_string(bt)));
    if (e.bias_batch_stride < 0) invalid("epilogue.bias_batch_stride", fmt::format("{} is negative", e.bias_batch_stride));
    if (grouped && e.bias_kind == BiasKind::per_row && e.bias_batch_stride != 0)
      invalid("epilogue.bias_batch_stride", "a per-row bias of a grouped GEMM runs over all m rows: the stride must be 0");
    check_aligned(e.bias, bt, "epilogue.bias");
    p.bias = e.bias;
    p.bias_type = bt;
    p.bias_stride = e.bias_batch_stride;
    const std::int64_t len = e.bias_kind == BiasKind::per_row ? m : n;
    // A grouped call's per-column bias has one vector per group (`bias_groups`, the group count).
    const Span b_span = span_of(e.bias, bt, 1, len, len, grouped ? bias_groups : batch, e.bias_batch_stride,
                                {"epilogue.bias", "", "epilogue.bias_batch_stride"});
    if (b_span.overlaps(d_span)) invalid("epilogue.bias", "overlaps D");
  }
}

void check_dims(std::int64_t m, std::int64_t n, std::int64_t k, bool m_may_be_zero) {
  for (auto [name, v] : {std::pair{"m", m}, std::pair{"n", n}, std::pair{"k", k}}) {
    const bool zero_ok = m_may_be_zero && name[0] == 'm';
    if (v < (zero_ok ? 0 : 1)) invalid(name, fmt::format("{} is not a valid size (at least {})", v, zero_ok ? 0 : 1));
    if (v > kMaxDim) invalid(name, fmt::format("{} exceeds the largest supported size, {}", v, kMaxDim));
  }
}

// Operands must not share memory with D: the kernels read them while D is written.
void check_inputs_apart(const Problem& p, const Span& a, const Span& b, const Span& d) {
  if (a.overlaps(d)) invalid("d", "overlaps A; D must not share memory with the operands");
  if (b.overlaps(d)) invalid("d", "overlaps B; D must not share memory with the operands");
  (void)p;
}

// A column-major D: compute D^T instead (see problem.hpp).
void transpose_problem(Problem& p) {
  std::swap(p.m, p.n);
  std::swap(p.a, p.b);
  if (p.bias_kind == BiasKind::per_row) p.bias_kind = BiasKind::per_column;
  else if (p.bias_kind == BiasKind::per_column) p.bias_kind = BiasKind::per_row;
  p.transposed = true;
}

// What a plain and a grouped call share: the enums checked, the types offered, the sizes.
template <class Call>
Problem typed_problem(const Call& g) {
  check_enum(valid(g.op_a), "op_a", int(g.op_a));
  check_enum(valid(g.op_b), "op_b", int(g.op_b));
  check_enum(valid(g.a.type), "a.type", int(g.a.type));
  check_enum(valid(g.b.type), "b.type", int(g.b.type));
  check_enum(valid(g.d.type), "d.type", int(g.d.type));
  check_types(g.a.type, g.b.type, g.d.type, g.compute);
  Problem p;
  p.ab = g.a.type;
  p.cd = g.d.type;
  p.tf32 = g.compute == Compute::tf32 && p.ab == DataType::f32;
  p.m = g.m, p.n = g.n, p.k = g.k;
  return p;
}

}  // namespace

std::int64_t span_elements(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
                           std::int64_t stride) {
  if (rows <= 0 || cols <= 0) return 0;
  return (batch - 1) * stride + (rows - 1) * ld + cols;
}

const char* Problem::layout_name() const {
  static const char* const names[2][2] = {{"TT", "TN"}, {"NT", "NN"}};  // [a.k_major][!b.k_major]
  return names[a.k_major ? 1 : 0][b.k_major ? 0 : 1];
}

Problem normalize(const Gemm& g) {
  check_dims(g.m, g.n, g.k, false);
  if (g.batch < 1) invalid("batch", fmt::format("{} is not a valid batch count (at least 1)", g.batch));
  if (g.batch > kMaxDim) invalid("batch", fmt::format("{} exceeds the largest supported batch, {}", g.batch, kMaxDim));
  Problem p = typed_problem(g);
  p.batch = g.batch;
  p.a = make_operand(g.a, g.op_a, g.m, g.k, false, g.batch, "a");
  p.b = make_operand(g.b, g.op_b, g.k, g.n, true, g.batch, "b");
  common(p, g.c, g.d, g.alpha, g.beta, g.epilogue, g.determinism, g.batch, false);
  const Span d = span_of(g.d.data, g.d.type, g.d.order == Order::row_major ? g.m : g.n,
                         g.d.order == Order::row_major ? g.n : g.m, p.ldd, g.batch, p.stride_d,
                         {"d.data", "d.ld", "d.batch_stride"});
  auto operand_span = [&](const Operand& o, std::int64_t rows_k_major, std::int64_t k, const SpanNames& names) {
    // stored with `ld` between lines of the contiguous index
    return o.k_major ? span_of(o.ptr, p.ab, rows_k_major, k, o.ld, g.batch, o.stride, names)
                     : span_of(o.ptr, p.ab, k, rows_k_major, o.ld, g.batch, o.stride, names);
  };
  check_inputs_apart(p, operand_span(p.a, g.m, g.k, {"a.data", "a.ld", "a.batch_stride"}),
                     operand_span(p.b, g.n, g.k, {"b.data", "b.ld", "b.batch_stride"}), d);
  if (g.d.order == Order::col_major) transpose_problem(p);
  return p;
}

Problem normalize(const GroupedGemm& g) {
  if (g.groups < 1) invalid("groups", fmt::format("{} is not a valid group count (at least 1)", g.groups));
  if (!g.offsets) invalid("offsets", "is null");
  if (reinterpret_cast<std::uintptr_t>(g.offsets) % alignof(std::int32_t) != 0)
    invalid("offsets", "is not aligned to 4 bytes");
  check_dims(g.m, g.n, g.k, true);
  Problem p = typed_problem(g);
  p.groups = g.groups;
  p.offsets = g.offsets;
  const std::int64_t rows = std::max<std::int64_t>(g.m, 1);  // an empty call still names valid operands
  p.a = make_operand(g.a, g.op_a, rows, g.k, false, 1, "a");
  if (g.a.batch_stride != 0) invalid("a.batch_stride", "grouped GEMM stacks the groups' rows of A: the stride must be 0");
  p.b = make_operand(g.b, g.op_b, g.k, g.n, true, g.groups, "b");
  if (g.d.batch_stride != 0) invalid("d.batch_stride", "grouped GEMM stacks the groups' rows of D: the stride must be 0");
  const std::int64_t saved_m = p.m;
  p.m = rows;
  common(p, g.c, g.d, g.alpha, g.beta, g.epilogue, g.determinism, 1, true, std::max<std::int64_t>(1, g.groups));
  p.m = saved_m;
  if (p.reads_c() && g.c.batch_stride != 0)
    invalid("c.batch_stride", "grouped GEMM stacks the groups' rows of C: the stride must be 0");
  const Span d = span_of(g.d.data, g.d.type, rows, g.n, p.ldd, 1, 0, {"d.data", "d.ld", "d.batch_stride"});
  const SpanNames a_names{"a.data", "a.ld", "a.batch_stride"}, b_names{"b.data", "b.ld", "b.batch_stride"};
  const Span a = p.a.k_major ? span_of(p.a.ptr, p.ab, rows, g.k, p.a.ld, 1, 0, a_names)
                             : span_of(p.a.ptr, p.ab, g.k, rows, p.a.ld, 1, 0, a_names);
  const Span b = p.b.k_major ? span_of(p.b.ptr, p.ab, g.n, g.k, p.b.ld, g.groups, p.b.stride, b_names)
                             : span_of(p.b.ptr, p.ab, g.k, g.n, p.b.ld, g.groups, p.b.stride, b_names);
  check_inputs_apart(p, a, b, d);
  return p;
}

}  // namespace gemmlab::detail
