// gemmlab bench: the library's calls next to their baselines, case by case. Each case is a public
// API call (gemmlab::gemm on the lab's context) and the same call through cuBLAS or cuBLASLt: same
// types, layouts, batch and epilogue, in the same process, timed alternately run by run (CUDA
// events, warm-up first, median and spread), both results checked against float64 once.
//
// Suites (--suite, several allowed):
//   layouts   every layout combination of each precision at one shape, and D column-major; the
//             share of cuBLAS and of the NN figure of the same shape
//   squares   auto at 4096^3 and 8192^3 in FP32, TF32, BF16, FP16
//   batched   strided batched BF16: 256 x 128^3 and 1024 x 64^3 (batch x M=N=K)
//   grouped   grouped BF16 (mixture of experts): 8 uneven groups of 16384 rows, N=4096, K=7168, and 64
//             groups of 8192 rows, N=2048, K=7168 (L2 flushed: memory-bound; share of the DRAM roof)
//   shapes    the shape suite (sweep/suite.hpp) in each precision: auto against cuBLAS shape by
//             shape, memory-bound shapes with the L2 flushed and their share of the DRAM roof;
//             the geometric mean, the worst shape and the shapes under 90% per precision
//   heldout   the same on shapes drawn at random from the suite's kinds (sweep/suite.hpp
//             held_out_shapes, --heldout-seed, --heldout-count), none of them a suite shape: the
//             check that what holds on the suite holds on shapes nothing was tuned to
//   call      one call described on the command line (-m -n -k or --size, --precision, --layout,
//             --d-order, --batch or --groups, --bias, --activation, --determinism): the suite a user
//             runs on their own problem; the L2 flushed where the shape is memory-bound (--l2)
//   epilogue  4096^3 (or each of --epilogue-sizes) with a fused bias + GELU against the same call
//             without it, in each precision,
//             next to cuBLASLt's GELU_BIAS against its plain call; in BF16 also the epilogue's parts
//             alone (bias, GELU, ReLU), each against its cuBLASLt counterpart
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include <fmt/format.h>

#include "cli/api_options.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "gemmlab/gemmlab.hpp"
#include "harness/anchors.hpp"
#include "harness/l2_flush.hpp"
#include "harness/timing.hpp"
#include "reference/api_reference.hpp"
#include "results/record.hpp"
#include "sweep/suite.hpp"

