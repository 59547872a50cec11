// How accurate GELU (tanh form) is on every element, in ulps of BF16 and FP16 results against
// float64: ways of evaluating it in FP32 on the GPU, and cuBLASLt's GELU and GELU_BIAS epilogues.
// The numbers behind docs/kernels/tensor-ladder.md 7.10 ("The activation's accuracy"). Standalone:
//
//   nvcc -arch=sm_90a -O3 -o /tmp/gelu_accuracy scripts/device/gelu_accuracy.cu -lcublasLt
//   /tmp/gelu_accuracy
//
// Part 1 evaluates each form on 2^22 + 1 points of [-12, 12] and 8,000 of +-[1e-8, 1e8]. Part 2
// multiplies 1024 x 64 by 64 x 1024 matrices of multiples of 1/4 (every product and sum exact in
// FP32, so that the epilogue's error is all there is) with cuBLASLt's GELU epilogues.
// Results under 2^-120 in magnitude count as exact when within 2^-120 of float64 (flushed tails),
// as in tests/api/api_gpu_test.cpp (ActivationsAreAccurateOnEveryElement).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

double gelu64(double x) { return x / (1 + std::exp(-2 * 0.7978845608028654 * (x + 0.044715 * x * x * x))); }

// Error of `got` against `ref` in ulps of the 16-bit type (mantissa bits including the implicit one).
double ulps(double got, double ref, int mantissa, int min_exp) {
  const double diff = std::fabs(got - ref);
  if (std::isnan(diff)) return INFINITY;
  if (std::fabs(ref) < 0x1p-120 && diff < 0x1p-120) return 0;
  int e = 0;
  std::frexp(ref, &e);
  return diff / std::ldexp(1.0, std::max(e - 1, min_exp) - (mantissa - 1));
}
double ulps_bf16(float y, double ref) { return ulps(__bfloat162float(__float2bfloat16_rn(y)), ref, 8, -126); }
double ulps_f16(float y, double ref) { return ulps(__half2float(__float2half_rn(y)), ref, 11, -14); }

struct Worst {
  double ulps = 0, x = 0;
  long over1 = 0;
  void add(double u, double at) {
    if (u > ulps) ulps = u, x = at;
    over1 += u > 1;
  }
};

// ---- part 1: the forms ------------------------------------------------------------------------

constexpr int kForms = 4;
const char* const kFormNames[kForms] = {
    "h + h tanh.approx.f32(u)        (gemmlab's 16-bit D, until 2026-12)",
    "h + h tanh.approx.bf16x2(u)     (two values per MUFU op)",
    "h + h tanh.approx.f16x2(u)      (two values per MUFU op)",
    "x / (1 + __expf(k t))           (gemmlab's every D now)"};

__device__ float tanh_f32(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__global__ void forms(const float* xs, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = xs[i], h = 0.5f * x;
  const float u = x * fmaf(x * x, 0.7978845608028654f * 0.044715f, 0.7978845608028654f);
  out[i] = fmaf(h, tanh_f32(u), h);
  __nv_bfloat162 ub = __floats2bfloat162_rn(u, u), tb;
  asm("tanh.approx.bf16x2 %0, %1;" : "=r"(*reinterpret_cast<unsigned*>(&tb)) : "r"(*reinterpret_cast<unsigned*>(&ub)));
  out[n + i] = fmaf(h, __low2float(tb), h);
  __half2 uh = __floats2half2_rn(u, u), th;
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(*reinterpret_cast<unsigned*>(&th)) : "r"(*reinterpret_cast<unsigned*>(&uh)));
  out[2 * n + i] = fmaf(h, __low2float(th), h);
  const float t = x + 0.044715f * x * x * x;  // as src/kernels/library/epilogue.cuh
  out[3 * n + i] = __fdividef(x, 1.0f + __expf(-1.5957691216057308f * t));
}

