// The public API on a GPU: every type combination, layout, awkward shape, leading dimension,
// batch, scalar mode and epilogue, through gemm() and through every kernel choice dispatch offers
// (detail::candidates), each against the float64 reference of src/reference/api_reference.* on
// fresh random inputs with D poisoned before every run (padding, batch gaps and guards included).
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "api/api_support.hpp"
#include "api/late_writer.hpp"
#include "core/fill.hpp"
#include "kernels/library/simt.hpp"
#include "kernels/library/sm90.hpp"
#include "kernels/library/tf32.hpp"

using namespace gemmlab;
using namespace gemmlab::apitest;

namespace {

class ApiTyped : public ApiTest, public ::testing::WithParamInterface<TypeCombo> {
 protected:
  GemmCase base() const { return with_types(GemmCase{}, GetParam()); }
};

std::string type_name(const ::testing::TestParamInfo<TypeCombo>& info) {
  const TypeCombo& t = info.param;
  return fmt::format("{}_{}{}", to_string(t.ab), to_string(t.cd), t.compute == Compute::tf32 ? "_tf32" : "");
}

struct Dims {
  std::int64_t m, n, k;
};

GemmCase sized(GemmCase c, Dims d) {
  c.m = d.m, c.n = d.n, c.k = d.k;
  return c;
}

// ---- Layouts and shapes ----------------------------------------------------------------------

// All 32 storage combinations on shapes that are: tiny, prime (no tile or vector width divides
// them), multiples of 8 but of no tile (fast kernels' alignment rules admit them, their tiles are
// partial), and whole tiles.
TEST_P(ApiTyped, EveryLayoutMatchesTheReference) {
  for (const LayoutCombo& l : all_layouts())
    for (Dims d : {Dims{2, 3, 5}, Dims{17, 19, 23}, Dims{127, 129, 131}, Dims{136, 200, 72}, Dims{256, 128, 64}})
      EXPECT_CASE_OK(run_case(ctx(), sized(with_layout(base(), l), d), stream()));
}

// Shapes from the kernel tests (1, primes, thin, non-multiples of every tile), a long k, and
// 1000^3, on the row-major and the column-major NN layouts (and 1000^3 on row-major only).
TEST_P(ApiTyped, AwkwardShapesMatchTheReference) {
  const std::vector<Dims> shapes = {{1, 1, 1},       {2, 3, 5},      {17, 19, 23},    {127, 129, 131},
                                    {333, 97, 515},  {64, 64, 1},    {1, 128, 64},    {128, 1, 64},
                                    {264, 520, 136}, {96, 80, 4100}, {256, 256, 2056}};
  for (const LayoutCombo& l : {kRowMajorNN, kColMajorNN})
    for (Dims d : shapes) EXPECT_CASE_OK(run_case(ctx(), sized(with_layout(base(), l), d), stream()));
  EXPECT_CASE_OK(run_case(ctx(), sized(base(), {1000, 1000, 1000}), stream()));
}

// D with at most 64 rows or columns, the skinny kernels' shapes, on all 32 storage combinations:
// 1, 9, 17, 33 and 64 on the short side (one to eight of the mma's 8-wide columns, partly used),
// long sides that are and are not multiples of 8 and of the kernel's 32- and 64-row tiles, k that
// is not a multiple of 8 (the mma.sync form then reads W unaligned, skinny.cuh kWU, and the
// TMA-fed form refuses it), of 32 (a partial last k-step) and that spreads over a cluster's eight
// CTAs; a decode step and a 35-row problem whose W is read unaligned (odd k and n). For the CUDA-core form (FP32): 3 and 12 on the short side (S of 4
// and 16, partly used), a long side that is not a multiple of its 128-row tile or of 4 (refused
// when stored along it), k not a multiple of its 128- or 8-deep steps.
TEST_P(ApiTyped, SkinnyShapesMatchTheReference) {
  for (const LayoutCombo& l : all_layouts())
    for (Dims d : {Dims{1, 200, 256}, Dims{9, 136, 1032}, Dims{64, 72, 64}, Dims{200, 17, 520}, Dims{33, 1000, 4104},
                   Dims{5, 96, 45}, Dims{3, 1028, 2052}, Dims{302, 12, 1000}, Dims{5, 1031, 1037}, Dims{35, 91, 463}})
      EXPECT_CASE_OK(run_case(ctx(), sized(with_layout(base(), l), d), stream()));
  // Batches (one operand broadcast), beta, a bias and an activation, D column-major, padding.
  for (bool broadcast_a : {true, false})
    for (Order d_order : {Order::row_major, Order::col_major}) {
      GemmCase c = sized(base(), {16, 264, 2048});
      c.batch = 3, c.gap = 3, c.d_order = d_order, c.a_broadcast = broadcast_a;
      c.beta = 0.5, c.bias = BiasKind::per_column, c.act = Activation::gelu_tanh;
      c.a_pad = 8, c.b_pad = 16, c.d_pad = 3;
      EXPECT_CASE_OK(run_case(ctx(), c, stream()));
      // The same with an M-major A (read as stored, element by element, with at most 16 rows).
      GemmCase m_major = c;
      m_major.op_a = Op::transpose;
      EXPECT_CASE_OK(run_case(ctx(), m_major, stream()));
      GemmCase n_short = sized(base(), {520, 24, 1024});
      n_short.batch = 2, n_short.d_order = d_order, n_short.b_broadcast = broadcast_a;
      n_short.bias = BiasKind::per_row, n_short.act = Activation::silu, n_short.alpha = -1.5;
      EXPECT_CASE_OK(run_case(ctx(), n_short, stream()));
      // W read unaligned in batch items with gaps, odd paddings, k not a multiple of a vector.
      GemmCase odd = sized(base(), {7, 263, 1029});
      odd.batch = 3, odd.gap = 3, odd.d_order = d_order, odd.b_broadcast = broadcast_a;
      odd.a_pad = 1, odd.b_pad = 3, odd.beta = 0.5, odd.bias = BiasKind::per_column;
      EXPECT_CASE_OK(run_case(ctx(), odd, stream()));
      // Eight columns (the CUDA-core form's S of 8 for FP32), C aliasing D.
      GemmCase n_few = sized(base(), {260, 8, 1024});
      n_few.batch = 2, n_few.d_order = d_order, n_few.b_broadcast = broadcast_a;
      n_few.beta = 0.5, n_few.c_is_d = true, n_few.bias = BiasKind::per_row, n_few.act = Activation::relu;
      EXPECT_CASE_OK(run_case(ctx(), n_few, stream()));
    }
}

// The TMA-fed skinny form's persistent grid (SkinnyConfig::persistent; every candidate runs): CTAs
// whose shares cut one tile among several (8 x 1000 x 4104: 4 tiles of 65 stages for the GPU's
// SMs), span whole tiles and parts of others (5 x 76808 x 136: 301 tiles of 3 stages, the last
// one partial), and 33 columns by wgmma (tiles of 128 rows); beta with C aliasing D, a bias and an
// activation, padding, and D column-major, in four layouts.
TEST_P(ApiTyped, SkinnyPersistentGridMatchesTheReference) {
  if (base().ab == DataType::f32 && base().compute != Compute::tf32) GTEST_SKIP() << "the TMA-fed form multiplies as TF32";
  for (const LayoutCombo& l :
       {kRowMajorNN, kColMajorNN, LayoutCombo{Order::row_major, Op::none, Order::row_major, Op::transpose, Order::row_major},
        LayoutCombo{Order::row_major, Op::transpose, Order::row_major, Op::none, Order::col_major}})
    for (Dims d : {Dims{8, 1000, 4104}, Dims{5, 76808, 136}, Dims{33, 1000, 2056}}) {
      GemmCase c = sized(with_layout(base(), l), d);
      c.alpha = -1.5, c.beta = 0.5, c.c_is_d = true;
      c.bias = BiasKind::per_column, c.act = Activation::gelu_tanh;
      c.a_pad = 8, c.d_pad = 3;
      EXPECT_CASE_OK(run_case(ctx(), c, stream()));
    }
  // The model takes it for a 16-bit LM head (two waves of tiles or more; TF32 takes the CUDA-core
  // form with at most 4 columns).
  if (base().ab == DataType::f32) return;
  const GemmSetup st = make_setup(sized(base(), {1, 128256, 4096}), fresh_seed(), stream());
  EXPECT_NE(plan(ctx(), st.g).config.find("persistent=1"), std::string::npos) << plan(ctx(), st.g).config;
}

// The CUDA-core skinny form's edges in a few layouts (W big-major and K-major, an M-major A copied
// first, D column-major), small enough for the sanitizers: S of 1, 4 and 16 partly used (16 with
// W along its long side stages X in shared memory), a long side not a multiple of its 128- or
// 64-row tile, k not a multiple of its steps, and a batch with beta, a bias and an activation.
TEST_P(ApiTyped, SkinnyCudaCoreFormEdgesMatchTheReference) {
  if (base().ab != DataType::f32) GTEST_SKIP() << "the CUDA-core skinny form takes FP32 operands";
  for (const LayoutCombo& l :
       {kRowMajorNN, kColMajorNN, LayoutCombo{Order::row_major, Op::none, Order::row_major, Op::transpose, Order::row_major},
        LayoutCombo{Order::row_major, Op::transpose, Order::row_major, Op::none, Order::col_major}})
    for (Dims d : {Dims{1, 200, 256}, Dims{3, 1028, 516}, Dims{300, 12, 132}, Dims{12, 200, 300}})
      EXPECT_CASE_OK(run_case(ctx(), sized(with_layout(base(), l), d), stream()));
  GemmCase c = sized(base(), {5, 260, 520});
  c.batch = 2, c.gap = 3, c.beta = 0.5, c.bias = BiasKind::per_column, c.act = Activation::gelu_tanh;
  c.a_pad = 4, c.b_pad = 8, c.d_pad = 3;
  EXPECT_CASE_OK(run_case(ctx(), c, stream()));
  // A decode step is its (plan() says so).
  const GemmSetup st = make_setup(sized(base(), {1, 4096, 1024}), fresh_seed(), stream());
  EXPECT_NE(plan(ctx(), st.g).kernel.find("skinny_simt"), std::string::npos) << plan(ctx(), st.g).kernel;
}

// A few tiles with a long K: 16-bit problems take sm90's split-K there (K in slices of FP32
// partial sums, added by a second kernel that applies the epilogue). Every layout, rows of D in
// 4-output vectors or not (n = 77), up to 128 slices (64 x 128 x 16384 in 64 x 64 tiles); beta
// with C aliasing D, a bias and an activation, padding and a column-major D on the second pass.
TEST_P(ApiTyped, FewTilesWithALongKMatchTheReference) {
  for (const LayoutCombo& l : all_layouts())
    for (Dims d : {Dims{100, 136, 3000}, Dims{7, 300, 2056}, Dims{128, 128, 8200}, Dims{50, 77, 6000}, Dims{64, 128, 16384}})
      EXPECT_CASE_OK(run_case(ctx(), sized(with_layout(base(), l), d), stream()));
  for (Order d_order : {Order::row_major, Order::col_major}) {
    GemmCase c = sized(base(), {96, 200, 4104});
    c.d_order = d_order, c.beta = 0.5, c.c_is_d = true;
    c.bias = BiasKind::per_row, c.act = Activation::gelu_tanh, c.alpha = -1.25;
    c.a_pad = 8, c.b_pad = 3, c.d_pad = 5;
    EXPECT_CASE_OK(run_case(ctx(), c, stream()));
  }
  // The public call splits K for 16-bit operands (plan() says so).
  if (base().ab != DataType::f32) {
    const GemmSetup st = make_setup(sized(base(), {128, 128, 8192}), fresh_seed(), stream());
    EXPECT_NE(plan(ctx(), st.g).config.find("splits="), std::string::npos) << plan(ctx(), st.g).config;
  }
}

// Leading dimensions above the packed ones (the padding poisoned, so reading it turns the result
// into NaN and writing it is caught): odd paddings, and paddings of 8 that keep 16-byte rows.
TEST_P(ApiTyped, LeadingDimensionsAbovePackedMatchAndPaddingIsUntouched) {
  for (const LayoutCombo& l : all_layouts()) {
    GemmCase odd = sized(with_layout(base(), l), {67, 45, 33});
    odd.a_pad = 3, odd.b_pad = 5, odd.c_pad = 7, odd.d_pad = 1;
    odd.beta = 0.5;
    EXPECT_CASE_OK(run_case(ctx(), odd, stream()));
    GemmCase aligned = sized(with_layout(base(), l), {136, 200, 72});
    aligned.a_pad = 8, aligned.b_pad = 16, aligned.d_pad = 8;
    EXPECT_CASE_OK(run_case(ctx(), aligned, stream()));
  }
}

// Pointers off the allocation's alignment by one element (only element-aligned) and by 8
// elements (16-byte aligned for 16-bit types, not 256): a kernel that needs more must decline.
TEST_P(ApiTyped, PointersOffAlignmentMatchTheReference) {
  for (std::int64_t misalign : {1, 8})
    for (const LayoutCombo& l :
         {kRowMajorNN, kColMajorNN,
          LayoutCombo{Order::row_major, Op::none, Order::col_major, Op::none, Order::col_major},
          LayoutCombo{Order::col_major, Op::transpose, Order::row_major, Op::transpose, Order::row_major}})
      for (Dims d : {Dims{67, 45, 33}, Dims{136, 200, 72}}) {
        GemmCase c = sized(with_layout(base(), l), d);
        c.misalign = misalign;
        c.beta = -0.5;
        c.bias = BiasKind::per_column;
        EXPECT_CASE_OK(run_case(ctx(), c, stream()));
      }
}

// ---- Batches -----------------------------------------------------------------------------------

TEST_P(ApiTyped, StridedBatchesMatchTheReference) {
  for (std::int64_t batch : {1, 3, 7})
    for (std::int64_t gap : {0, 5})
      for (Order d_order : {Order::row_major, Order::col_major})
        for (Dims d : {Dims{67, 45, 33}, Dims{136, 200, 72}}) {
          GemmCase c = sized(base(), d);
          c.batch = batch, c.gap = gap, c.d_order = d_order;
          c.op_b = Op::transpose;
          EXPECT_CASE_OK(run_case(ctx(), c, stream()));
        }
  // One operand shared by every item (batch_stride 0), with a per-item bias and beta != 0.
  for (bool broadcast_a : {true, false})
    for (Order d_order : {Order::row_major, Order::col_major}) {
      GemmCase c = sized(base(), {40, 72, 56});
      c.batch = 3, c.gap = 2, c.d_order = d_order;
      c.a_broadcast = broadcast_a, c.b_broadcast = !broadcast_a;
      c.beta = 0.75;
      c.bias = BiasKind::per_row, c.bias_batched = true;
      EXPECT_CASE_OK(run_case(ctx(), c, stream()));
      c.bias = BiasKind::per_column;
      c.a_order = Order::col_major;
      EXPECT_CASE_OK(run_case(ctx(), c, stream()));
    }
}

// Batches of problems of at most 64 x 64 with an item per SM or more: dispatch takes the
// small-tile kernel (small_first), on every layout; tiles with edges inside them and k not a
// multiple of 64, rows padded to 16-byte multiples (ld > minimum, poisoned), broadcast operands and
// gaps between items, beta with C = D, a bias and an activation.
TEST_P(ApiTyped, SmallProblemBatchesMatchTheReference) {
  if (base().ab == DataType::f32) GTEST_SKIP() << "the small-tile kernel takes 16-bit operands";
  const std::int64_t batch = ctx().impl().device.props.sm_count + 3;
  auto expect_small = [&](const GemmCase& gc) {
    const GemmSetup st = make_setup(gc, fresh_seed(), stream());
    EXPECT_EQ(plan(ctx(), st.g).kernel.rfind("sm80.mma_small", 0), 0u) << gc.name() << ": " << plan(ctx(), st.g).kernel;
    EXPECT_CASE_OK(run_case(ctx(), gc, stream()));
  };
  for (const LayoutCombo& l : all_layouts())
    for (Dims d : {Dims{64, 64, 64}, Dims{40, 56, 200}}) {
      GemmCase gc = sized(with_layout(base(), l), d);
      gc.batch = batch;
      expect_small(gc);
    }
  // Rows of 16-byte multiples: ld of B and D 56 (B broadcast: the harness's batch stride of a
  // padded operand is its span plus the gap, not a multiple of 8 here), then an M-major A of ld 40.
  GemmCase edges = sized(base(), {37, 50, 72});
  edges.batch = batch, edges.b_pad = 6, edges.d_pad = 6, edges.gap = 8, edges.b_broadcast = true;
  edges.beta = 0.75, edges.c_is_d = true;
  edges.bias = BiasKind::per_column, edges.bias_batched = true, edges.act = Activation::gelu_tanh;
  expect_small(edges);
  edges.op_a = Op::transpose, edges.a_pad = 3, edges.a_broadcast = true;
  edges.op_b = Op::transpose, edges.b_pad = 0, edges.b_broadcast = false;  // K-major B: item spans of 3600 + 8
  edges.bias = BiasKind::per_row, edges.act = Activation::silu;
  expect_small(edges);
  GemmCase one = sized(base(), {1, 1, 8});
  one.batch = batch, one.op_b = Op::transpose, one.b_broadcast = true, one.act = Activation::relu;  // B K-major: rows of 8
  expect_small(one);
}

// ---- alpha and beta ----------------------------------------------------------------------------

TEST_P(ApiTyped, AlphaAndBetaMatchTheReference) {
  for (Order d_order : {Order::row_major, Order::col_major})
    for (std::int64_t batch : {1, 3})
      for (bool on_device : {false, true}) {
        GemmCase c = sized(base(), {67, 45, 33});
        c.d_order = d_order, c.batch = batch, c.gap = 3, c.scalars_on_device = on_device;
        EXPECT_CASE_OK(run_case(ctx(), c, stream()));  // (1, 0)
        c.alpha = -1.5, c.beta = 0.75;
        EXPECT_CASE_OK(run_case(ctx(), c, stream()));  // C separate
        c.c_is_d = true;
        EXPECT_CASE_OK(run_case(ctx(), c, stream()));  // C is D
        c.d_pad = 4;                                   // the same view, padded
        EXPECT_CASE_OK(run_case(ctx(), sized(c, {136, 200, 72}), stream()));
        c.c_is_d = false, c.d_pad = 0;
        c.alpha = 2, c.beta = 0;  // alpha alone
        EXPECT_CASE_OK(run_case(ctx(), c, stream()));
      }
}

// beta == 0 means C is not read (BLAS's rule): a C full of NaN must not reach D, whether the
// zero is a host value or sits behind a device pointer.
TEST_P(ApiTyped, BetaZeroDoesNotReadC) {
  for (bool on_device : {false, true})
    for (Order d_order : {Order::row_major, Order::col_major}) {
      GemmCase c = sized(base(), {67, 45, 33});
      c.c_unread_nan = true, c.scalars_on_device = on_device, c.d_order = d_order;
      c.alpha = 0.5;
      EXPECT_CASE_OK(run_case(ctx(), c, stream()));
    }
}

// ---- Epilogue ----------------------------------------------------------------------------------

TEST_P(ApiTyped, EpiloguesMatchTheReference) {
  const Activation acts[] = {Activation::none, Activation::relu, Activation::gelu_tanh, Activation::silu};
  for (Order d_order : {Order::row_major, Order::col_major})
    for (Dims d : {Dims{67, 45, 33}, Dims{136, 200, 72}}) {
      for (BiasKind kind : {BiasKind::per_row, BiasKind::per_column})
        for (bool bias_f32 : {true, false}) {
          if (!bias_f32 && GetParam().cd == DataType::f32) continue;  // D's type is f32 already
          for (Activation act : acts) {
            GemmCase c = sized(base(), d);
            c.d_order = d_order, c.bias = kind, c.bias_f32 = bias_f32, c.act = act;
            EXPECT_CASE_OK(run_case(ctx(), c, stream()));
          }
        }
      for (Activation act : acts) {  // activations alone, after alpha and beta
        GemmCase c = sized(base(), d);
        c.d_order = d_order, c.act = act, c.alpha = -1.5, c.beta = 0.75;
        EXPECT_CASE_OK(run_case(ctx(), c, stream()));
      }
      // Everything at once: batched per-row bias + GELU with C = D and device scalars.
      GemmCase all = sized(base(), d);
      all.d_order = d_order, all.batch = 3, all.gap = 1, all.bias = BiasKind::per_row, all.bias_batched = true;
      all.act = Activation::gelu_tanh, all.alpha = -1.5, all.beta = 0.75, all.c_is_d = true,
      all.scalars_on_device = true;
      EXPECT_CASE_OK(run_case(ctx(), all, stream()));
    }
}

// More tiles than SMs, so that a CTA of the persistent tensor-core kernels takes several in turn,
// each with its own bias through the fused epilogue (16-bit: staged in shared memory; TF32: a
// per-column bias's values loaded once per tile): K of 3 k-tiles (a deferred box leaving on each)
// and of 17 (one every few), partial tiles at both edges, B N-major and K-major. Then C apart from
// D with both padded, D's rows 16-byte aligned or not (the FP32 kernel's epilogue through shared
// memory writes float4s or single values), which must leave the padding untouched.
TEST_P(ApiTyped, FusedEpiloguesOverManyTilesMatchTheReference) {
  const LayoutCombo nt{Order::row_major, Op::none, Order::row_major, Op::transpose, Order::row_major};
  for (auto [d, l] : {std::pair{Dims{2000, 4100, 136}, kRowMajorNN}, std::pair{Dims{1500, 4100, 1032}, nt}}) {
    for (BiasKind kind : {BiasKind::per_row, BiasKind::per_column})
      for (Activation act : {Activation::relu, Activation::gelu_tanh, Activation::silu}) {
        GemmCase c = sized(with_layout(base(), l), d);
        c.bias = kind, c.act = act, c.alpha = -1.25;
        EXPECT_CASE_OK(run_case(ctx(), c, stream()));
      }
    for (std::int64_t d_pad : {4, 3}) {
      GemmCase c = sized(with_layout(base(), l), d);
      c.bias = BiasKind::per_column, c.act = Activation::gelu_tanh, c.alpha = 0.75, c.beta = -0.5;
      c.c_pad = 8, c.d_pad = d_pad;
      EXPECT_CASE_OK(run_case(ctx(), c, stream()));
    }
  }
}

// Every logical element of a packed, single-item `t` <- a multiple of 1/4 in [-1, 1], exact in
// every operand type (TF32 included): stream `stream` of core/fill.hpp's uniform values under
// `seed`, rounded to the nearest quarter.
void fill_quarters(const TestMatrix& t, std::uint64_t seed, std::uint64_t stream, cudaStream_t s) {
  const apiref::Layout& l = t.layout();
  const std::int64_t count = l.rows * l.cols;
  if (l.batch != 1 || l.offset(0, l.rows - 1, l.cols - 1) != count - 1)
    throw Error("fill_quarters: the matrix is not packed and single");
  std::vector<float> host = fill_uniform_host(count, seed, stream);
  for (float& v : host) v = std::round(4 * v) / 4;
  const DType to = l.type == DataType::f32 ? DType::f32 : l.type == DataType::bf16 ? DType::bf16 : DType::f16;
  DeviceBuffer f32(host.size() * sizeof(float));
  GEMMLAB_CUDA(cudaMemcpyAsync(f32.get(), host.data(), f32.bytes(), cudaMemcpyHostToDevice, s));
  convert(f32.get(), DType::f32, t.data(), to, count, s);
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
}

// The spacing of D's type at |v|: an ulp of v once rounded, its subnormals' spacing below them.
double ulp_of(DataType t, double v) {
  const int mantissa = t == DataType::f32 ? 24 : t == DataType::bf16 ? 8 : 11;
  const int min_exp = t == DataType::f16 ? -14 : -126;  // of the smallest normal number
  int e = 0;
  std::frexp(v, &e);  // |v| in [2^(e - 1), 2^e)
  return std::ldexp(1.0, std::max(e - 1, min_exp) - (mantissa - 1));
}

// GELU and SiLU on every element, not only in the Frobenius norm, where the small results of
// negative inputs weigh nothing: a GELU through tanh.approx.f32 was many FP16 ulps off there and
// passed every other test (docs/kernels/tensor-ladder.md 7.10). 16-bit D: within one ulp of the
// float64 value (it is rounded once from an FP32 value far more accurate than that); FP32 D:
// within 2^-14 of it, relatively (the exponential's argument, up to about 130 here, multiplies its
// own FP32 rounding error into the result). So that the check sees the activation alone,
// alpha * acc is exact in FP32 in any kernel and summation order: A and B hold multiples of 1/4,
// every product and partial sum is a multiple of 1/16 under 2^7, and the bias's addition is the
// one rounding before the activation. The sums spread over about [-10, 10]. Whole tiles (the
// tensor-core kernels' TMA stores) and partial ones, D row- and column-major.
TEST_P(ApiTyped, ActivationsAreAccurateOnEveryElement) {
  const DataType cd = GetParam().cd;
  for (Activation act : {Activation::gelu_tanh, Activation::silu})
    for (Dims dims : {Dims{256, 512, 64}, Dims{200, 300, 72}})
      for (Order d_order : {Order::row_major, Order::col_major}) {
        GemmCase c = sized(base(), dims);
        c.d_order = d_order, c.bias = BiasKind::per_column, c.act = act;
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(fmt::format("{} (seed {})", c.name(), seed));
        const GemmSetup st = make_setup(c, seed, stream());
        fill_quarters(st.a, seed, kStreamA, stream());
        fill_quarters(st.b, seed, kStreamB, stream());
        const Reference ref = apiref::reference(st.g, c.alpha, c.beta, stream());
        const std::vector<double> value = ref.download_value(stream());
        int runs = 0;
        for (const Path& p : paths(ctx(), st.g, stream())) {
          st.prepare_d(stream());
          p.run();
          const HostMatrix d(st.d, stream());
          double worst = 0, worst_d = 0, worst_ref = 0;
          std::int64_t worst_i = -1, worst_j = -1;
          for (std::int64_t i = 0; i < c.m; ++i)
            for (std::int64_t j = 0; j < c.n; ++j) {
              const double r = value[std::size_t(i * c.n + j)], got = d.at(0, i, j);
              // Errors in ulps of D's type (16-bit D) or in units of 2^-14 |r| (FP32 D). Results
              // under 2^-120 may be 0: the division's reciprocal flushes below 2^-126 (GELU of
              // x < -9.9, about -1e-37 in float64).
              const double unit = cd == DataType::f32 ? std::ldexp(std::fabs(r), -14) : ulp_of(cd, r);
              const double diff = std::fabs(got - r);
              const double err = std::isnan(diff) ? INFINITY : std::fabs(r) < 0x1p-120 && diff < 0x1p-120 ? 0.0 : diff / unit;
              if (err > worst) worst = err, worst_d = got, worst_ref = r, worst_i = i, worst_j = j;
            }
          EXPECT_LE(worst, 1.0) << p.name << ": D(" << worst_i << ", " << worst_j << ") = " << worst_d
                                << ", float64 " << worst_ref;
          ++runs;
        }
        EXPECT_GE(runs, 2) << "no candidate besides gemm() itself was run";
      }
}

// ---- Determinism -------------------------------------------------------------------------------

// reproducible (the default): every path gives bitwise the same D (the whole allocation, so the
// padding too) when run again on the same inputs.
TEST_P(ApiTyped, ReproducibleRunsAreBitwiseEqual) {
  std::vector<GemmCase> cases;
  cases.push_back(sized(base(), {333, 97, 515}));
  cases.push_back(sized(base(), {1000, 1000, 1000}));
  cases.push_back(sized(base(), {96, 80, 4100}));
  cases.push_back(sized(base(), {64, 128, 16384}));
  cases.push_back(sized(base(), {50, 77, 6000}));
  GemmCase batched = sized(base(), {136, 200, 72});
  batched.batch = 3, batched.gap = 2, batched.bias = BiasKind::per_column, batched.act = Activation::gelu_tanh;
  batched.beta = 0.75, batched.c_is_d = true;
  cases.push_back(batched);
  for (const GemmCase& gc : cases) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(fmt::format("{} (seed {})", gc.name(), seed));
    const GemmSetup st = make_setup(gc, seed, stream());
    st.prepare_d(stream());
    const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
    const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
    for (const Path& p : paths(ctx(), st.g, stream())) {
      st.prepare_d(stream());
      p.run();
      const OutputCheck first = apiref::check_output(st.d, ref, tol, stream());
      EXPECT_TRUE(first.passed()) << p.name << ": " << first.summary();
      const std::vector<unsigned char> once = st.d.download(stream());
      st.prepare_d(stream());
      p.run();
      EXPECT_TRUE(once == st.d.download(stream())) << p.name << ": a second run changed D";
    }
  }
}