namespace gemmlab::cli {

namespace {

using apiref::Layout;
using apiref::TestMatrix;

struct BenchOptions {
  std::vector<std::string> suites{"layouts", "squares", "batched", "grouped", "epilogue"};
  std::int64_t layout_size = 4096;
  std::vector<std::int64_t> epilogue_sizes{4096};
  int iters = 30;
  std::string json;
  std::string precisions = "fp32,tf32,bf16,fp16";
  double shape_seconds = 1.0;  // timed time per side and shape in the shapes and heldout suites
  unsigned heldout_seed = 1;
  int heldout_count = 30;
  // The call suite: one problem described as `gemmlab explain` takes it.
  ShapeOptions call_shape;
  ApiOptions call;
  std::string l2 = "auto";  // auto (flushed where memory-bound), hot or cold
};

// Checks the options before the GPU is opened, so that a mistake is named even where there is
// none; fills in the call suite where a problem is given and no suite is named.
void resolve_suites(BenchOptions& o, bool suites_given) {
  static const std::vector<std::string> kSuites{"layouts", "squares", "batched", "grouped", "call", "epilogue", "shapes", "heldout"};
  for (const std::string& s : o.suites)
    if (std::find(kSuites.begin(), kSuites.end(), s) == kSuites.end())
      throw Error(fmt::format("--suite: '{}' is not one of {}", s, fmt::join(kSuites, ", ")));
  const bool problem = o.call_shape.given();
  if (problem && !suites_given) o.suites = {"call"};
  const bool call = std::find(o.suites.begin(), o.suites.end(), "call") != o.suites.end();
  if (call && !problem) throw Error("--suite call: give the problem's size, --size N or -m M -n N -k K");
  if (!call && problem) throw Error("-m, -n, -k and --size describe the call suite's problem: add --suite call");
  if (const std::string opt = o.call.first_given(); !call && !opt.empty())
    throw Error(fmt::format("{} describes the call suite's problem: give it with -m M -n N -k K (or --size N)", opt));
  if (!call) return;
  o.call_shape.resolve();  // validates
  Gemm g;
  o.call.describe(g);  // names a bad --precision, --layout, --bias ...
  if (o.call.groups > 0 && o.call.batch > 1) throw Error("--groups and --batch: a call is grouped or batched, not both");
  if (o.call.groups > 0 && o.call.d_order != "row")
    throw Error("--d-order: grouped GEMM writes a row-major D (the groups are row ranges)");
}

SuiteTypes types_of(const std::string& p, bool same_out) {
  if (const std::optional<SuiteTypes> t = suite_types(p, same_out)) return *t;
  throw Error(fmt::format("--precisions: '{}' is not one of fp32, tf32, bf16, fp16", p));
}

// One measured case: our call and the anchor's, timed alternately.
struct Row {
  std::string suite, name, anchor;
  double ms = 0, p10 = 0, p90 = 0, anchor_ms = 0;
  double flops = 0, bytes = 0;  // bytes: the fewest DRAM bytes (inputs once, output once)
  // A fused call's cost (epilogue suite): the same call without its epilogue, ours and the
  // anchor's, timed in the same rounds as the fused ones; 0 where not measured.
  double plain_ms = 0, anchor_plain_ms = 0;
  bool passed = false, anchor_passed = false;
  std::string check;
  std::string plan;
  bool cold = false;  // timed with the L2 flushed (memory-bound)
  bool held = false;  // the timed runs were enqueued behind a hold (harness/hold.hpp)
  double ratio() const { return ms > 0 ? anchor_ms / ms : 0; }
  std::string precision() const { return name.substr(0, name.find(' ')); }  // names start with it
  // The time of the fewest bytes at the DRAM roof (copy bandwidth in GB/s, read + write).
  double roof_ms(double copy_gbs) const { return bytes / (copy_gbs * 1e9) * 1e3; }
};

class Bench {
 public:
  Bench(const BenchOptions& o) : o_(o) {
    std::cout << fmt::format("gemmlab bench on {} ({} SMs, {} MHz max SM clock), library dispatch table: {}\n",
                             lab_.device().name, lab_.device().sm_count, lab_.device().clock_khz / 1000,
                             lab_.library().table_source());
    std::cout << fmt::format("each case: {} timed runs of gemmlab and of its anchor, alternating, after 3 warm-ups, "
                             "enqueued behind a hold so that they reach the GPU back to back; medians; both results "
                             "checked against float64\n\n",
                             o.iters);
  }

  Lab& lab() { return lab_; }
  const std::vector<Row>& rows() const { return rows_; }

