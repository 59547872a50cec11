// `auto`: the library itself as a lab kernel. auto.<precision> calls gemmlab::gemm on the lab's
// context, so the lab measures exactly what a program linking gemmlab gets: the dispatcher's
// choice for the shape (gemmlab explain prints it), its launch overhead included.
#include <fmt/format.h>

#include "gemmlab/gemmlab.hpp"
#include "kernels/common.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

DataType public_type(DType t) {
  switch (t) {
    case DType::bf16: return DataType::bf16;
    case DType::f16: return DataType::f16;
    default: return DataType::f32;
  }
}

class AutoKernel final : public KernelBase {
 public:
  explicit AutoKernel(Precision p) : KernelBase(describe(p)), precision_(p) {}

  std::optional<std::string> reject(const Shape&, const Params&, const DeviceInfo&) const override { return std::nullopt; }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    // What the dispatcher picks is not known here: the minimum traffic, like the cuBLAS baseline's.
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = double(s.m) * s.k + double(s.k) * s.n;
    t.global_stores = double(s.m) * s.n;
    t.element_bytes = double(dtype_size(operand_type(precision_)));
    return t;
  }

  LaunchPlan plan(const Shape&, const Params&) const override { return {}; }

  void launch(const GemmArgs& g, const Params&, const ExecContext& ctx) const override {
    if (!ctx.library) throw Error("auto runs through the library: the lab gives it a context");
    gemm(*ctx.library, problem(g), ctx.stream);
  }

  // The public description of a lab call: packed row-major operands, C = D.
  Gemm problem(const GemmArgs& g) const {
    const DataType ab = public_type(operand_type(precision_));
    Gemm p;
    p.m = g.shape.m, p.n = g.shape.n, p.k = g.shape.k;
    p.a = {g.a, ab};
    p.b = {g.b, ab};
    p.d = {g.c, public_type(g.c_type)};
    p.c = {g.c, public_type(g.c_type)};
    p.alpha = g.alpha;
    p.beta = g.beta;
    p.compute = precision_ == Precision::tf32 ? Compute::tf32 : Compute::f32;
    return p;
  }

 private:
  static KernelInfo describe(Precision p) {
    KernelInfo i;
    i.id = fmt::format("auto.{}", precision_name(p));
    i.family = "auto";
    i.precision = p;
    i.title = fmt::format("gemmlab::gemm, {}: the library's dispatch picks kernel and parameters", precision_name(p));
    i.origin = "the library (include/gemmlab/gemm.hpp)";
    i.summary =
        "What a program calling gemmlab gets: the dispatcher chooses among the library's kernels from its "
        "table for this GPU, or its model for shapes the table does not hold (gemmlab explain says which and why).";
    i.constraints = "any M, N, K >= 1";
    if (p == Precision::bf16 || p == Precision::fp16) i.outputs = {DType::f32, operand_type(p)};
    return i;
  }
  Precision precision_;
};

}  // namespace

void register_auto(Registry& r) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16})
    r.add(std::make_unique<AutoKernel>(p));
}
GEMMLAB_REGISTER_KERNELS(register_auto);

}  // namespace gemmlab
