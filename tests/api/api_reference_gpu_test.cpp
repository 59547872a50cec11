// The API reference and the output check themselves (src/reference/api_reference.*): the
// reference agrees with a host loop on every layout, batch and group arrangement and with cuBLAS
// DGEMM at scale, is fast enough for 4096^3, and the check catches a wrong element, an unwritten
// element, and a byte written anywhere outside the logical elements.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <cublas_v2.h>

#include "api/api_support.hpp"
#include "core/fill.hpp"
#include "reference/device_reference.hpp"

using namespace gemmlab;
using namespace gemmlab::apitest;

namespace {

class ApiReference : public ApiTest {};

std::vector<double> download_doubles(const DeviceBuffer& b, cudaStream_t s) {
  std::vector<double> h(b.bytes() / sizeof(double));
  if (h.empty()) return h;
  GEMMLAB_CUDA(cudaMemcpyAsync(h.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  return h;
}

double host_activate(double x, Activation a) {
  constexpr double kPi = 3.14159265358979323846;
  switch (a) {
    case Activation::relu: return std::max(x, 0.0);
    case Activation::gelu_tanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
    case Activation::silu: return x / (1 + std::exp(-x));
    default: return x;
  }
}

// The host loop: D(item, i, j) for an item's rows [row0, row1), with B item `b_item` and bias
// vector `bias_item`; compares with the reference's value and scale.
struct HostLoop {
  const HostMatrix &a, &b;
  const HostMatrix* c;
  const HostMatrix* bias;
  Op op_a, op_b;
  double alpha, beta;
  BiasKind bias_kind;
  Activation act;
  std::int64_t n, k, m;

  void check(const std::vector<double>& value, const std::vector<double>& scale, std::int64_t item, std::int64_t a_item,
             std::int64_t b_item, std::int64_t bias_item, std::int64_t row0, std::int64_t row1) const {
    for (std::int64_t i = row0; i < row1; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double v = 0, s = 0;
        for (std::int64_t kk = 0; kk < k; ++kk) {
          const double x = a.op_at(op_a, a_item, i, kk), y = b.op_at(op_b, b_item, kk, j);
          v += x * y;
          s += std::fabs(x * y);
        }
        v *= alpha;
        s *= std::fabs(alpha);
        if (beta != 0) {
          v += beta * c->at(item, i, j);
          s += std::fabs(beta * c->at(item, i, j));
        }
        if (bias_kind != BiasKind::none) {
          const double bv = bias->at(bias_item, 0, bias_kind == BiasKind::per_row ? i : j);
          v += bv;
          s += std::fabs(bv);
        }
        const std::size_t at = std::size_t((item * m + i) * n + j);
        ASSERT_NEAR(value[at], host_activate(v, act), 1e-12 * (s + 1e-300)) << item << " " << i << " " << j;
        ASSERT_NEAR(scale[at], s, 1e-12 * s) << item << " " << i << " " << j;
      }
  }
};

TEST_F(ApiReference, MatchesAHostLoopOnEveryLayoutAndBatch) {
  for (const TypeCombo& t : {type_combos()[0], type_combos()[3], type_combos()[5]})
    for (const LayoutCombo& l : all_layouts())
      for (bool broadcast_b : {false, true}) {
        GemmCase gc = with_layout(with_types(GemmCase{}, t), l);
        gc.m = 13, gc.n = 70, gc.k = 19;  // a second tile of 64 columns
        gc.batch = 2, gc.gap = 3, gc.b_broadcast = broadcast_b;
        gc.a_pad = 2, gc.d_pad = 1, gc.c_pad = 4;
        gc.alpha = -1.5, gc.beta = 0.75;
        gc.bias = BiasKind::per_row, gc.bias_batched = true, gc.bias_f32 = t.cd == DataType::f32;
        gc.act = Activation::gelu_tanh;
        SCOPED_TRACE(gc.name());
        const GemmSetup st = make_setup(gc, fresh_seed(), stream());
        const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
        const HostMatrix a(st.a, stream()), b(st.b, stream()), c(st.c, stream()), bias(st.bias, stream());
        const HostLoop loop{a, b, &c, &bias, gc.op_a, gc.op_b, gc.alpha, gc.beta, gc.bias, gc.act, gc.n, gc.k, gc.m};
        const auto value = download_doubles(ref.value, stream()), scale = download_doubles(ref.scale, stream());
        for (std::int64_t item = 0; item < gc.batch; ++item)
          loop.check(value, scale, item, item, broadcast_b ? 0 : item, item, 0, gc.m);
        EXPECT_EQ(ref.rows_used, gc.m);
      }
}

TEST_F(ApiReference, MatchesAHostLoopOnGroups) {
  for (Op op_a : {Op::none, Op::transpose})
    for (Order b_order : {Order::row_major, Order::col_major}) {
      GroupedCase gc;
      gc.ab = gc.cd = DataType::bf16;
      gc.sizes = {0, 20, 0, 70, 1};
      gc.unused = 6;
      gc.n = 67, gc.k = 21;
      gc.op_a = op_a, gc.b_order = b_order, gc.b_gap = 5, gc.a_pad = 1;
      gc.alpha = 0.5, gc.beta = -2, gc.act = Activation::silu;
      gc.bias = BiasKind::per_column, gc.bias_per_group = true, gc.bias_f32 = false;
      SCOPED_TRACE(gc.name());
      const GroupedSetup st = make_grouped_setup(gc, fresh_seed(), stream());
      const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
      const HostMatrix a(st.a, stream()), b(st.b, stream()), c(st.c, stream()), bias(st.bias, stream());
      const HostLoop loop{a, b, &c, &bias, gc.op_a, gc.op_b, gc.alpha, gc.beta, gc.bias, gc.act, gc.n, gc.k, gc.m()};
      const auto value = download_doubles(ref.value, stream()), scale = download_doubles(ref.scale, stream());
      const auto offsets = gc.offsets();
      std::int64_t start = 0;
      for (std::size_t g = 0; g < offsets.size(); ++g) {
        loop.check(value, scale, 0, 0, std::int64_t(g), std::int64_t(g), start, offsets[g]);
        start = offsets[g];
      }
      EXPECT_EQ(ref.rows_used, offsets.back());
    }
}

// At scale, against the lab's reference (cuBLAS DGEMM on the operands upcast): packed row-major.
TEST_F(ApiReference, MatchesCublasDgemmAtScale) {
  cublasHandle_t h = nullptr;
  GEMMLAB_CUBLAS(cublasCreate(&h));
  const std::unique_ptr<cublasContext, cublasStatus_t (*)(cublasHandle_t)> handle(h, cublasDestroy);
  for (DataType t : {DataType::f32, DataType::bf16}) {
    GemmCase gc;
    gc.ab = t;
    gc.m = 1000, gc.n = 1200, gc.k = 1500;
    gc.alpha = -1.5, gc.beta = 0.75;
    const GemmSetup st = make_setup(gc, fresh_seed(), stream());
    const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
    const DType dt = t == DataType::f32 ? DType::f32 : DType::bf16;
    const DeviceReference blas = compute_reference(h, stream(), Shape{gc.m, gc.n, gc.k}, gc.alpha, st.a.data(),
                                                   st.b.data(), dt, gc.beta, st.c.data(), DType::f32);
    const auto v = download_doubles(ref.value, stream()), s = download_doubles(ref.scale, stream());
    const auto bv = download_doubles(blas.ref, stream()), bs = download_doubles(blas.scale, stream());
    ASSERT_EQ(v.size(), bv.size());
    double worst = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      worst = std::max(worst, std::fabs(v[i] - bv[i]) / bs[i]);
      ASSERT_NEAR(s[i], bs[i], 1e-12 * bs[i]) << i;
    }
    EXPECT_LT(worst, 1e-12);
  }
}

// The benchmark tool checks large runs with it: 4096^3 well within seconds (about 1.4e11 FMA in
// double, with the magnitudes).
TEST_F(ApiReference, IsFastEnoughFor4096Cubed) {
  GemmCase gc;
  gc.ab = gc.cd = DataType::bf16;
  gc.m = gc.n = gc.k = 4096;
  gc.op_b = Op::transpose;
  const GemmSetup st = make_setup(gc, fresh_seed(), stream());
  (void)apiref::reference(st.g, 1, 0, stream());  // warm-up: module load
  GEMMLAB_CUDA(cudaStreamSynchronize(stream()));
  const auto t0 = std::chrono::steady_clock::now();
  const Reference ref = apiref::reference(st.g, 1, 0, stream());
  GEMMLAB_CUDA(cudaStreamSynchronize(stream()));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("reference_4096_seconds", fmt::format("{:.3f}", seconds));
  std::printf("API reference, 4096^3 bf16: %.3f s\n", seconds);
  EXPECT_LT(seconds, 3.0);
}

// ---- The output check catches what it must ----------------------------------------------------

// On the test's stream (non-blocking: a plain cudaMemcpy would not be ordered with its kernels).
void write_bytes(const TestMatrix& m, std::int64_t offset_from_matrix, const void* src, std::size_t n, cudaStream_t s) {
  GEMMLAB_CUDA(
      cudaMemcpyAsync(static_cast<unsigned char*>(m.data()) + offset_from_matrix, src, n, cudaMemcpyHostToDevice, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
}

TEST_F(ApiReference, CheckCatchesWrongUnwrittenAndStrayBytes) {
  GemmCase gc;
  gc.m = 37, gc.n = 29, gc.k = 41;
  gc.batch = 2, gc.gap = 5, gc.d_pad = 3;
  const GemmSetup st = make_setup(gc, fresh_seed(), stream());
  const Reference ref = apiref::reference(st.g, 1, 0, stream());
  const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
  const Layout& l = st.d.layout();
  auto fresh_d = [&] {
    st.d.poison(stream());
    gemm(ctx(), st.g, stream());
    const OutputCheck ok = apiref::check_output(st.d, ref, tol, stream());
    EXPECT_TRUE(ok.passed()) << ok.summary();
  };
  const unsigned char byte = 0x00;
  struct Stray {
    const char* what;
    std::int64_t offset;  // bytes from the matrix start
  };
  const std::vector<Stray> strays = {
      {"row padding", (2 * l.resolved_ld() + gc.n) * 4 + 1},
      {"the gap between items", (l.item_span() + 2) * 4},
      {"the guard before the matrix", -7},
      {"the guard after the matrix", l.span() * 4 + 3},
  };
  for (const Stray& s : strays) {
    SCOPED_TRACE(s.what);
    fresh_d();
    write_bytes(st.d, s.offset, &byte, 1, stream());
    const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
    EXPECT_FALSE(chk.passed());
    EXPECT_TRUE(chk.verification.passed) << "a stray byte is no logical element";
    EXPECT_EQ(chk.poison_changed, 1);
    EXPECT_EQ(chk.first_changed, s.offset);
  }
  {
    SCOPED_TRACE("one element off by 0.05");
    fresh_d();
    const auto value = ref.download_value(stream());
    const std::int64_t item = 1, r = 20, c = 11;
    const float wrong = float(value[std::size_t((item * gc.m + r) * gc.n + c)] + 0.05);
    write_bytes(st.d, l.offset(item, r, c) * 4, &wrong, 4, stream());
    const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
    EXPECT_FALSE(chk.passed());
    EXPECT_EQ(chk.poison_changed, 0);
    EXPECT_GT(chk.verification.max_elementwise, tol.elementwise);
  }
  {
    SCOPED_TRACE("one element never written");
    fresh_d();
    const unsigned char poison[4] = {apiref::kPoison, apiref::kPoison, apiref::kPoison, apiref::kPoison};
    write_bytes(st.d, l.offset(0, 36, 28) * 4, poison, 4, stream());
    const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
    EXPECT_FALSE(chk.passed());
    EXPECT_EQ(chk.verification.nonfinite, 1);
  }
}

TEST_F(ApiReference, CheckCatchesAWrittenUnusedRowOfAGroupedCall) {
  GroupedCase gc;
  gc.sizes = {10, 0, 7};
  gc.unused = 4;
  gc.n = 9, gc.k = 5;
  const GroupedSetup st = make_grouped_setup(gc, fresh_seed(), stream());
  const Reference ref = apiref::reference(st.g, 1, 0, stream());
  EXPECT_EQ(ref.rows_used, 17);
  st.d.poison(stream());
  gemm(ctx(), st.g, stream());
  const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
  const OutputCheck ok = apiref::check_output(st.d, ref, tol, stream());
  EXPECT_TRUE(ok.passed()) << ok.summary();
  const float zero = 0.0f;
  write_bytes(st.d, st.d.layout().offset(0, 18, 3) * 4, &zero, 4, stream());
  const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
  EXPECT_FALSE(chk.passed());
  EXPECT_EQ(chk.poison_changed, 4);
  EXPECT_EQ(chk.first_changed, st.d.layout().offset(0, 18, 3) * 4);
}

}  // namespace