  // A dense or batched call: A, B, D (and a bias) made from layouts, filled, checked, timed. A fused
  // call is timed in the same rounds as the call without its epilogue (ours and the anchor's), so
  // that its cost is not a difference between cases run seconds apart, whose clocks may differ.
  Row gemm_case(const std::string& suite, const std::string& name, Gemm g, bool cold, double max_seconds = 10.0) {
    const cudaStream_t s = lab_.stream();
    const std::int64_t batch = g.batch;
    Layout la = apiref::batched(apiref::operand_layout(g.a.type, g.a.order, g.op_a, g.m, g.k), batch);
    Layout lb = apiref::batched(apiref::operand_layout(g.b.type, g.b.order, g.op_b, g.k, g.n), batch);
    Layout ld = apiref::batched(apiref::operand_layout(g.d.type, g.d.order, Op::none, g.m, g.n), batch);
    TestMatrix a(la, s), b(lb, s), d(ld, s), d2(ld, s);
    a.fill_uniform(11, 1, s);
    b.fill_uniform(11, 2, s);
    const Matrix ai = a.input(), bi = b.input();
    g.a = ai, g.b = bi, g.d = d.output();
    const std::unique_ptr<TestMatrix> bias = bias_for(g, 11);
    const apiref::Reference ref = apiref::reference(g, g.alpha.value, 0.0, s);
    const Tolerance tol = apiref::tolerance_for(g.a.type, g.d.type, g.compute);
    Gemm g2 = g;
    g2.d = d2.output();
    const anchor::Anchor anc = anchor::cublas_for(lab_, g2);
    Row r;
    r.suite = suite, r.name = name, r.anchor = anc.name;
    r.flops = 2.0 * double(g.m) * double(g.n) * double(g.k) * double(batch);
    r.bytes = double(la.span() + lb.span()) * double(size_of(g.a.type)) + double(ld.span()) * double(size_of(g.d.type));
    const Context& ctx = lab_.library();
    r.plan = describe_plan(plan(ctx, g));
    r.cold = cold;
    auto ours = [&] { gemm(ctx, g, s); };
    check_both(r, ours, anc, d, d2, ref, tol);
    if (g.epilogue.bias_kind == BiasKind::none && g.epilogue.activation == Activation::none) {
      time(r, {ours, anc.run}, cold, max_seconds);
      return add(r);
    }
    Gemm plain_g = g, plain_g2 = g2;
    plain_g.epilogue = plain_g2.epilogue = Epilogue{};
    const anchor::Anchor plain_anc = anchor::cublas_for(lab_, plain_g2);
    const std::vector<Timing> t = time(r, {ours, anc.run, [&] { gemm(ctx, plain_g, s); }, plain_anc.run}, cold, max_seconds);
    r.plain_ms = t[2].ms.median, r.anchor_plain_ms = t[3].ms.median;
    return add(r);
  }

  Row grouped_case(const std::string& suite, const std::string& name, GroupedGemm g, const std::vector<std::int32_t>& ends,
                   bool cold) {
    const cudaStream_t s = lab_.stream();
    Layout la = apiref::operand_layout(g.a.type, g.a.order, g.op_a, g.m, g.k);
    Layout lb = apiref::batched(apiref::operand_layout(g.b.type, g.b.order, g.op_b, g.k, g.n), g.groups);
    Layout ld = apiref::operand_layout(g.d.type, Order::row_major, Op::none, g.m, g.n);
    TestMatrix a(la, s), b(lb, s), d(ld, s), d2(ld, s);
    a.fill_uniform(12, 1, s);
    b.fill_uniform(12, 2, s);
    DeviceBuffer offsets(ends.size() * sizeof(std::int32_t));
    GEMMLAB_CUDA(cudaMemcpy(offsets.get(), ends.data(), offsets.bytes(), cudaMemcpyHostToDevice));
    g.a = a.input(), g.b = b.input(), g.d = d.output();
    g.offsets = offsets.as<std::int32_t>();
    const std::unique_ptr<TestMatrix> bias = bias_for(g, 12);
    const apiref::Reference ref = apiref::reference(g, g.alpha.value, 0.0, s);
    const Tolerance tol = apiref::tolerance_for(g.a.type, g.d.type, g.compute);
    GroupedGemm g2 = g;
    g2.d = d2.output();
    const anchor::Anchor anc = anchor::cublas_grouped_for(lab_, g2, ends);
    Row r;
    r.suite = suite, r.name = name, r.anchor = anc.name;
    const std::int64_t rows = ends.empty() ? 0 : ends.back();
    r.flops = 2.0 * double(rows) * double(g.n) * double(g.k);
    r.bytes = double(la.span() + lb.span()) * double(size_of(g.a.type)) + double(rows * g.n) * double(size_of(g.d.type));
    const Context& ctx = lab_.library();
    r.plan = describe_plan(plan(ctx, g));
    auto ours = [&] { gemm(ctx, g, s); };
    check_both(r, ours, anc, d, d2, ref, tol);
    time(r, {ours, anc.run}, cold);
    return add(r);
  }