// Early launch (Context::Options::early_launch, on by default on sm_90): a call's kernels start
// while the kernel ahead of them drains, and must wait for its writes before reading. Two calls
// back to back, the second reading the first's D as its A, with no synchronisation between them:
// each path of the first call before the public second call, then the public first call before
// each path of the second, on shapes whose paths chain copies, split-K passes and stream-K tails.
// A kernel that read before waiting would see the poison left in D. Then the same calls on a
// context without early launch give bitwise the same D.
TEST_P(ApiTyped, ChainedCallsReadThePreviousCallsD) {
  if (GetParam().ab != GetParam().cd) GTEST_SKIP() << "the first call's D must have the operands' type";
  struct Chain {
    Dims first;
    std::int64_t n2;  // the second call: m x n2 x first.n
  };
  Context::Options plain;
  plain.early_launch = false;
  const Context in_order(plain);
  // 64 x 64 x 65536: the first call's last kernel (one long tile, or a split-K pass) leaves most
  // SMs free, so the second call's blocks are placed at once and would read D's poison.
  for (const Chain& ch : {Chain{{7, 13, 4099}, 515}, Chain{{333, 97, 515}, 300}, Chain{{8, 4096, 512}, 8},
                          Chain{{1000, 1000, 1000}, 1000}, Chain{{64, 64, 65536}, 64}}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(fmt::format("{}x{}x{} then {}x{}x{} (seed {})", ch.first.m, ch.first.n, ch.first.k, ch.first.m, ch.n2,
                             ch.first.n, seed));
    const GemmSetup one = make_setup(sized(base(), ch.first), seed, stream());
    GemmSetup two = make_setup(sized(base(), {ch.first.m, ch.n2, ch.first.n}), seed + 1, stream());
    two.g.a = one.d.input();
    const Tolerance tol = apiref::tolerance_for(GetParam().ab, GetParam().cd, GetParam().compute);
    auto check_both = [&](const std::string& name) {
      const OutputCheck first = apiref::check_output(one.d, apiref::reference(one.g, 1.0, 0.0, stream()), tol, stream());
      const OutputCheck second = apiref::check_output(two.d, apiref::reference(two.g, 1.0, 0.0, stream()), tol, stream());
      EXPECT_TRUE(first.passed()) << name << ", first call: " << first.summary();
      EXPECT_TRUE(second.passed()) << name << ", second call: " << second.summary();
    };
    int runs = 0;
    for (const Path& p : paths(ctx(), one.g, stream())) {
      one.prepare_d(stream());
      two.prepare_d(stream());
      p.run();
      gemm(ctx(), two.g, stream());
      check_both(p.name + " then gemm()");
      ++runs;
    }
    for (const Path& p : paths(ctx(), two.g, stream())) {
      one.prepare_d(stream());
      two.prepare_d(stream());
      gemm(ctx(), one.g, stream());
      p.run();
      check_both("gemm() then " + p.name);
      ++runs;
    }
    EXPECT_GE(runs, 4);
    // Each path of the second call right behind a kernel that lets it start at once and writes
    // the first call's D only 50 us later: a kernel launched early that read before waiting would
    // read D's poison.
    one.prepare_d(stream());
    gemm(ctx(), one.g, stream());
    const Reference ref_two = apiref::reference(two.g, 1.0, 0.0, stream());
    const std::vector<unsigned char> written = one.d.download(stream());
    DeviceBuffer staged(written.size());
    GEMMLAB_CUDA(cudaMemcpyAsync(staged.get(), written.data(), written.size(), cudaMemcpyHostToDevice, stream()));
    void* const d_one = const_cast<void*>(static_cast<const void*>(one.d.allocation()));
    for (const Path& p : paths(ctx(), two.g, stream())) {
      one.d.poison(stream());
      two.prepare_d(stream());
      launch_late_copy(d_one, staged.get(), written.size(), 50.0, stream());
      p.run();
      const OutputCheck late = apiref::check_output(two.d, ref_two, tol, stream());
      EXPECT_TRUE(late.passed()) << p.name << " behind a late writer of its A: " << late.summary();
    }
    // Bitwise the same D without early launch.
    one.prepare_d(stream());
    two.prepare_d(stream());
    gemm(ctx(), one.g, stream());
    gemm(ctx(), two.g, stream());
    const std::vector<unsigned char> early_one = one.d.download(stream()), early_two = two.d.download(stream());
    one.prepare_d(stream());
    two.prepare_d(stream());
    gemm(in_order, one.g, stream());
    gemm(in_order, two.g, stream());
    EXPECT_TRUE(early_one == one.d.download(stream())) << "the first call's D differs without early launch";
    EXPECT_TRUE(early_two == two.d.download(stream())) << "the second call's D differs without early launch";
  }
}

