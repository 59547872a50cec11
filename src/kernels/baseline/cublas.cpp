// cuBLAS as a kernel: the baseline every gemmlab kernel is measured against, in the same process.
//
// gemmlab's matrices are row-major; cuBLAS is column-major. A row-major C = A B is the
// column-major C^T = B^T A^T, so we hand cuBLAS B first and swap m and n: no copies, no transposes.
// The compute type is set explicitly: CUBLAS_COMPUTE_32F is strict FP32 (TF32 off), and only the
// tf32 baseline asks for CUBLAS_COMPUTE_32F_FAST_TF32.
#include <cublas_v2.h>

#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f64: return CUDA_R_64F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
  }
  return CUDA_R_32F;
}

class CublasGemm final : public KernelBase {
 public:
  explicit CublasGemm(Precision p) : KernelBase(describe(p)), precision_(p) {}

  std::optional<std::string> reject(const Shape&, const Params&, const DeviceInfo&) const override {
    return std::nullopt;
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    // cuBLAS's own traffic is unknown; model the minimum: each input read once, C written once.
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = double(s.m) * s.k + double(s.k) * s.n;
    t.global_stores = double(s.m) * s.n;
    t.element_bytes = double(dtype_size(operand_type(precision_)));
    return t;
  }

  LaunchPlan plan(const Shape&, const Params&) const override { return {}; }

  void launch(const GemmArgs& g, const Params&, const ExecContext& ctx) const override {
    const DType ab = operand_type(precision_);
    const cublasComputeType_t compute =
        precision_ == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    GEMMLAB_CUBLAS(cublasSetStream(ctx.cublas, ctx.stream));
    GEMMLAB_CUBLAS(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH));
    const int m = int(g.shape.m), n = int(g.shape.n), k = int(g.shape.k);
    GEMMLAB_CUBLAS(cublasGemmEx(ctx.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &g.alpha, g.b, cuda_type(ab), n,
                                g.a, cuda_type(ab), k, &g.beta, g.c, cuda_type(g.c_type), n, compute,
                                CUBLAS_GEMM_DEFAULT));
  }

 private:
  static KernelInfo describe(Precision p) {
    KernelInfo i;
    i.id = fmt::format("cublas.{}", precision_name(p));
    i.family = "baseline";
    i.precision = p;
    i.title = fmt::format("cuBLAS cublasGemmEx, {} ({})", precision_name(p),
                          p == Precision::fp32   ? "CUBLAS_COMPUTE_32F, TF32 off"
                          : p == Precision::tf32 ? "CUBLAS_COMPUTE_32F_FAST_TF32"
                                                 : "FP32 accumulation");
    i.origin = "NVIDIA cuBLAS: the baseline";
    i.summary = "The vendor library, called through cublasGemmEx with an explicit compute type.";
    i.constraints = "any M, N, K >= 1";
    if (p == Precision::bf16 || p == Precision::fp16) i.outputs = {DType::f32, operand_type(p)};
    return i;
  }
  Precision precision_;
};

}  // namespace

void register_cublas(Registry& r) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16})
    r.add(std::make_unique<CublasGemm>(p));
}
GEMMLAB_REGISTER_KERNELS(register_cublas);

}  // namespace gemmlab