  // Device-to-device copy bandwidth (bytes read + written per second), the DRAM roof of
  // memory-bound cases.
  double copy_bandwidth() {
    if (copy_gbs_ > 0) return copy_gbs_;
    const std::size_t bytes = std::size_t(1) << 31;
    DeviceBuffer src(bytes), dst(bytes);
    GEMMLAB_CUDA(cudaMemsetAsync(src.get(), 1, bytes, lab_.stream()));
    TimingPlan plan{3, 20, 5.0, false};
    const Timing t = time_runs(lab_, plan, [&] {
      GEMMLAB_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, lab_.stream()));
    });
    copy_gbs_ = 2.0 * double(bytes) / (t.ms.median * 1e-3) / 1e9;
    return copy_gbs_;
  }

 private:
  // Each side once, into its own poisoned D, checked against the float64 reference.
  template <class Run>
  void check_both(Row& r, const Run& ours, const anchor::Anchor& anc, TestMatrix& d, TestMatrix& d2,
                  const apiref::Reference& ref, const Tolerance& tol) {
    const cudaStream_t s = lab_.stream();
    d.poison(s);
    ours();
    const apiref::OutputCheck c1 = apiref::check_output(d, ref, tol, s);
    d2.poison(s);
    anc.run();
    const apiref::OutputCheck c2 = apiref::check_output(d2, ref, tol, s);
    r.passed = c1.passed(), r.anchor_passed = c2.verification.passed;
    r.check = fmt::format("{}{}", c1.passed() ? "ok" : "FAIL " + c1.summary(), c2.verification.passed ? "" : "; anchor: " + c2.summary());
  }

  // The epilogue's bias vector (random), where the call has one; points g at it.
  template <class G>
  std::unique_ptr<TestMatrix> bias_for(G& g, std::uint64_t seed) {
    if (g.epilogue.bias_kind == BiasKind::none) return nullptr;
    const std::int64_t len = g.epilogue.bias_kind == BiasKind::per_row ? g.m : g.n;
    auto bias = std::make_unique<TestMatrix>(Layout{g.epilogue.bias_type.value_or(g.d.type), Order::row_major, 1, len}, lab_.stream());
    bias->fill_uniform(seed, 3, lab_.stream());
    g.epilogue.bias = bias->data();
    return bias;
  }

  static std::string describe_plan(const Plan& p) { return fmt::format("{} {}", p.kernel, p.config); }

  // runs[0] is ours, runs[1] the anchor's, any others timed beside them; returns every run's timing.
  std::vector<Timing> time(Row& r, const std::vector<std::function<void()>>& runs, bool cold, double max_seconds = 10.0) {
    TimingPlan plan{3, o_.iters, max_seconds, cold};
    std::vector<Timing> t = time_interleaved(lab_, plan, runs, std::vector<std::function<void()>>(runs.size()));
    r.ms = t[0].ms.median, r.p10 = t[0].ms.p10, r.p90 = t[0].ms.p90;
    r.anchor_ms = t[1].ms.median;
    r.held = t[0].held;
    return t;
  }

  Row add(const Row& r) {
    rows_.push_back(r);
    std::cerr << fmt::format("  {:<9} {:<44} {:>9.4f} ms  {:>9.4f} ms ({})  {:>6.1f}%  {}\n", r.suite, r.name, r.ms,
                             r.anchor_ms, r.anchor, 100.0 * r.ratio(), r.check);
    return r;
  }

  const BenchOptions& o_;
  Lab lab_;
  std::vector<Row> rows_;
  double copy_gbs_ = 0;
};

// `groups` uneven sizes summing to `total`: weights 0.33 + 1.67 * frac(i * golden ratio), a fixed
// sequence (between a third and twice the mean) that scripts/device/torch_anchors.py reproduces
// exactly for torch._grouped_mm. Returns the cumulative ends (the API's offsets).
std::vector<std::int32_t> uneven_groups(int groups, std::int64_t total) {
  std::vector<double> weights(static_cast<std::size_t>(groups));
  double sum = 0;
  for (int i = 0; i < groups; ++i) {
    const double x = double(i + 1) * 0.6180339887498949;
    sum += (weights[std::size_t(i)] = 0.33 + 1.67 * (x - std::floor(x)));
  }
  std::vector<std::int32_t> ends;
  double run = 0;
  for (int i = 0; i < groups; ++i) {
    run += weights[std::size_t(i)];
    ends.push_back(i + 1 == groups ? std::int32_t(total) : std::int32_t(std::floor(run / sum * double(total) + 0.5)));
  }
  return ends;
}