// The first row-major rows of D, as bytes.
std::vector<unsigned char> leading_rows(const TestMatrix& d, const std::vector<unsigned char>& all, std::int64_t rows) {
  const std::size_t start =
      std::size_t(static_cast<const unsigned char*>(d.data()) - static_cast<const unsigned char*>(d.allocation()));
  const std::size_t len = std::size_t(rows * d.layout().resolved_ld()) * size_of(d.layout().type);
  return std::vector<unsigned char>(all.begin() + std::ptrdiff_t(start), all.begin() + std::ptrdiff_t(start + len));
}

// batch_invariant: the same rows of A give bitwise the same rows of D whatever m is. The calls
// use the leading rows of one A (column-major A keeps its ld of 1000) and of one D; each smaller
// call must leave the rows past its m untouched. Checked for gemm() and for each candidate that
// dispatch offers at both sizes.
TEST_P(ApiTyped, BatchInvariantRowsDoNotDependOnM) {
  const std::int64_t full = 1000;
  for (Dims nk : {Dims{0, 256, 512}, Dims{0, 200, 333}})
    for (Order a_order : {Order::row_major, Order::col_major}) {
      GemmCase gc = sized(base(), {full, nk.n, nk.k});
      gc.a_order = a_order, gc.det = Determinism::batch_invariant;
      gc.bias = BiasKind::per_column, gc.act = Activation::silu;
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(fmt::format("{} (seed {})", gc.name(), seed));
      GemmSetup st = make_setup(gc, seed, stream());
      st.g.a.ld = st.a.layout().resolved_ld();  // the smaller calls keep the full calls' strides
      st.g.d.ld = st.d.layout().resolved_ld();
      const Reference ref = apiref::reference(st.g, 1, 0, stream());
      const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
      std::map<std::string, std::vector<unsigned char>> full_d;
      for (const Path& p : paths(ctx(), st.g, stream())) {
        st.d.poison(stream());
        p.run();
        const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
        EXPECT_TRUE(chk.passed()) << p.name << " m = " << full << ": " << chk.summary();
        full_d[p.name] = st.d.download(stream());
      }
      for (std::int64_t m : {1, 7, 64, 300}) {
        Gemm g = st.g;
        g.m = m;
        int compared = 0;
        for (const Path& p : paths(ctx(), g, stream())) {
          const auto it = full_d.find(p.name);
          if (it == full_d.end()) continue;  // offered at this m only
          st.d.poison(stream());
          p.run();
          std::int64_t first = -1;
          EXPECT_EQ(apiref::changed_padding_bytes(st.d, m, stream(), &first), 0)
              << p.name << " m = " << m << " wrote past its rows (first at byte " << first << ")";
          EXPECT_TRUE(leading_rows(st.d, st.d.download(stream()), m) == leading_rows(st.d, it->second, m))
              << p.name << ": the first " << m << " rows differ from those of the m = " << full << " call";
          ++compared;
        }
        EXPECT_GE(compared, 1) << "gemm() itself was not compared at m = " << m;
      }
    }
}

