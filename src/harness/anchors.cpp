#include "harness/anchors.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <fmt/format.h>

#include "core/buffer.hpp"
#include "core/error.hpp"

namespace gemmlab::anchor {

namespace {

cudaDataType_t cuda_type(DataType t) {
  switch (t) {
    case DataType::f32: return CUDA_R_32F;
    case DataType::f16: return CUDA_R_16F;
    case DataType::bf16: return CUDA_R_16BF;
    default: throw Unsupported(fmt::format("cuBLAS anchors take f32, f16 and bf16, not {}", to_string(t)));
  }
}

cublasComputeType_t compute_of(const Gemm& g) {
  return g.a.type == DataType::f32 && g.compute == Compute::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

std::int64_t packed_ld(Order o, std::int64_t rows, std::int64_t cols) { return std::max<std::int64_t>(1, o == Order::row_major ? cols : rows); }

// One operand as cuBLAS (column-major) sees it. cuBLAS multiplies opX(X) with X column-major; a
// row-major stored matrix is its own transpose in column-major terms.
struct BlasOperand {
  const void* ptr;
  cublasOperation_t op;
  std::int64_t ld, stride;
};

// X with op(X) = `want` rows x cols: the operation cuBLAS applies to X's column-major view.
BlasOperand blas_operand(const Matrix& x, Op op, bool want_transposed, std::int64_t rows, std::int64_t cols) {
  const bool t = op == Op::transpose;
  const std::int64_t srows = t ? cols : rows, scols = t ? rows : cols;
  const std::int64_t ld = x.ld ? x.ld : packed_ld(x.order, srows, scols);
  // Column-major view of the stored matrix: itself (col-major) or its transpose (row-major).
  const bool view_is_transposed = x.order == Order::row_major;
  // op(X) is the stored matrix (t false) or its transpose; we want op(X) or op(X)^T.
  const bool need = (t != view_is_transposed) != want_transposed;
  return {x.data, need ? CUBLAS_OP_T : CUBLAS_OP_N, ld, x.batch_stride};
}

struct CublasState {
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  DeviceBuffer workspace;
  ~CublasState() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (lt) cublasLtDestroy(lt);
  }
};

void check_lt(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(fmt::format("cuBLASLt: {} failed ({})", what, cublas_status_name(s)));
}

}  // namespace

Anchor cublas_for(Lab& lab, const Gemm& g) {
  if (g.alpha.device || g.beta.device) throw Unsupported("anchors take host alpha and beta");
  // D column-major: cuBLAS computes D = op(A) op(B) directly. Row-major: D^T = op(B)^T op(A)^T,
  // column-major, so the operands trade places and m, n swap.
  const bool col = g.d.order == Order::col_major;
  const BlasOperand x = col ? blas_operand(g.a, g.op_a, false, g.m, g.k) : blas_operand(g.b, g.op_b, true, g.k, g.n);
  const BlasOperand y = col ? blas_operand(g.b, g.op_b, false, g.k, g.n) : blas_operand(g.a, g.op_a, true, g.m, g.k);
  const std::int64_t m = col ? g.m : g.n, n = col ? g.n : g.m, k = g.k;
  const std::int64_t ldd = g.d.ld ? g.d.ld : packed_ld(g.d.order, g.m, g.n);
  const cudaDataType_t ab = cuda_type(g.a.type), cd = cuda_type(g.d.type);
  const cublasComputeType_t compute = compute_of(g);
  const float alpha = g.alpha.value, beta = g.beta.value;
  void* d = g.d.data;
  const void* c = g.beta.value != 0.0f ? g.c.data : g.d.data;
  if (g.beta.value != 0.0f && g.c.data != g.d.data) throw Unsupported("cuBLAS anchors compute in place: C must be D");
  cublasHandle_t h = lab.cublas();
  const cudaStream_t s = lab.stream();
  (void)c;
  if (g.epilogue.bias_kind == BiasKind::none && g.epilogue.activation == Activation::none) {
    Anchor a;
    if (g.batch == 1) {
      a.name = "cublasGemmEx";
      a.run = [=] {
        GEMMLAB_CUBLAS(cublasSetStream(h, s));
        GEMMLAB_CUBLAS(cublasGemmEx(h, x.op, y.op, int(m), int(n), int(k), &alpha, x.ptr, ab, int(x.ld), y.ptr, ab,
                                    int(y.ld), &beta, d, cd, int(ldd), compute, CUBLAS_GEMM_DEFAULT));
      };
    } else {
      a.name = "cublasGemmStridedBatchedEx";
      const std::int64_t batch = g.batch, sd = g.d.batch_stride;
      a.run = [=] {
        GEMMLAB_CUBLAS(cublasSetStream(h, s));
        GEMMLAB_CUBLAS(cublasGemmStridedBatchedEx(h, x.op, y.op, int(m), int(n), int(k), &alpha, x.ptr, ab, int(x.ld),
                                                  x.stride, y.ptr, ab, int(y.ld), y.stride, &beta, d, cd, int(ldd), sd,
                                                  int(batch), compute, CUBLAS_GEMM_DEFAULT));
      };
    }
    return a;
  }
  // A fused epilogue through cuBLASLt: its bias runs along the rows of its (column-major) output,
  // i.e. one value per column of a row-major D.
  const bool bias = g.epilogue.bias_kind != BiasKind::none;
  if (bias && g.epilogue.bias_kind != (col ? BiasKind::per_row : BiasKind::per_column))
    throw Unsupported("cuBLASLt's bias runs along the rows of its column-major output only");
  if (g.batch != 1) throw Unsupported("the cuBLASLt epilogue anchor takes batch 1");
  cublasLtEpilogue_t epilogue;
  switch (g.epilogue.activation) {
    case Activation::none: epilogue = CUBLASLT_EPILOGUE_BIAS; break;
    case Activation::relu: epilogue = bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU; break;
    case Activation::gelu_tanh: epilogue = bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU; break;
    default: throw Unsupported("cuBLASLt has no SiLU epilogue");
  }
  auto st = std::make_shared<CublasState>();
  check_lt(cublasLtCreate(&st->lt), "cublasLtCreate");
  check_lt(cublasLtMatmulDescCreate(&st->desc, compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = x.op, tb = y.op;
  check_lt(cublasLtMatmulDescSetAttribute(st->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)), "TRANSA");
  check_lt(cublasLtMatmulDescSetAttribute(st->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)), "TRANSB");
  check_lt(cublasLtMatmulDescSetAttribute(st->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)), "EPILOGUE");
  if (bias) {
    const void* bp = g.epilogue.bias;
    const cudaDataType_t bt = cuda_type(g.epilogue.bias_type.value_or(g.d.type));
    check_lt(cublasLtMatmulDescSetAttribute(st->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof(bp)), "BIAS_POINTER");
    check_lt(cublasLtMatmulDescSetAttribute(st->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)), "BIAS_DATA_TYPE");
  }
  // Column-major layouts of the stored operands: X is m x k (or k x m when transposed), Y k x n.
  check_lt(cublasLtMatrixLayoutCreate(&st->la, ab, ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, x.ld), "layout A");
  check_lt(cublasLtMatrixLayoutCreate(&st->lb, ab, tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, y.ld), "layout B");
  check_lt(cublasLtMatrixLayoutCreate(&st->lc, cd, m, n, ldd), "layout D");
  st->workspace = DeviceBuffer(std::size_t(64) << 20);
  check_lt(cublasLtMatmulPreferenceCreate(&st->pref), "preference");
  const std::size_t ws = st->workspace.bytes();
  check_lt(cublasLtMatmulPreferenceSetAttribute(st->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)), "workspace");
  int found = 0;
  check_lt(cublasLtMatmulAlgoGetHeuristic(st->lt, st->desc, st->la, st->lb, st->lc, st->lc, st->pref, 1, &st->algo, &found),
           "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw Unsupported("cuBLASLt found no algorithm for this epilogue");
  Anchor a;
  a.name = fmt::format("cublasLtMatmul {}", epilogue == CUBLASLT_EPILOGUE_GELU_BIAS ? "GELU_BIAS"
                                            : epilogue == CUBLASLT_EPILOGUE_RELU_BIAS ? "RELU_BIAS"
                                            : epilogue == CUBLASLT_EPILOGUE_BIAS    ? "BIAS"
                                            : epilogue == CUBLASLT_EPILOGUE_GELU    ? "GELU"
                                                                                    : "RELU");
  CublasState* raw = st.get();
  a.run = [=] {
    check_lt(cublasLtMatmul(raw->lt, raw->desc, &alpha, x.ptr, raw->la, y.ptr, raw->lb, &beta, d, raw->lc, d, raw->lc,
                            &raw->algo.algo, raw->workspace.get(), raw->workspace.bytes(), s),
             "cublasLtMatmul");
  };
  a.state = st;
  return a;
}