void print_table(const std::vector<Row>& rows, double copy_gbs) {
  Table t({"suite", "case", "gemmlab ms", "p10-p90 ms", "anchor", "anchor ms", "share", "TFLOPS", "note", "check"});
  std::map<std::string, double> nn_ms;  // "<suite>/<precision>" -> the NN time
  for (const Row& r : rows)
    if (r.suite == "layouts" && r.name.find(" NN ") != std::string::npos && r.name.find("D col") == std::string::npos)
      nn_ms[r.precision()] = r.ms;
  for (const Row& r : rows) {
    std::string note;
    // The cases judged by the DRAM roof: the grouped memory-bound case, the shape suites' cold
    // shapes and a call timed cold.
    const bool roofed = (r.suite == "grouped" && r.name.find(" groups,") != std::string::npos) ||
                        ((r.suite == "shapes" || r.suite == "heldout" || r.suite == "call") && r.cold);
    if (r.suite == "layouts") {
      const auto it = nn_ms.find(r.precision());
      if (it != nn_ms.end()) note = fmt::format("{:.1f}% of NN", 100.0 * it->second / r.ms);
    } else if (roofed && copy_gbs > 0) {
      note = fmt::format("{:.1f}% of DRAM roof ({:.2f} ms)", 100.0 * r.roof_ms(copy_gbs) / r.ms, r.roof_ms(copy_gbs));
    }
    t.add({r.suite, r.name, fmt_ms(r.ms), fmt::format("{}-{}", fmt_ms(r.p10), fmt_ms(r.p90)), r.anchor, fmt_ms(r.anchor_ms),
           fmt_percent(r.ratio()), fmt::format("{:.1f}", r.flops / (r.ms * 1e-3) / 1e12), note, r.check});
  }
  t.print(std::cout);
}

// A shape suite ("shapes" or "heldout") per precision: the geometric mean of the share of cuBLAS,
// the worst shape, the shapes under 90%, and for the memory-bound shapes (timed with the L2
// flushed) the share of the DRAM roof, gemmlab's and cuBLAS's.
void print_suite_summary(const std::vector<Row>& rows, double copy_gbs, const std::string& suite, const std::string& title) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Row*>> by_precision;
  for (const Row& r : rows) {
    if (r.suite != suite) continue;
    const std::string p = r.precision();
    if (!by_precision.count(p)) order.push_back(p);
    by_precision[p].push_back(&r);
  }
  if (order.empty()) return;
  Table t({"precision", "shapes", "geomean", "worst", "worst shape", "under 90%", "memory-bound: roof share", "cuBLAS's"});
  for (const std::string& p : order) {
    const auto& v = by_precision[p];
    double log_sum = 0;
    const Row* worst = v.front();
    int under = 0, cold = 0;
    double roof = 0, anchor_roof = 0;
    for (const Row* r : v) {
      log_sum += std::log(r->ratio());
      if (r->ratio() < worst->ratio()) worst = r;
      under += r->ratio() < 0.9;
      if (r->cold && copy_gbs > 0) {
        roof += r->roof_ms(copy_gbs) / r->ms, anchor_roof += r->roof_ms(copy_gbs) / r->anchor_ms;
        ++cold;
      }
    }
    const std::string shape = worst->name.substr(worst->name.find(' ') + 1);
    t.add({p, std::to_string(v.size()), fmt_percent(std::exp(log_sum / double(v.size()))), fmt_percent(worst->ratio()), shape,
           std::to_string(under),
           cold ? fmt::format("{:.1f}% (mean of {})", 100.0 * roof / cold, cold) : std::string("-"),
           cold ? fmt::format("{:.1f}%", 100.0 * anchor_roof / cold) : std::string("-")});
  }
  std::cout << "\n" << title << ": gemmlab auto against cuBLAS, share = cuBLAS time / gemmlab time\n";
  t.print(std::cout);
}