// fast may reorder sums (atomics): it must still be correct, on the shapes where split-K or
// stream-K are attractive (long k, few tiles) and on ordinary ones.
TEST_P(ApiTyped, FastModeMatchesTheReference) {
  for (Dims d : {Dims{64, 64, 8192}, Dims{256, 256, 4096}, Dims{333, 97, 515}, Dims{1000, 1000, 1000}}) {
    GemmCase c = sized(base(), d);
    c.det = Determinism::fast;
    EXPECT_CASE_OK(run_case(ctx(), c, stream()));
    c.beta = 0.75, c.c_is_d = true, c.bias = BiasKind::per_row, c.act = Activation::relu;
    EXPECT_CASE_OK(run_case(ctx(), c, stream()));
  }
}

// A separate Workspace, and a context whose own workspace is empty: dispatch must fit every
// choice into the scratch it is given.
TEST_P(ApiTyped, ResultsAreCorrectWithAnyWorkspace) {
  Workspace small(ctx(), std::size_t(1) << 20);
  Context::Options o;
  o.workspace_bytes = 0;
  const Context bare(o);
  for (Dims d : {Dims{64, 64, 8192}, Dims{256, 256, 4096}, Dims{1000, 1000, 1000}}) {
    for (Determinism det : {Determinism::reproducible, Determinism::fast}) {
      GemmCase c = sized(base(), d);
      c.det = det;
      EXPECT_CASE_OK(run_case(ctx(), c, stream(), &small));
      EXPECT_CASE_OK(run_case(bare, c, stream()));
    }
  }
  // A M-major with a workspace too small for its whole K-major copy (TF32 copies it): slices of
  // rows, each with its own C, D and per-row bias rows.
  GemmCase c = sized(base(), Dims{1000, 300, 1000});
  c.op_a = Op::transpose;
  c.alpha = 0.5, c.beta = -1.25;
  c.bias = BiasKind::per_row, c.act = Activation::relu;
  EXPECT_CASE_OK(run_case(ctx(), c, stream(), &small));
  c.d_order = Order::col_major;  // D^T is computed: B^T's copy is sliced instead
  EXPECT_CASE_OK(run_case(ctx(), c, stream(), &small));
  // B K-major with a workspace too small for its whole N-major copy (FP32 copies it): slices of
  // columns, each with its own C, D and per-column bias.
  GemmCase nt = sized(base(), Dims{300, 1000, 999});
  nt.op_b = Op::transpose;
  nt.alpha = 0.5, nt.beta = -1.25;
  nt.bias = BiasKind::per_column, nt.act = Activation::silu;
  EXPECT_CASE_OK(run_case(ctx(), nt, stream(), &small));
}