Anchor cublas_grouped_for(Lab& lab, const GroupedGemm& g, const std::vector<std::int32_t>& offsets) {
  if (g.alpha.device || g.beta.device || g.beta.value != 0.0f) throw Unsupported("the grouped anchor takes beta = 0");
  if (g.epilogue.bias_kind != BiasKind::none || g.epilogue.activation != Activation::none)
    throw Unsupported("cublasGemmGroupedBatchedEx has no epilogue");
  struct State {
    std::vector<cublasOperation_t> ta, tb;
    std::vector<int> m, n, k, lda, ldb, ldc, size;
    std::vector<float> alpha, beta;
    DeviceBuffer ptrs;  // A, B and C pointer arrays, device memory
  };
  auto st = std::make_shared<State>();
  const std::size_t es = size_of(g.a.type), ds = size_of(g.d.type);
  std::vector<const void*> a_ptrs, b_ptrs;
  std::vector<void*> c_ptrs;
  std::int64_t start = 0;
  const std::int64_t ldd = g.d.ld ? g.d.ld : g.n;
  for (int i = 0; i < g.groups; ++i) {
    const std::int64_t end = offsets[std::size_t(i)], rows = end - start;
    if (rows > 0) {
      // D_g^T (n x rows, column-major) = op(B_g)^T op(A_g)^T.
      // The group's rows of op(A): `start` lines further when A is K-major, `start` elements when
      // M-major; the leading dimension is the stacked A's (packed: k, or m).
      Matrix a = g.a;
      const bool k_major = (a.order == Order::row_major) != (g.op_a == Op::transpose);
      a.ld = a.ld ? a.ld : (k_major ? g.k : g.m);
      a.data = static_cast<const char*>(g.a.data) + (k_major ? start * a.ld : start) * std::int64_t(es);
      Matrix b = g.b;
      b.data = static_cast<const char*>(g.b.data) + std::int64_t(i) * g.b.batch_stride * es;
      b.batch_stride = 0;
      const BlasOperand x = blas_operand(b, g.op_b, true, g.k, g.n);
      const BlasOperand y = blas_operand(a, g.op_a, true, rows, g.k);
      st->ta.push_back(x.op), st->tb.push_back(y.op);
      st->m.push_back(int(g.n)), st->n.push_back(int(rows)), st->k.push_back(int(g.k));
      st->lda.push_back(int(x.ld)), st->ldb.push_back(int(y.ld)), st->ldc.push_back(int(ldd));
      st->size.push_back(1);
      st->alpha.push_back(g.alpha.value), st->beta.push_back(0.0f);
      a_ptrs.push_back(x.ptr), b_ptrs.push_back(y.ptr);
      c_ptrs.push_back(static_cast<char*>(g.d.data) + start * ldd * std::int64_t(ds));
    }
    start = end;
  }
  const std::size_t groups = st->m.size();
  st->ptrs = DeviceBuffer(3 * std::max<std::size_t>(groups, 1) * sizeof(void*));
  std::vector<const void*> all;
  all.insert(all.end(), a_ptrs.begin(), a_ptrs.end());
  all.insert(all.end(), b_ptrs.begin(), b_ptrs.end());
  all.insert(all.end(), c_ptrs.begin(), c_ptrs.end());
  GEMMLAB_CUDA(cudaMemcpy(st->ptrs.get(), all.data(), all.size() * sizeof(void*), cudaMemcpyHostToDevice));
  cublasHandle_t h = lab.cublas();
  const cudaStream_t s = lab.stream();
  const cudaDataType_t ab = cuda_type(g.a.type), cd = cuda_type(g.d.type);
  State* raw = st.get();
  Anchor out;
  out.name = "cublasGemmGroupedBatchedEx";
  out.run = [=] {
    if (groups == 0) return;
    const void* const* arr = static_cast<const void* const*>(raw->ptrs.get());
    GEMMLAB_CUBLAS(cublasSetStream(h, s));
    GEMMLAB_CUBLAS(cublasGemmGroupedBatchedEx(h, raw->ta.data(), raw->tb.data(), raw->m.data(), raw->n.data(),
                                              raw->k.data(), raw->alpha.data(), arr, ab, raw->lda.data(), arr + groups,
                                              ab, raw->ldb.data(), raw->beta.data(),
                                              const_cast<void* const*>(arr + 2 * groups), cd, raw->ldc.data(),
                                              int(groups), raw->size.data(), CUBLAS_COMPUTE_32F));
  };
  out.state = st;
  return out;
}

}  // namespace gemmlab::anchor