// The call suite's problem, split evenly into groups where --groups asks for them (the API's
// offsets: each group's end row).
void call_case(Bench& b, const BenchOptions& o) {
  const Shape s = o.call_shape.resolve();
  const bool cold = o.l2 == "cold" || (o.l2 == "auto" && memory_bound(s));
  const std::string name = fmt::format("{} {}x{}x{}{}", o.call.precision, s.m, s.n, s.k,
                                       o.call.summary().substr(o.call.precision.size()));
  try {
    if (o.call.groups > 0) {
      GroupedGemm g;
      o.call.describe(g);
      g.m = s.m, g.n = s.n, g.k = s.k;
      std::vector<std::int32_t> ends;
      for (int i = 1; i <= g.groups; ++i) ends.push_back(std::int32_t(s.m * i / g.groups));
      b.grouped_case("call", name, g, ends, cold);
    } else {
      Gemm g;
      o.call.describe(g);
      g.m = s.m, g.n = s.n, g.k = s.k;
      b.gemm_case("call", name, g, cold);
    }
  } catch (const Unsupported& e) {
    // Mostly the anchor's: a call cuBLAS has no equivalent of (SiLU, a bias cuBLASLt cannot lay
    // along D, an epilogue on a batched or grouped call). `gemmlab explain` still shows the library's plan.
    throw Unsupported(fmt::format("--suite call: {}: {}; the call suite times a call against cuBLAS's same call", name, e.what()));
  }
}