// Operands the TMA cannot address (odd k, n and m) whose copies do not fit the workspace whole:
// the tensor-core kernels multiply D in blocks whose copies do (CopyBlocks), with B's columns of a
// block and A's rows moved to the block, C = D, a bias per row and per column, padding, in every
// layout of row-major D and in column-major D (plan() names the blocks).
TEST_P(ApiTyped, TensorCoreCopiesInBlocksOfDMatchTheReference) {
  if (base().ab == DataType::f32 && base().compute != Compute::tf32) GTEST_SKIP() << "the tensor-core kernels' copies";
  // Whole copies take 5 MB (16-bit) or 10 MB (TF32); TF32 blocks are few and large or not taken.
  Workspace small(ctx(), std::size_t(base().compute == Compute::tf32 ? 8 : 1) << 20);
  int blocked = 0;
  for (const LayoutCombo& l : all_layouts()) {
    if (l.d_order == Order::col_major && l.a_order != Order::row_major) continue;  // 24 of the 32 suffice
    GemmCase c = sized(with_layout(base(), l), {1500, 1001, 999});
    c.alpha = 0.5, c.beta = -1.25, c.c_is_d = true;
    c.bias = (blocked % 2) ? BiasKind::per_column : BiasKind::per_row, c.act = Activation::silu;
    c.a_pad = 3, c.d_pad = 5;
    const GemmSetup st = make_setup(c, fresh_seed(), stream());
    const Plan p = plan(ctx(), st.g, &small);
    if (p.kernel.find("sm90.") == std::string::npos) continue;  // the transposed TF32 problem is not blocked
    EXPECT_NE(p.config.find("blocks="), std::string::npos) << c.name() << ": " << p.config;
    EXPECT_CASE_OK(run_case(ctx(), c, stream(), &small));
    ++blocked;
  }
  EXPECT_GE(blocked, 12) << "layouts multiplied in blocks";
}

