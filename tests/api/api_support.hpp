// What the public-API GPU tests share: a fixture with a context and a stream, the paths a problem
// can take (the public gemm() and every kernel choice dispatch offers for it, run on its own), and
// a case runner that checks each path against the float64 reference with D poisoned before it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "api/problem.hpp"
#include "core/buffer.hpp"
#include "core/error.hpp"
#include "core/half.hpp"
#include "dispatch/dispatch.hpp"
#include "gemmlab/gemmlab.hpp"
#include "support/gpu_test.hpp"
#include "reference/api_reference.hpp"

namespace gemmlab::apitest {

using apiref::Layout;
using apiref::OutputCheck;
using apiref::Reference;
using apiref::TestMatrix;

// Random streams of core/fill.hpp's generator, one per operand.
enum : std::uint64_t { kStreamA = 1, kStreamB = 2, kStreamC = 3, kStreamBias = 4 };

// A new seed for every case, the same sequence in every run of the binary (failures reproduce).
inline std::uint64_t fresh_seed() {
  static std::atomic<std::uint64_t> next{20261122};
  return next++;
}

// The scratch memory gemm() would give a kernel (api/gemm.cpp: run).
inline detail::LaunchEnv launch_env(const Context& ctx, cudaStream_t s, const Workspace* ws = nullptr) {
  return detail::LaunchEnv{s, ws ? ws->impl().memory.view() : ctx.impl().workspace.view(), &ctx.impl().device};
}

struct Path {
  std::string name;
  std::function<void()> run;
};

// The public call, then every choice detail::candidates() offers for the problem: new kernel
// families are covered as soon as dispatch lists them.
template <class Call>
std::vector<Path> paths(const Context& ctx, const Call& g, cudaStream_t s, Workspace* ws = nullptr) {
  std::vector<Path> out;
  out.push_back({"gemm()", [&ctx, g, s, ws] { gemm(ctx, g, s, ws); }});
  const detail::Problem p = detail::normalize(g);
  const detail::LaunchEnv env = launch_env(ctx, s, ws);
  for (const detail::Choice& c : detail::candidates(ctx.impl(), p, env.scratch.bytes)) {
    const Plan d = detail::describe(c, p);
    out.push_back({fmt::format("candidate {} [{}]", d.kernel, d.config), [c, p, env] { detail::execute(c, p, env); }});
  }
  return out;
}

inline char order_code(Order o) { return o == Order::row_major ? 'R' : 'C'; }
inline char op_code(Op o) { return o == Op::none ? 'N' : 'T'; }

// The call's alpha and beta: host values, or (gc.scalars_on_device) two floats in `scalars`, copied
// there before the call, as a caller whose scalars a kernel computes would pass them.
template <class Case, class Call>
void set_scalars(const Case& gc, DeviceBuffer& scalars, Call& g, cudaStream_t s) {
  if (!gc.scalars_on_device) {
    g.alpha = float(gc.alpha);
    g.beta = float(gc.beta);
    return;
  }
  const float host[2] = {float(gc.alpha), float(gc.beta)};
  scalars = DeviceBuffer(sizeof(host));
  GEMMLAB_CUDA(cudaMemcpyAsync(scalars.get(), host, sizeof(host), cudaMemcpyHostToDevice, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  g.alpha = Scalar::on_device(scalars.as<float>());
  g.beta = Scalar::on_device(scalars.as<float>() + 1);
}

// One strided-batched case: the public fields a test varies, with the defaults of a plain call.
struct GemmCase {
  DataType ab = DataType::f32, cd = DataType::f32;
  Compute compute = Compute::f32;
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  Order a_order = Order::row_major, b_order = Order::row_major, d_order = Order::row_major;
  Op op_a = Op::none, op_b = Op::none;
  std::int64_t a_pad = 0, b_pad = 0, c_pad = 0, d_pad = 0;  // ld beyond the packed one (0: ld = 0, packed)
  std::int64_t gap = 0;                                     // poisoned elements between batch items
  bool a_broadcast = false, b_broadcast = false;            // batch_stride 0
  std::int64_t misalign = 0;                                // elements off 256-byte alignment, every matrix
  double alpha = 1, beta = 0;
  bool scalars_on_device = false;
  bool c_is_d = false;
  bool c_unread_nan = false;  // beta == 0 with a C left all poison (NaN): C must not be read
  BiasKind bias = BiasKind::none;
  bool bias_f32 = true;       // else D's type
  bool bias_batched = false;  // one vector per item (bias_batch_stride != 0)
  Activation act = Activation::none;
  Determinism det = Determinism::reproducible;

  std::string name() const {
    std::string s = fmt::format("{}->{}{} {}x{}x{}", to_string(ab), to_string(cd),
                                compute == Compute::tf32 ? " tf32" : "", m, n, k);
    if (batch > 1)
      s += fmt::format(" batch {}{}{}", batch, a_broadcast ? " A-bcast" : "", b_broadcast ? " B-bcast" : "");
    s += fmt::format(" A:{}{} B:{}{} D:{}", order_code(a_order), op_code(op_a), order_code(b_order), op_code(op_b),
                     order_code(d_order));
    if (a_pad || b_pad || c_pad || d_pad) s += fmt::format(" pad {}/{}/{}/{}", a_pad, b_pad, c_pad, d_pad);
    if (gap) s += fmt::format(" gap {}", gap);
    if (misalign) s += fmt::format(" misalign {}", misalign);
    if (alpha != 1 || beta != 0) s += fmt::format(" alpha {} beta {}", alpha, beta);
    if (scalars_on_device) s += " scalars-on-device";
    if (c_is_d) s += " C=D";
    if (c_unread_nan) s += " C-NaN";
    if (bias != BiasKind::none)
      s += fmt::format(" bias {} {}{}", to_string(bias), bias_f32 ? "f32" : to_string(cd),
                       bias_batched ? " batched" : "");
    if (act != Activation::none) s += fmt::format(" {}", to_string(act));
    if (det != Determinism::reproducible) s += fmt::format(" {}", to_string(det));
    return s;
  }
};

// The allocations of one case and the call that uses them.
struct GemmSetup {
  TestMatrix a, b, c, d, bias;
  DeviceBuffer scalars;  // alpha, beta as floats when passed by pointer
  Gemm g;
  std::uint64_t seed = 0;
  bool c_is_d = false;

  // D before a run: all poison, or (C is D) poison with C0's values in the logical elements.
  void prepare_d(cudaStream_t s) const {
    d.poison(s);
    if (c_is_d) d.fill_uniform(seed, kStreamC, s);
  }
};

inline GemmSetup make_setup(const GemmCase& gc, std::uint64_t seed, cudaStream_t s) {
  using apiref::batched;
  using apiref::operand_layout;
  GemmSetup st;
  st.seed = seed;
  st.c_is_d = gc.c_is_d;
  st.a = TestMatrix(
      batched(operand_layout(gc.ab, gc.a_order, gc.op_a, gc.m, gc.k, gc.a_pad), gc.batch, gc.gap, gc.a_broadcast), s,
      gc.misalign);
  st.b = TestMatrix(
      batched(operand_layout(gc.ab, gc.b_order, gc.op_b, gc.k, gc.n, gc.b_pad), gc.batch, gc.gap, gc.b_broadcast), s,
      gc.misalign);
  st.d = TestMatrix(batched(operand_layout(gc.cd, gc.d_order, Op::none, gc.m, gc.n, gc.d_pad), gc.batch, gc.gap), s,
                    gc.misalign);
  st.a.fill_uniform(seed, kStreamA, s);
  st.b.fill_uniform(seed, kStreamB, s);
  Gemm& g = st.g;
  g.m = gc.m, g.n = gc.n, g.k = gc.k, g.batch = gc.batch;
  g.a = st.a.input();
  g.b = st.b.input();
  g.op_a = gc.op_a, g.op_b = gc.op_b;
  g.d = st.d.output();
  // A device beta is read when the kernel runs, so C must exist even when it holds 0.
  const bool needs_c = gc.beta != 0 || gc.scalars_on_device || gc.c_unread_nan;
  if (gc.c_is_d) {
    g.c = Matrix{g.d.data, g.d.type, g.d.order, g.d.ld, g.d.batch_stride};
  } else if (needs_c) {
    st.c = TestMatrix(batched(operand_layout(gc.cd, gc.d_order, Op::none, gc.m, gc.n, gc.c_pad), gc.batch, gc.gap), s,
                      gc.misalign);
    if (!gc.c_unread_nan) st.c.fill_uniform(seed, kStreamC, s);
    g.c = st.c.input();
  }
  set_scalars(gc, st.scalars, g, s);
  if (gc.bias != BiasKind::none) {
    Layout lb;
    lb.type = gc.bias_f32 ? DataType::f32 : gc.cd;
    lb.rows = 1;
    lb.cols = gc.bias == BiasKind::per_row ? gc.m : gc.n;
    st.bias = TestMatrix(batched(lb, gc.batch, gc.gap + 3, !gc.bias_batched), s, gc.misalign);
    st.bias.fill_uniform(seed, kStreamBias, s);
    g.epilogue.bias_kind = gc.bias;
    g.epilogue.bias = st.bias.data();
    if (gc.bias_f32) g.epilogue.bias_type = DataType::f32;  // else the default: D's type
    g.epilogue.bias_batch_stride = st.bias.layout().batch_stride;
  }
  g.epilogue.activation = gc.act;
  g.compute = gc.compute;
  g.determinism = gc.det;
  return st;
}

struct CaseResult {
  int paths = 0;
  std::vector<std::string> failures;
};

// Runs `path` with D prepared, checks D, and records a failure (or an exception) under its name.
// Setup: GemmSetup or GroupedSetup (a `d` and a `prepare_d`).
template <class Setup>
void run_and_check(const Path& path, const Setup& st, const Reference& ref, const Tolerance& tol, cudaStream_t s,
                   CaseResult& out) {
  ++out.paths;
  st.prepare_d(s);
  try {
    path.run();
    const OutputCheck chk = apiref::check_output(st.d, ref, tol, s);
    if (!chk.passed()) out.failures.push_back(fmt::format("{}: {}", path.name, chk.summary()));
  } catch (const std::exception& e) {
    out.failures.push_back(fmt::format("{}: threw {}", path.name, e.what()));
  }
}

// A case on fresh random inputs through every path: the reference first (it reads C, which may
// be D), then each path on a freshly poisoned D.
inline CaseResult run_case(const Context& ctx, const GemmCase& gc, cudaStream_t s, Workspace* ws = nullptr) {
  CaseResult out;
  const std::uint64_t seed = fresh_seed();
  const std::string label = fmt::format("{} (seed {})", gc.name(), seed);
  try {
    const GemmSetup st = make_setup(gc, seed, s);
    st.prepare_d(s);
    const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, s);
    const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
    for (const Path& p : paths(ctx, st.g, s, ws)) run_and_check(p, st, ref, tol, s, out);
  } catch (const std::exception& e) {
    out.failures.push_back(fmt::format("setup threw {}", e.what()));
  }
  for (std::string& f : out.failures) f = label + ": " + f;
  return out;
}

// gtest's view of a CaseResult: every failure reported, and at least the public path run.
#define EXPECT_CASE_OK(result)                                              \
  do {                                                                      \
    const ::gemmlab::apitest::CaseResult& r_ = (result);                    \
    for (const std::string& f_ : r_.failures) ADD_FAILURE() << f_;          \
    EXPECT_GE(r_.paths, 2) << "no candidate besides gemm() itself was run"; \
  } while (0)

// ---- Grouped calls -------------------------------------------------------------------------------

// One grouped case: group sizes (offsets are their running sums), unused rows after the last group.
struct GroupedCase {
  DataType ab = DataType::f32, cd = DataType::f32;
  Compute compute = Compute::f32;
  std::vector<std::int32_t> sizes;
  std::int64_t unused = 0;
  std::int64_t n = 1, k = 1;
  Order a_order = Order::row_major, b_order = Order::row_major;
  Op op_a = Op::none, op_b = Op::none;
  std::int64_t a_pad = 0, b_pad = 0, d_pad = 0;
  std::int64_t b_gap = 0;  // poisoned elements between consecutive groups' B
  bool b_shared = false;   // b.batch_stride 0: every group multiplies by the same B
  double alpha = 1, beta = 0;
  bool scalars_on_device = false;
  bool c_is_d = false;
  BiasKind bias = BiasKind::none;
  bool bias_f32 = true;
  bool bias_per_group = false;  // per-column: one vector per group (bias_batch_stride != 0)
  Activation act = Activation::none;
  Determinism det = Determinism::reproducible;

  std::int64_t m() const {
    std::int64_t t = unused;
    for (std::int32_t v : sizes) t += v;
    return t;
  }
  std::vector<std::int32_t> offsets() const {
    std::vector<std::int32_t> o;
    std::int32_t end = 0;
    for (std::int32_t v : sizes) o.push_back(end += v);
    return o;
  }
  std::string name() const {
    std::string s =
        fmt::format("grouped {}->{}{} groups [", to_string(ab), to_string(cd), compute == Compute::tf32 ? " tf32" : "");
    for (std::size_t i = 0; i < sizes.size(); ++i) s += fmt::format("{}{}", i ? " " : "", sizes[i]);
    s += fmt::format("] +{} unused, n {} k {} A:{}{} B:{}{}", unused, n, k, order_code(a_order), op_code(op_a),
                     order_code(b_order), op_code(op_b));
    if (a_pad || b_pad || d_pad || b_gap) s += fmt::format(" pad {}/{}/{} B-gap {}", a_pad, b_pad, d_pad, b_gap);
    if (b_shared) s += " one B";
    if (alpha != 1 || beta != 0) s += fmt::format(" alpha {} beta {}", alpha, beta);
    if (scalars_on_device) s += " scalars-on-device";
    if (c_is_d) s += " C=D";
    if (bias != BiasKind::none)
      s += fmt::format(" bias {} {}{}", to_string(bias), bias_f32 ? "f32" : to_string(cd),
                       bias_per_group ? " per group" : "");
    if (act != Activation::none) s += fmt::format(" {}", to_string(act));
    if (det != Determinism::reproducible) s += fmt::format(" {}", to_string(det));
    return s;
  }
};

struct GroupedSetup {
  TestMatrix a, b, c, d, bias;
  DeviceBuffer offsets, scalars;
  GroupedGemm g;
  std::uint64_t seed = 0;
  bool c_is_d = false;
  std::int64_t rows_used = 0;  // the groups' rows: those past them are not D's and stay poison

  void prepare_d(cudaStream_t s) const {
    d.poison(s);
    if (!c_is_d) return;
    d.fill_uniform(seed, kStreamC, s);
    // D is row-major: everything from the first unused row to the end of the allocation.
    const std::size_t from = std::size_t(rows_used * d.layout().resolved_ld()) * size_of(d.layout().type);
    const auto* base = static_cast<unsigned char*>(d.data());
    const std::size_t end = std::size_t(static_cast<const unsigned char*>(d.allocation()) + d.bytes() - base);
    if (from < end) GEMMLAB_CUDA(cudaMemsetAsync(static_cast<unsigned char*>(d.data()) + from, apiref::kPoison, end - from, s));
  }
  // New routing for the same buffers (a graph replay): `offsets` must have one value per group.
  void set_offsets(const std::vector<std::int32_t>& o, cudaStream_t s) const {
    GEMMLAB_CUDA(cudaMemcpyAsync(offsets.get(), o.data(), o.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, s));
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
  }
};

inline GroupedSetup make_grouped_setup(const GroupedCase& gc, std::uint64_t seed, cudaStream_t s) {
  using apiref::batched;
  using apiref::operand_layout;
  GroupedSetup st;
  st.seed = seed;
  st.c_is_d = gc.c_is_d;
  const std::int64_t m = gc.m(), groups = std::int64_t(gc.sizes.size());
  st.rows_used = m - gc.unused;
  st.a = TestMatrix(operand_layout(gc.ab, gc.a_order, gc.op_a, m, gc.k, gc.a_pad), s);
  st.b = TestMatrix(
      batched(operand_layout(gc.ab, gc.b_order, gc.op_b, gc.k, gc.n, gc.b_pad), groups, gc.b_gap, gc.b_shared), s);
  st.d = TestMatrix(operand_layout(gc.cd, Order::row_major, Op::none, m, gc.n, gc.d_pad), s);
  st.a.fill_uniform(seed, kStreamA, s);
  st.b.fill_uniform(seed, kStreamB, s);
  st.offsets = DeviceBuffer(std::max<std::size_t>(1, gc.sizes.size()) * sizeof(std::int32_t));
  st.set_offsets(gc.offsets(), s);
  GroupedGemm& g = st.g;
  g.groups = int(groups);
  g.offsets = st.offsets.as<std::int32_t>();
  g.m = m, g.n = gc.n, g.k = gc.k;
  g.a = st.a.input();
  g.b = st.b.input();
  g.op_a = gc.op_a, g.op_b = gc.op_b;
  g.d = st.d.output();
  if (gc.c_is_d) {
    g.c = Matrix{g.d.data, g.d.type, g.d.order, g.d.ld, 0};
  } else if (gc.beta != 0 || gc.scalars_on_device) {
    st.c = TestMatrix(operand_layout(gc.cd, Order::row_major, Op::none, m, gc.n, gc.d_pad + 1), s);
    st.c.fill_uniform(seed, kStreamC, s);
    g.c = st.c.input();
  }
  set_scalars(gc, st.scalars, g, s);
  if (gc.bias != BiasKind::none) {
    Layout lb;
    lb.type = gc.bias_f32 ? DataType::f32 : gc.cd;
    lb.rows = 1;
    lb.cols = gc.bias == BiasKind::per_row ? std::max<std::int64_t>(m, 1) : gc.n;
    const bool per_group = gc.bias == BiasKind::per_column && gc.bias_per_group;
    st.bias = TestMatrix(batched(lb, groups, 3, !per_group), s);
    st.bias.fill_uniform(seed, kStreamBias, s);
    g.epilogue.bias_kind = gc.bias;
    g.epilogue.bias = st.bias.data();
    if (gc.bias_f32) g.epilogue.bias_type = DataType::f32;
    g.epilogue.bias_batch_stride = st.bias.layout().batch_stride;
  }
  g.epilogue.activation = gc.act;
  g.compute = gc.compute;
  g.determinism = gc.det;
  return st;
}

inline CaseResult run_grouped_case(const Context& ctx, const GroupedCase& gc, cudaStream_t s, Workspace* ws = nullptr) {
  CaseResult out;
  const std::uint64_t seed = fresh_seed();
  const std::string label = fmt::format("{} (seed {})", gc.name(), seed);
  try {
    const GroupedSetup st = make_grouped_setup(gc, seed, s);
    st.prepare_d(s);
    const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, s);
    const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
    for (const Path& p : paths(ctx, st.g, s, ws)) run_and_check(p, st, ref, tol, s, out);
  } catch (const std::exception& e) {
    out.failures.push_back(fmt::format("setup threw {}", e.what()));
  }
  for (std::string& f : out.failures) f = label + ": " + f;
  return out;
}

// Every offered type combination, with the compute modes that differ for it.
struct TypeCombo {
  DataType ab, cd;
  Compute compute;
};
inline const std::vector<TypeCombo>& type_combos() {
  static const std::vector<TypeCombo> all = {
      {DataType::f32, DataType::f32, Compute::f32},  {DataType::f32, DataType::f32, Compute::tf32},
      {DataType::bf16, DataType::f32, Compute::f32}, {DataType::bf16, DataType::bf16, Compute::f32},
      {DataType::f16, DataType::f32, Compute::f32},  {DataType::f16, DataType::f16, Compute::f32}};
  return all;
}
// How gtest shows a TypeCombo parameter (test names and failure messages).
inline void PrintTo(const TypeCombo& t, std::ostream* os) {
  *os << to_string(t.ab) << "->" << to_string(t.cd) << (t.compute == Compute::tf32 ? " tf32" : "");
}
inline GemmCase with_types(GemmCase c, const TypeCombo& t) {
  c.ab = t.ab, c.cd = t.cd, c.compute = t.compute;
  return c;
}

// Storage of A, B and D: each operand row- or column-major, with or without op = transpose.
struct LayoutCombo {
  Order a_order;
  Op op_a;
  Order b_order;
  Op op_b;
  Order d_order;
};
inline const std::vector<LayoutCombo>& all_layouts() {  // all 32
  static const std::vector<LayoutCombo> all = [] {
    std::vector<LayoutCombo> v;
    for (Order ao : {Order::row_major, Order::col_major})
      for (Op oa : {Op::none, Op::transpose})
        for (Order bo : {Order::row_major, Order::col_major})
          for (Op ob : {Op::none, Op::transpose})
            for (Order d : {Order::row_major, Order::col_major}) v.push_back({ao, oa, bo, ob, d});
    return v;
  }();
  return all;
}
inline GemmCase with_layout(GemmCase c, const LayoutCombo& l) {
  c.a_order = l.a_order, c.op_a = l.op_a, c.b_order = l.b_order, c.op_b = l.op_b, c.d_order = l.d_order;
  return c;
}
// Row-major everything (BLAS "NN" in row-major terms), and column-major everything (BLAS's own NN,
// which the library computes as the transposed row-major problem).
inline constexpr LayoutCombo kRowMajorNN{Order::row_major, Op::none, Order::row_major, Op::none, Order::row_major};
inline constexpr LayoutCombo kColMajorNN{Order::col_major, Op::none, Order::col_major, Op::none, Order::col_major};

// A downloaded TestMatrix, read element by element on the host.
struct HostMatrix {
  const TestMatrix* m;
  std::vector<unsigned char> bytes;
  HostMatrix(const TestMatrix& t, cudaStream_t s) : m(&t), bytes(t.download(s)) {}
  double at(std::int64_t item, std::int64_t r, std::int64_t c) const {
    const std::vector<unsigned char> e = apiref::element_bytes(*m, bytes, item, r, c);
    switch (m->layout().type) {
      case DataType::f32: {
        float f;
        std::memcpy(&f, e.data(), 4);
        return f;
      }
      case DataType::bf16:
      case DataType::f16: {
        std::uint16_t h;
        std::memcpy(&h, e.data(), 2);
        return m->layout().type == DataType::bf16 ? bf16_bits_to_float(h) : half_bits_to_float(h);
      }
      default: throw Error("no host conversion");
    }
  }
  // Element (i, j) of op(X), where X is this stored matrix.
  double op_at(Op op, std::int64_t item, std::int64_t i, std::int64_t j) const {
    return op == Op::none ? at(item, i, j) : at(item, j, i);
  }
};

// A context shared by a suite's tests (made once: it allocates its workspace and reads the
// device) and a non-blocking stream per test, so nothing relies on the legacy default stream.
class ApiTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    if (!context_) context_ = std::make_unique<Context>();
    GEMMLAB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_) {
      cudaStreamSynchronize(stream_);
      cudaStreamDestroy(stream_);
    }
  }
  static void TearDownTestSuite() { context_.reset(); }

  const Context& ctx() const { return *context_; }
  cudaStream_t stream() const { return stream_; }

  static inline std::unique_ptr<Context> context_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace gemmlab::apitest