void bench(const BenchOptions& o) {
  Bench b(o);
  std::vector<std::string> precisions;
  for (std::size_t p = 0, q; p <= o.precisions.size(); p = q + 1) {
    q = o.precisions.find(',', p);
    if (q == std::string::npos) q = o.precisions.size();
    if (q > p) precisions.push_back(o.precisions.substr(p, q - p));
  }
  auto wants = [&](const char* s) { return std::find(o.suites.begin(), o.suites.end(), s) != o.suites.end(); };
  const std::int64_t n = o.layout_size;
  if (wants("layouts")) {
    for (const std::string& p : precisions) {
      const SuiteTypes t = types_of(p, false);
      for (const char* layout : {"NN", "NT", "TN", "TT"})
        b.gemm_case("layouts", fmt::format("{} {} {}^3", p, layout, n), dense_call(t, n, n, n, layout), false);
      b.gemm_case("layouts", fmt::format("{} NN {}^3 D col", p, n), dense_call(t, n, n, n, "NN", true), false);
    }
  }
  if (wants("squares")) {
    for (const std::string& p : precisions)
      for (std::int64_t s : {4096, 8192}) b.gemm_case("squares", fmt::format("{} {}^3", p, s), dense_call(types_of(p, false), s, s, s, "NN"), false);
  }
  if (wants("batched")) {
    const SuiteTypes t = types_of("bf16", true);
    for (auto [batch, size] : {std::pair<std::int64_t, std::int64_t>{256, 128}, {1024, 64}}) {
      Gemm g = dense_call(t, size, size, size, "NN");
      g.batch = batch;
      b.gemm_case("batched", fmt::format("bf16 {} x {}^3", batch, size), g, false);
    }
  }
  if (wants("grouped")) {
    const SuiteTypes t = types_of("bf16", true);
    struct G {
      int groups;
      std::int64_t total, n, k;
      bool cold;
    };
    for (const G& c : {G{8, 16384, 4096, 7168, false}, G{64, 8192, 2048, 7168, true}}) {
      GroupedGemm g;
      g.groups = c.groups;
      g.m = c.total, g.n = c.n, g.k = c.k;
      g.a.type = g.b.type = t.ab;
      g.d.type = g.c.type = t.cd;
      // Expert weights stored N x K (K contiguous), as torch._grouped_mm's fast path wants them.
      g.op_b = Op::transpose;
      b.grouped_case("grouped", fmt::format("bf16 {} groups, {} rows, N={} K={}{}", c.groups, c.total, c.n, c.k,
                                            c.cold ? " (L2 flushed)" : ""),
                     g, uneven_groups(c.groups, c.total), c.cold);
    }
    // What the 8 groups' work takes as one dense GEMM (one B for all rows): the cost of grouping.
    b.gemm_case("grouped", "bf16 dense 16384x4096x7168 NT, one B", dense_call(t, 16384, 4096, 7168, "NT"), false);
  }
  if (wants("call")) call_case(b, o);
  if (wants("epilogue")) {
    // Each precision's fused bias + GELU against its plain call; in BF16 also the parts one at a
    // time, so that a cost can be traced to one of them.
    struct E {
      const char* name;
      BiasKind bias;
      Activation act;
    };
    for (const std::int64_t n : o.epilogue_sizes)
      for (const std::string& p : precisions) {
        const SuiteTypes t = types_of(p, true);
        b.gemm_case("epilogue", fmt::format("{} {}^3 plain", t.name, n), dense_call(t, n, n, n, "NN"), false);
        std::vector<E> parts{E{"bias+gelu", BiasKind::per_column, Activation::gelu_tanh}};
        if (p == "bf16")
          parts.insert(parts.begin(), {E{"bias", BiasKind::per_column, Activation::none}, E{"gelu", BiasKind::none, Activation::gelu_tanh},
                                       E{"relu", BiasKind::none, Activation::relu}});
        for (const E& e : parts) {
          Gemm g = dense_call(t, n, n, n, "NN");
          g.epilogue.bias_kind = e.bias;
          g.epilogue.activation = e.act;
          b.gemm_case("epilogue", fmt::format("{} {}^3 {}", t.name, n, e.name), g, false);
        }
      }
  }
  // D has the operands' type, as in a model's layers (FP32 for fp32 and tf32).
  const auto shape_cases = [&](const char* suite, const std::vector<SuiteShape>& shapes) {
    for (const std::string& p : precisions) {
      const SuiteTypes t = types_of(p, true);
      for (const SuiteShape& sh : shapes) {
        const Shape& x = sh.shape;
        b.gemm_case(suite,
                    fmt::format("{} {}x{}x{}{} {}", t.name, x.m, x.n, x.k, sh.layout == "NN" ? "" : " " + sh.layout, sh.kind),
                    dense_call(t, x.m, x.n, x.k, sh.layout), memory_bound(x), o.shape_seconds);
      }
    }
  };
  if (wants("shapes")) shape_cases("shapes", shape_suite());
  if (wants("heldout")) shape_cases("heldout", held_out_shapes(o.heldout_seed, o.heldout_count));
  const bool cold_call = std::any_of(b.rows().begin(), b.rows().end(), [](const Row& r) { return r.suite == "call" && r.cold; });
  const double copy_gbs = wants("grouped") || wants("shapes") || wants("heldout") || cold_call ? b.copy_bandwidth() : 0;
  std::cout << '\n';
  print_table(b.rows(), copy_gbs);
  if (copy_gbs > 0)
    std::cout << fmt::format("DRAM roof: device-to-device copy at {:.0f} GB/s (read + write); the memory-bound cases "
                             "timed with the L2 flushed by a {} (harness/l2_flush.hpp)\n",
                             copy_gbs, L2Flush::name(L2Flush::mode_from_environment()));
  print_suite_summary(b.rows(), copy_gbs, "shapes", "shape suite");
  print_suite_summary(b.rows(), copy_gbs, "heldout", fmt::format("held-out shapes (seed {})", o.heldout_seed));
  // The epilogue's cost: each fused variant against the same call without it, timed in the same
  // rounds, for gemmlab and for the anchor.
  const auto& rows = b.rows();
  bool costs = false;
  for (const Row& r : rows) {
    if (r.suite != "epilogue" || r.plain_ms <= 0) continue;
    if (!costs) std::cout << "\nthe fused epilogue's cost over the same call without it, timed in the same rounds:\n";
    costs = true;
    const std::string size = r.name.substr(0, r.name.rfind(' '));  // "bf16 4096^3"
    std::cout << fmt::format("{} fused {} costs {:+.1f}% in gemmlab ({:.4f} against {:.4f} ms) and {:+.1f}% in {} ({:.4f} "
                             "against {:.4f} ms)\n",
                             size, r.name.substr(r.name.rfind(' ') + 1), 100.0 * (r.ms / r.plain_ms - 1), r.ms, r.plain_ms,
                             100.0 * (r.anchor_ms / r.anchor_plain_ms - 1), r.anchor, r.anchor_ms, r.anchor_plain_ms);
  }
  if (!o.json.empty()) {
    std::vector<nlohmann::json> records;
    for (const Row& r : rows) {
      records.push_back({{"suite", r.suite}, {"case", r.name}, {"plan", r.plan}, {"median_ms", r.ms}, {"p10_ms", r.p10},
                         {"p90_ms", r.p90}, {"anchor", r.anchor}, {"anchor_median_ms", r.anchor_ms},
                         {"ratio_to_anchor", r.ratio()}, {"flops", r.flops}, {"min_bytes", r.bytes},
                         {"passed", r.passed}, {"anchor_passed", r.anchor_passed}, {"timing_order", "interleaved"},
                         {"timing_held", r.held}, {"l2_flushed", r.cold}});
      if (r.plain_ms > 0) {
        records.back()["plain_median_ms"] = r.plain_ms;
        records.back()["anchor_plain_median_ms"] = r.anchor_plain_ms;
      }
    }
    nlohmann::json ctx = run_context(b.lab().device(), command_line());
    if (copy_gbs > 0) ctx["copy_bandwidth_gbs"] = copy_gbs;
    write_json_file(o.json, ctx, records);
  }
  for (const Row& r : rows)
    if (!r.passed) throw Error(fmt::format("{} {}: the result failed its check ({})", r.suite, r.name, r.check));
}

}  // namespace