// The FP32 kernel's copy of B (SimtConfig::copy_b) changes how tiles reach shared memory, not the
// sums: D is bitwise that of the 4-byte copies of the same configuration, whole or in slices of
// columns of D (1 MiB holds 256 of them here), epilogue and C = D included. B K-major (NT, or NN
// with D column-major), with n even and odd (the transposed copy's padding zeroed), and N-major in
// rows the main loop cannot read in 16-byte pieces: packed with n odd, padded to a 16-byte multiple
// with n odd, and n even but every matrix one element off its alignment.
TEST_P(ApiTyped, CopiedBGivesBitwiseTheSameD) {
  if (base().ab != DataType::f32 || base().compute != Compute::f32) GTEST_SKIP() << "the FP32 CUDA-core kernel's copy";
  Workspace small(ctx(), std::size_t(1) << 20);
  struct Form {
    const char* what;
    Order d_order;
    Op op_b;
    std::int64_t n, b_pad, misalign;
  };
  for (const Form& f : {Form{"K-major", Order::row_major, Op::transpose, 1000, 0, 0},
                        Form{"K-major, D col-major", Order::col_major, Op::none, 1000, 0, 0},
                        Form{"K-major, n odd", Order::row_major, Op::transpose, 999, 0, 0},
                        Form{"N-major, n odd", Order::row_major, Op::none, 999, 0, 0},
                        Form{"N-major, n odd in aligned rows", Order::row_major, Op::none, 999, 1, 0},
                        Form{"N-major, misaligned", Order::row_major, Op::none, 1000, 0, 1}}) {
    GemmCase gc = sized(base(), {300, f.n, 999});
    gc.d_order = f.d_order, gc.op_b = f.op_b, gc.b_pad = f.b_pad, gc.misalign = f.misalign;
    gc.bias = BiasKind::per_column, gc.act = Activation::gelu_tanh;
    gc.beta = 0.5, gc.c_is_d = true;
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(fmt::format("{}: {} (seed {})", f.what, gc.name(), seed));
    const GemmSetup st = make_setup(gc, seed, stream());
    st.prepare_d(stream());
    const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
    const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
    const detail::Problem p = detail::normalize(st.g);
    ASSERT_EQ(p.b.k_major, f.op_b == Op::transpose || f.d_order == Order::col_major);
    for (Workspace* ws : {static_cast<Workspace*>(nullptr), &small}) {
      const detail::LaunchEnv env = launch_env(ctx(), stream(), ws);
      int pairs = 0;
      for (const detail::Choice& c : detail::candidates(ctx().impl(), p, env.scratch.bytes)) {
        // Without a stream-K tail: the 4-byte paths of a K-major B have none compiled, and a tail
        // changes the sums.
        if (c.family != detail::Family::simt || !c.simt.copy_b || c.simt.stream_k != 0) continue;
        ASSERT_TRUE(detail::simt_copies_b(p, c.simt));
        detail::Choice direct = c;
        direct.simt.copy_b = false;
        const std::string name = detail::describe(c, p).config + (ws ? " in 1 MiB" : "");
        st.prepare_d(stream());
        detail::execute(direct, p, env);
        const std::vector<unsigned char> want = st.d.download(stream());
        st.prepare_d(stream());
        detail::execute(c, p, env);
        const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
        EXPECT_TRUE(chk.passed()) << name << ": " << chk.summary();
        EXPECT_TRUE(want == st.d.download(stream())) << name << ": D differs from the 4-byte copies' D";
        ++pairs;
      }
      EXPECT_EQ(pairs, 5) << "one copy_b candidate for each of the model's five tiles";
    }
  }
}

// The FP32 kernel's split-K runs the slices that hold k-tiles: 7 x 13 x 4099 has 257 k-tiles of 16,
// so 100 or 128 slices asked run as 86 of 3 (as 86 asked do) and 300 as 257 of 1 (as 257 do), each
// pair bitwise the same D, right against the reference (bias, GELU, beta with C = D), and in a
// workspace of just the partial sums of the slices that run.
TEST_P(ApiTyped, CudaCoreSplitKRunsTheSlicesThatHoldKTiles) {
  if (base().ab != DataType::f32 || base().compute != Compute::f32) GTEST_SKIP() << "the FP32 CUDA-core kernel's split";
  GemmCase gc = sized(base(), {7, 13, 4099});
  gc.bias = BiasKind::per_column, gc.act = Activation::gelu_tanh;
  gc.beta = 0.5, gc.c_is_d = true;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("{} (seed {})", gc.name(), seed));
  const GemmSetup st = make_setup(gc, seed, stream());
  st.prepare_d(stream());
  const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
  const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
  const detail::Problem p = detail::normalize(st.g);
  const detail::LaunchEnv whole_env = launch_env(ctx(), stream());
  detail::Choice c = detail::choose(ctx().impl(), p, whole_env.scratch.bytes);
  ASSERT_EQ(c.family, detail::Family::simt) << detail::describe(c, p).kernel;
  c.simt.stream_k = 0;
  for (const auto& [runs, asked] : {std::pair{86, std::vector<int>{86, 100, 128}}, std::pair{257, std::vector<int>{257, 300}}}) {
    const std::size_t partials = std::size_t(runs) * 7 * 13 * sizeof(float);
    Workspace exact(ctx(), partials);
    const detail::LaunchEnv env = launch_env(ctx(), stream(), &exact);
    std::vector<unsigned char> first;
    for (const int splits : asked) {
      c.simt.splits = splits;
      SCOPED_TRACE(fmt::format("{} slices asked", splits));
      EXPECT_EQ(detail::simt_slices(p, c.simt), runs);
      EXPECT_EQ(detail::simt_workspace_bytes(p, c.simt, ctx().impl().device), partials);
      st.prepare_d(stream());
      detail::execute(c, p, env);
      const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
      EXPECT_TRUE(chk.passed()) << chk.summary();
      const std::vector<unsigned char> d = st.d.download(stream());
      if (first.empty()) first = d;
      else EXPECT_TRUE(d == first) << "D differs from that of " << runs << " slices asked";
    }
  }
}

// The 16-bit kernel's 192 x 96 tiles (three consumer warpgroups, B in boxes of 32 columns or rows,
// D stored in boxes of 32 columns): every layout of A and B, D row- and column-major, over ragged
// edges (2056 x 1496: 11 x 16 tiles, the last row of tiles 136 rows deep, the last column 56
// wide; rows of 16-byte multiples, which the TMA stores need), whole tiles and a stream-K tail
// forced over the 44 tiles past the first wave, padding and a K that is not a multiple of 64. Half
// the layouts (each storage of A, of B and of D among them) with beta and C = D, D through the
// direct stores; the others with beta = 0, D through the TMA stores' boxes. And gemm() takes the
// tiles at 1536^3.
TEST_P(ApiTyped, TilesOf192RowsMatchTheReference) {
  if (base().ab == DataType::f32) GTEST_SKIP() << "the 16-bit Hopper kernel's tiles";
  if (ctx().impl().device.cc != 90) GTEST_SKIP() << "needs an sm_90 GPU";
  for (const LayoutCombo& l : all_layouts()) {
    if (l.d_order == Order::col_major && l.a_order != Order::row_major) continue;  // 24 of the 32 suffice
    GemmCase gc = sized(with_layout(base(), l), {2056, 1496, 520});
    gc.alpha = 0.75;
    if ((int(l.op_b == Op::transpose) + int(l.b_order == Order::col_major) + int(l.d_order == Order::col_major)) % 2)
      gc.beta = -0.5, gc.c_is_d = true;
    gc.a_pad = 8, gc.d_pad = 8;
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(fmt::format("{} (seed {})", gc.name(), seed));
    const GemmSetup st = make_setup(gc, seed, stream());
    st.prepare_d(stream());  // where C = D, C's values, which the reference reads
    const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
    const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
    const detail::Problem p = detail::normalize(st.g);
    const detail::LaunchEnv env = launch_env(ctx(), stream());
    for (int stream_k : {0, 2}) {
      detail::Choice c;
      c.family = detail::Family::sm90;
      c.sm90 = detail::Sm90Config{192, 96, 1};
      c.sm90.stream_k = stream_k;
      ASSERT_FALSE(detail::sm90_reject(p, c.sm90, ctx().impl().device, env.scratch.bytes).has_value())
          << *detail::sm90_reject(p, c.sm90, ctx().impl().device, env.scratch.bytes);
      if (stream_k == 2)
        EXPECT_GT(detail::sm90_workspace_bytes(p, c.sm90, ctx().impl().device, env.scratch.bytes), 0u) << "a tail";
      st.prepare_d(stream());
      detail::execute(c, p, env);
      const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
      EXPECT_TRUE(chk.passed()) << detail::describe(c, p).config << ": " << chk.summary();
    }
  }
  const GemmSetup square = make_setup(sized(base(), {1536, 1536, 1536}), fresh_seed(), stream());
  EXPECT_NE(plan(ctx(), square.g).config.find("tile=192x96"), std::string::npos) << plan(ctx(), square.g).config;
}