void part1() {
  std::vector<float> xs;
  for (int i = -(1 << 21); i <= (1 << 21); ++i) xs.push_back(12.0f * float(i) / float(1 << 21));
  for (int i = 0; i < 4000; ++i) {
    const float v = std::pow(10.0f, -8.0f + float(i) * 0.004f);
    xs.push_back(v), xs.push_back(-v);
  }
  const int n = int(xs.size());
  float *dx = nullptr, *dout = nullptr;
  cudaMalloc(&dx, sizeof(float) * n);
  cudaMalloc(&dout, sizeof(float) * n * kForms);
  cudaMemcpy(dx, xs.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
  forms<<<(n + 255) / 256, 256>>>(dx, dout, n);
  std::vector<float> out(std::size_t(n) * kForms);
  cudaMemcpy(out.data(), dout, sizeof(float) * out.size(), cudaMemcpyDeviceToHost);
  std::printf("Part 1: %d points of [-12, 12] and +-[1e-8, 1e8]; worst error in ulps of the result (at x), points over 1 ulp\n", n);
  std::printf("%-68s | BF16 worst (x)       over 1 | FP16 worst (x)       over 1 | FP32 worst relative\n", "form");
  for (int f = 0; f < kForms; ++f) {
    Worst b, h;
    double rel = 0;
    for (int i = 0; i < n; ++i) {
      const double ref = gelu64(xs[i]);
      const float y = out[std::size_t(f) * n + i];
      b.add(ulps_bf16(y, ref), xs[i]);
      if (std::fabs(ref) < 65504) h.add(ulps_f16(y, ref), xs[i]);
      if (std::fabs(ref) >= 0x1p-120) rel = std::max(rel, std::isnan(y) ? INFINITY : std::fabs(y - ref) / std::fabs(ref));
    }
    std::printf("%-68s | %8.2f (%8.4f) %7ld | %8.2f (%8.4f) %7ld | %.2e\n", kFormNames[f], b.ulps, b.x, b.over1, h.ulps,
                h.x, h.over1, rel);
  }
  cudaFree(dx);
  cudaFree(dout);
}

// ---- part 2: cuBLASLt -------------------------------------------------------------------------

#define CHECK(call)                                                                   \
  do {                                                                                \
    const int status_ = int(call);                                                    \
    if (status_ != 0) {                                                               \
      std::printf("%s failed (%d) at %s:%d\n", #call, status_, __FILE__, __LINE__);   \
      return false;                                                                   \
    }                                                                                 \
  } while (0)

template <class T>
bool part2(cublasLtEpilogue_t epilogue, const char* name) {
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  const int m = 1024, n = 1024, k = 64;  // column-major, as cuBLASLt's
  std::mt19937 rng(7);
  auto quarter = [&] { return float(int(rng() % 9) - 4) / 4; };
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), bias(m);
  for (float& v : a) v = quarter();
  for (float& v : b) v = quarter();
  for (float& v : bias) v = quarter();
  std::vector<T> ha(a.begin(), a.end()), hb(b.begin(), b.end()), hbias(bias.begin(), bias.end()), hd(std::size_t(m) * n);
  T *da = nullptr, *db = nullptr, *dd = nullptr, *dbias = nullptr;
  void* ws = nullptr;
  std::size_t ws_bytes = 32 << 20;
  CHECK(cudaMalloc(&da, ha.size() * sizeof(T)));
  CHECK(cudaMalloc(&db, hb.size() * sizeof(T)));
  CHECK(cudaMalloc(&dd, hd.size() * sizeof(T)));
  CHECK(cudaMalloc(&dbias, hbias.size() * sizeof(T)));
  CHECK(cudaMalloc(&ws, ws_bytes));
  CHECK(cudaMemcpy(da, ha.data(), ha.size() * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb.data(), hb.size() * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbias, hbias.data(), hbias.size() * sizeof(T), cudaMemcpyHostToDevice));
  cublasLtHandle_t lt;
  CHECK(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op;
  CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
  const bool with_bias = epilogue == CUBLASLT_EPILOGUE_GELU_BIAS;
  if (with_bias) CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof(dbias)));
  const cudaDataType_t t = kBf16 ? CUDA_R_16BF : CUDA_R_16F;
  cublasLtMatrixLayout_t la, lb, ld;
  CHECK(cublasLtMatrixLayoutCreate(&la, t, m, k, m));
  CHECK(cublasLtMatrixLayoutCreate(&lb, t, k, n, k));
  CHECK(cublasLtMatrixLayoutCreate(&ld, t, m, n, m));
  cublasLtMatmulPreference_t pref;
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof(ws_bytes)));
  cublasLtMatmulHeuristicResult_t heuristic;
  int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &heuristic, &found));
  if (found == 0) {
    std::printf("cuBLASLt offers no algorithm for %s\n", name);
    return false;
  }
  const float alpha = 1, beta = 0;
  CHECK(cublasLtMatmul(lt, op, &alpha, da, la, db, lb, &beta, dd, ld, dd, ld, &heuristic.algo, ws, ws_bytes, nullptr));
  CHECK(cudaMemcpy(hd.data(), dd, hd.size() * sizeof(T), cudaMemcpyDeviceToHost));
  Worst w;
  long over4 = 0;
  double worst_got = 0, worst_ref = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double x = with_bias ? bias[i] : 0.0;
      for (int kk = 0; kk < k; ++kk) x += double(a[i + std::size_t(kk) * m]) * b[kk + std::size_t(j) * k];
      const double ref = gelu64(x), got = float(hd[i + std::size_t(j) * m]);
      const double u = kBf16 ? ulps(got, ref, 8, -126) : ulps(got, ref, 11, -14);
      if (u > w.ulps) worst_got = got, worst_ref = ref;
      w.add(u, x);
      over4 += u > 4;
    }
  std::printf("cuBLASLt %-9s %s D: worst %6.1f ulps at x = %.4f (%.6g, float64 %.6g); %ld of %d elements over 1 ulp, %ld over 4\n",
              name, kBf16 ? "BF16" : "FP16", w.ulps, w.x, worst_got, worst_ref, w.over1, m * n, over4);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);
  cudaFree(da), cudaFree(db), cudaFree(dd), cudaFree(dbias), cudaFree(ws);
  return true;
}

}  // namespace

int main() {
  part1();
  std::printf("\nPart 2: cuBLASLt %zu (1024 x 1024 x 64, multiples of 1/4, per-row bias of D's type)\n", cublasLtGetVersion());
  bool ok = part2<__nv_bfloat16>(CUBLASLT_EPILOGUE_GELU, "GELU");
  ok = part2<__nv_bfloat16>(CUBLASLT_EPILOGUE_GELU_BIAS, "GELU_BIAS") && ok;
  ok = part2<__half>(CUBLASLT_EPILOGUE_GELU, "GELU") && ok;
  ok = part2<__half>(CUBLASLT_EPILOGUE_GELU_BIAS, "GELU_BIAS") && ok;
  return ok ? 0 : 1;
}