void add_bench_command(CLI::App& app) {
  static BenchOptions o;
  auto* cmd = app.add_subcommand("bench", "the library's calls next to cuBLAS / cuBLASLt, case by case (layouts, "
                                          "squares, batched, grouped, call, epilogue, shapes, heldout)");
  auto* suites = cmd->add_option("--suite", o.suites,
                                 "suites to run (repeatable): layouts, squares, batched, grouped, epilogue, shapes (the shape "
                                 "suite: minutes; not in the default set), heldout (random shapes of the suite's kinds), call "
                                 "(the problem given by -m -n -k or --size and the options below; the default when a size is given)")
                     ->capture_default_str();
  cmd->add_option("--layout-size", o.layout_size, "M = N = K of the layouts suite")->capture_default_str();
  cmd->add_option("--epilogue-sizes", o.epilogue_sizes, "M = N = K of the epilogue suite's cases (repeatable)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(65536)))
      ->capture_default_str();
  cmd->add_option("--precisions", o.precisions, "precisions of the layouts and squares suites")->capture_default_str();
  cmd->add_option("--iters", o.iters, "timed runs of each side")->check(CLI::Range(3, 100000))->capture_default_str();
  cmd->add_option("--shape-seconds", o.shape_seconds, "shapes and heldout suites: timed seconds per side and shape at most (3 runs at least)")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  cmd->add_option("--heldout-seed", o.heldout_seed, "heldout suite: the seed its shapes are drawn from")->capture_default_str();
  cmd->add_option("--heldout-count", o.heldout_count, "heldout suite: how many shapes")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--json", o.json, "write every case as JSON");
  o.call_shape.add_to(*cmd);
  o.call.add_to(*cmd);
  cmd->add_option("--l2", o.l2, "call suite: auto (flushed between runs where the shape is memory-bound), hot or cold")
      ->check(CLI::IsMember({"auto", "hot", "cold"}))
      ->capture_default_str();
  cmd->callback([suites] {
    resolve_suites(o, suites->count() > 0);
    bench(o);
  });
}

}  // namespace gemmlab::cli