// TF32 with an M-major A and a K-major B (TT, NN with D column-major): enough tiles for the kernel
// to run the transposed problem and write it column-major (tf32_swaps). With beta != 0 it stores
// from registers, float2 pairs, and single floats where an odd leading dimension of D leaves the
// pairs unaligned; with beta = 0 through the TMA, D's columns as the boxes' rows, where D's
// leading dimension (padded by 0 or 4) and batch stride are 16-byte multiples, with either fused
// bias and the activation of the exponential form.
TEST_P(ApiTyped, Tf32TransposedProblemMatchesTheReference) {
  if (base().compute != Compute::tf32) GTEST_SKIP() << "the TF32 kernel's transposed problem";
  for (Order d_order : {Order::row_major, Order::col_major})
    for (std::int64_t d_pad : {0, 1, 4})
      for (double beta : {0.5, 0.0}) {
        GemmCase gc = sized(base(), {4000, 2100, 72});
        gc.d_order = d_order, gc.d_pad = d_pad;
        if (d_order == Order::row_major) gc.op_a = Op::transpose, gc.op_b = Op::transpose;  // TT
        gc.beta = beta, gc.c_is_d = beta != 0.0;
        gc.bias = beta != 0.0 || d_pad == 0 ? BiasKind::per_row : BiasKind::per_column;
        gc.act = beta != 0.0 ? Activation::relu : Activation::gelu_tanh;
        if (beta == 0.0 && d_pad == 4) gc.batch = 2, gc.gap = 4;
        const GemmSetup st = make_setup(gc, fresh_seed(), stream());
        const detail::Problem p = detail::normalize(st.g);
        ASSERT_TRUE(detail::tf32_swaps(p, detail::Tf32Config{})) << gc.name();
        EXPECT_CASE_OK(run_case(ctx(), gc, stream()));
      }
  // Without an epilogue (the TMA store's plain form); the boxes at D's last rows and columns are
  // clipped. (m a multiple of 4: A, stored K x M, has rows of 16-byte multiples, else the problem
  // would not be transposed.)
  GemmCase gc = sized(base(), {3996, 2100, 40});
  gc.op_a = Op::transpose, gc.op_b = Op::transpose;
  const GemmSetup st = make_setup(gc, fresh_seed(), stream());
  ASSERT_TRUE(detail::tf32_swaps(detail::normalize(st.g), detail::Tf32Config{})) << gc.name();
  EXPECT_CASE_OK(run_case(ctx(), gc, stream()));
}

// The Hopper kernels' staged epilogue (sm90_store_ring.cuh, copy_box_out): a D whose rows are
// not 16-byte multiples, so that the TMA cannot store it, with beta 0 is written through the same
// shared-memory boxes and copied out by the threads. Every configuration dispatch may choose of
// the 16-bit kernel and of the TF32 one (each tile with and without a stream-K tail, split-K),
// plain and fused, single outputs (odd ld) and aligned pairs (even ld), partial tiles at both
// edges, a batch with gaps, the padding poisoned (check_output fails on a write to it). The
// grouped tests cover a group's last rows; Tf32TransposedProblem the TF32 column-major form.
TEST_P(ApiTyped, StagedStoresOfUnalignedDMatchTheReference) {
  if (base().ab == DataType::f32 && base().compute != Compute::tf32) GTEST_SKIP() << "the tensor-core kernels";
  if (ctx().impl().device.cc != 90) GTEST_SKIP() << "needs an sm_90 GPU";
  const bool tf32 = base().compute == Compute::tf32;
  int ran = 0;
  for (const auto& [n, d_pad, fused] : {std::tuple{1001, 0, false}, std::tuple{998, 0, true}, std::tuple{998, 3, false},
                                        std::tuple{1001, 2, true}}) {
    GemmCase gc = sized(base(), {1037, n, 23});
    gc.d_pad = d_pad, gc.alpha = 0.75;
    if (fused) gc.bias = n % 2 ? BiasKind::per_row : BiasKind::per_column, gc.act = Activation::gelu_tanh;
    if (d_pad == 3) gc.batch = 2, gc.gap = 5;
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(fmt::format("{} (seed {})", gc.name(), seed));
    const GemmSetup st = make_setup(gc, seed, stream());
    const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
    const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
    const detail::Problem p = detail::normalize(st.g);
    const detail::LaunchEnv env = launch_env(ctx(), stream());
    std::vector<detail::Choice> choices;
    if (tf32) {
      for (const detail::Tf32Config& config : detail::tf32_configs()) {
        detail::Choice c;
        c.family = detail::Family::sm90_tf32, c.tf32 = config;
        if (!detail::tf32_reject(p, c.tf32, ctx().impl().device, env.scratch.bytes)) choices.push_back(c);
      }
    } else {
      for (const detail::Sm90Config& config : detail::sm90_configs()) {
        detail::Choice c;
        c.family = detail::Family::sm90, c.sm90 = config;
        if (!detail::sm90_reject(p, c.sm90, ctx().impl().device, env.scratch.bytes)) choices.push_back(c);
      }
    }
    for (const detail::Choice& c : choices) {
      st.d.poison(stream());
      detail::execute(c, p, env);
      const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
      EXPECT_TRUE(chk.passed()) << detail::describe(c, p).config << ": " << chk.summary();
      ++ran;
    }
  }
  EXPECT_GE(ran, tf32 ? 12 : 24) << "too few configurations took the unaligned D";
}

INSTANTIATE_TEST_SUITE_P(Types, ApiTyped, ::testing::ValuesIn(type_combos()), type_name);

// ---- Refused calls -----------------------------------------------------------------------------

class ApiRejects : public ApiTest {};

// One refused call: how it differs from a valid one, and what it must throw.
struct Refusal {
  std::string what;
  std::function<void(Gemm&)> change;
  bool unsupported;               // Unsupported (else InvalidArgument)
  std::string argument;           // InvalidArgument::argument(); for Unsupported, what its message starts with
  bool by_pointer_check = false;  // refused by gemm()'s memory checks (api/gemm.cpp), which plan() skips
};

// Every allocation of the valid call, to see that a refused call wrote nothing anywhere.
std::vector<std::vector<unsigned char>> snapshot(const GemmSetup& st, cudaStream_t s) {
  return {st.a.download(s), st.b.download(s), st.c.download(s), st.d.download(s), st.bias.download(s)};
}

// gemm() must throw; so must plan() ("validated the same way", gemm.hpp) when `with_plan`.
template <class Call>
void expect_refused(const Context& ctx, const Call& g, const Refusal& r, cudaStream_t s, Workspace* ws = nullptr,
                    bool with_plan = true) {
  SCOPED_TRACE(r.what);
  for (int via_plan = 0; via_plan < (with_plan ? 2 : 1); ++via_plan) {
    try {
      if (via_plan)
        (void)plan(ctx, g, ws);
      else
        gemm(ctx, g, s, ws);
      ADD_FAILURE() << (via_plan ? "plan()" : "gemm()") << " accepted the call";
    } catch (const InvalidArgument& e) {
      EXPECT_FALSE(r.unsupported) << "InvalidArgument instead of Unsupported: " << e.what();
      EXPECT_EQ(e.argument(), r.argument) << e.what();
    } catch (const Unsupported& e) {
      EXPECT_TRUE(r.unsupported) << "Unsupported instead of InvalidArgument: " << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(r.argument + ":", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw neither InvalidArgument nor Unsupported: " << e.what();
    }
  }
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  GEMMLAB_CUDA(cudaGetLastError());
}

TEST_F(ApiRejects, RefusedCallsThrowTheRightErrorAndWriteNothing) {
  GemmCase gc;
  gc.m = 64, gc.n = 48, gc.k = 32;
  gc.beta = 0.5;
  gc.bias = BiasKind::per_row;
  const GemmSetup st = make_setup(gc, fresh_seed(), stream());
  st.d.poison(stream());
  const auto before = snapshot(st, stream());
  std::vector<float> host_a(std::size_t(gc.m * gc.k), 1.0f);  // malloc'ed: the GPU cannot read it
  const float* misaligned_scalar = reinterpret_cast<const float*>(static_cast<const char*>(st.bias.data()) + 1);
  const std::vector<Refusal> refusals = {
      {"a.ld below the row length", [](Gemm& g) { g.a.ld = g.k - 1; }, false, "a.ld"},
      {"b.ld below the row length", [](Gemm& g) { g.b.ld = g.n - 1; }, false, "b.ld"},
      {"c.ld below the row length", [](Gemm& g) { g.c.ld = g.n - 1; }, false, "c.ld"},
      {"d.ld below the row length", [](Gemm& g) { g.d.ld = 1; }, false, "d.ld"},
      {"column-major A with the row-major ld", [](Gemm& g) { g.a.order = Order::col_major, g.a.ld = g.k; }, false,
       "a.ld"},
      {"null A", [](Gemm& g) { g.a.data = nullptr; }, false, "a.data"},
      {"null B", [](Gemm& g) { g.b.data = nullptr; }, false, "b.data"},
      {"null C with beta != 0", [](Gemm& g) { g.c.data = nullptr; }, false, "c.data"},
      {"null bias with a bias kind", [](Gemm& g) { g.epilogue.bias = nullptr; }, false, "epilogue.bias"},
      {"a bias with bias_kind none", [](Gemm& g) { g.epilogue.bias_kind = BiasKind::none; }, false, "epilogue.bias"},
      {"A from malloc", [&](Gemm& g) { g.a.data = host_a.data(); }, false, "a.data", true},
      {"misaligned alpha pointer", [&](Gemm& g) { g.alpha = Scalar::on_device(misaligned_scalar); }, false,
       "alpha.device"},
      {"m = 0", [](Gemm& g) { g.m = 0; }, false, "m"},
      {"k = -1", [](Gemm& g) { g.k = -1; }, false, "k"},
      {"batch = 0", [](Gemm& g) { g.batch = 0; }, false, "batch"},
      {"batch 2 writing one D", [](Gemm& g) { g.batch = 2, g.a.batch_stride = 0, g.b.batch_stride = 0; }, false,
       "d.batch_stride"},
      {"C overlapping D, one element in",
       [&](Gemm& g) { g.c = st.d.input(), g.c.data = static_cast<const float*>(st.d.data()) + 1; }, false, "c"},
      {"C = D with another ld", [&](Gemm& g) { g.c = st.d.input(), g.c.ld = g.n + 1; }, false, "c"},
      {"D overlapping A", [&](Gemm& g) { g.d.data = const_cast<void*>(g.a.data); }, false, "d"},
      {"an op that is no Op", [](Gemm& g) { g.op_a = static_cast<Op>(7); }, false, "op_a"},
      {"a determinism that is no Determinism", [](Gemm& g) { g.determinism = static_cast<Determinism>(9); }, false,
       "determinism"},
      {"a scale on A", [&](Gemm& g) { g.a.scale = static_cast<const float*>(st.bias.data()); }, false, "a.scale"},
      {"f32 A with f16 B", [](Gemm& g) { g.b.type = DataType::f16; }, true, "b.type"},
      {"f32 operands into bf16 D", [](Gemm& g) { g.d.type = DataType::bf16, g.c.type = DataType::bf16; }, true,
       "d.type"},
      {"FP8 operands", [](Gemm& g) { g.a.type = g.b.type = DataType::e4m3; }, true, "a.type"},
      {"FP8 D", [](Gemm& g) { g.d.type = DataType::e5m2; }, true, "d.type"},
      {"C of another type than D", [](Gemm& g) { g.c.type = DataType::f16; }, true, "c.type"},
      {"a bf16 bias for an f32 D", [](Gemm& g) { g.epilogue.bias_type = DataType::bf16; }, true, "epilogue.bias_type"},
  };
  for (const Refusal& r : refusals) {
    Gemm g = st.g;
    r.change(g);
    expect_refused(ctx(), g, r, stream(), nullptr, !r.by_pointer_check);
  }
  EXPECT_TRUE(before == snapshot(st, stream())) << "a refused call wrote to one of its matrices";
}

// gemm.hpp: plan() validates the arguments but not the memory they name (it plans with placeholder
// addresses, as `gemmlab explain` does); gemm() refuses memory the GPU cannot read, naming it.
TEST_F(ApiRejects, PlanLeavesMemoryAloneAndGemmRefusesHostMemory) {
  GemmCase gc;
  gc.m = 64, gc.n = 48, gc.k = 32;
  const GemmSetup st = make_setup(gc, fresh_seed(), stream());
  std::vector<float> host_a(std::size_t(gc.m * gc.k), 1.0f);
  Gemm g = st.g;
  g.a.data = host_a.data();
  EXPECT_NO_THROW((void)plan(ctx(), g));
  try {
    gemm(ctx(), g, stream());
    ADD_FAILURE() << "gemm() accepted an A from malloc";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "a.data") << e.what();
  }
}

// Another GPU's memory and another GPU's workspace are refused (they would fault in the kernel).
TEST_F(ApiRejects, MemoryAndWorkspaceOfAnotherGpuAreRefused) {
  if (device_count() < 2) GTEST_SKIP() << "needs two GPUs";
  GemmCase gc;
  gc.m = 64, gc.n = 48, gc.k = 32;
  const GemmSetup st = make_setup(gc, fresh_seed(), stream());
  st.d.poison(stream());
  const auto before = snapshot(st, stream());
  int previous = 0;
  GEMMLAB_CUDA(cudaGetDevice(&previous));
  GEMMLAB_CUDA(cudaSetDevice(1));
  {
    DeviceBuffer other(std::size_t(gc.m * gc.k) * 4);
    Context::Options o;
    o.device = 1;
    const Context ctx1(o);
    Workspace other_ws(ctx1, 1 << 20);
    GEMMLAB_CUDA(cudaSetDevice(previous));
    Gemm g = st.g;
    g.a.data = other.get();
    expect_refused(ctx(), g, {"A on GPU 1", nullptr, false, "a.data"}, stream(), nullptr, false);
    expect_refused(ctx(), st.g, {"a workspace of GPU 1", nullptr, false, "workspace"}, stream(), &other_ws, false);
  }
  EXPECT_TRUE(before == snapshot(st, stream()));
}

// ---- Other memory kinds ------------------------------------------------------------------------

class ApiMemory : public ApiTest {};

// Pinned host memory and managed memory are readable by the GPU: accepted, and read correctly.
TEST_F(ApiMemory, PinnedAndManagedOperandsAreRead) {
  GemmCase gc;
  gc.m = 67, gc.n = 45, gc.k = 33;
  gc.op_a = Op::transpose;
  const GemmSetup st = make_setup(gc, fresh_seed(), stream());
  GEMMLAB_CUDA(cudaStreamSynchronize(stream()));
  void* raw = nullptr;
  GEMMLAB_CUDA(cudaMallocHost(&raw, st.a.bytes()));
  const std::unique_ptr<void, cudaError_t (*)(void*)> pinned(raw, cudaFreeHost);
  GEMMLAB_CUDA(cudaMallocManaged(&raw, st.b.bytes()));
  const std::unique_ptr<void, cudaError_t (*)(void*)> managed(raw, cudaFree);
  // The whole allocations, poisoned padding and guards too, at the same offsets.
  GEMMLAB_CUDA(cudaMemcpyAsync(pinned.get(), st.a.allocation(), st.a.bytes(), cudaMemcpyDefault, stream()));
  GEMMLAB_CUDA(cudaMemcpyAsync(managed.get(), st.b.allocation(), st.b.bytes(), cudaMemcpyDefault, stream()));
  GEMMLAB_CUDA(cudaStreamSynchronize(stream()));
  Gemm g = st.g;
  g.a.data = static_cast<const char*>(pinned.get()) + apiref::kGuardBytes;
  g.b.data = static_cast<const char*>(managed.get()) + apiref::kGuardBytes;
  const Reference ref = apiref::reference(g, 1, 0, stream());
  for (const Path& p : paths(ctx(), g, stream())) {
    st.d.poison(stream());
    p.run();
    const OutputCheck chk = apiref::check_output(st.d, ref, apiref::tolerance_for(gc.ab, gc.cd, gc.compute), stream());
    EXPECT_TRUE(chk.passed()) << p.name << ": " << chk.summary();
  }
  GEMMLAB_CUDA(cudaStreamSynchronize(stream()));
}

// ---- Plans -------------------------------------------------------------------------------------

class ApiPlan : public ApiTest {};

TEST_F(ApiPlan, PlansNameAKernelAndAReasonAndLaunchNothing) {
  Workspace ws(ctx(), 1 << 20);
  for (const TypeCombo& t : type_combos())
    for (Dims d : {Dims{1, 1, 1}, Dims{136, 200, 72}, Dims{4096, 4096, 4096}}) {
      GemmCase gc = with_types(sized(GemmCase{}, d), t);
      gc.op_b = Op::transpose;
      const GemmSetup st = make_setup(gc, fresh_seed(), stream());
      st.d.poison(stream());
      for (const Workspace* w : {static_cast<const Workspace*>(nullptr), static_cast<const Workspace*>(&ws)}) {
        SCOPED_TRACE(fmt::format("{} workspace {}", gc.name(), w ? "1 MiB" : "the context's"));
        const Plan pl = plan(ctx(), st.g, w);
        EXPECT_FALSE(pl.kernel.empty());
        EXPECT_FALSE(pl.reason.empty());
        EXPECT_LE(pl.workspace_bytes, w ? w->bytes() : ctx().options().workspace_bytes);
      }
      // plan() enqueued nothing: D still all poison.
      EXPECT_EQ(apiref::changed_padding_bytes(st.d, 0, stream()), 0);
    }
}

}  // namespace
