// FP32 ladder, step 9: one kernel that picks its configuration per shape.
//
// Steps 5-8 expose their knobs; this step chooses them. For every compiled tile shape and split-K
// factor it estimates the run time from a simple model (how many waves of blocks the shape needs on
// this GPU, each tile shape's measured relative efficiency, the extra traffic of split-K, the
// stream-K tail of step 8 where its own cost model keeps one) and runs the cheapest. The model is
// the library's (detail::simt_model_choice, kernels/library/simt.cu): the step runs what the
// library's dispatch model picks for a packed NN problem. The efficiencies come from `gemmlab tune`
// on an H100; the model and its calibration are in docs/kernels/fp32-ladder.md.
#include <limits>

#include "api/problem.hpp"
#include "kernels/fp32/pipelined_kernel.hpp"
#include "kernels/library/simt.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

class Tuned final : public fp32::PipelinedKernel {
 public:
  Tuned() : PipelinedKernel(describe()) {}
  // The library's model choice (detail::simt_model_choice) for the lab's packed NN problem, with the
  // lab's workspace unbounded (the harness allocates what workspace_bytes asks for).
  fp32::PipelinedChoice choose(const Shape& s, const Params&) const override {
    detail::Problem p;
    p.m = s.m, p.n = s.n, p.k = s.k;
    p.a = {nullptr, s.k, 0, true};
    p.b = {nullptr, s.n, 0, false};
    p.ldc = p.ldd = s.n;
    return fp32::pipelined_choice(
        detail::simt_model_choice(p, fp32::lab_device_state(), std::numeric_limits<std::size_t>::max(), false));
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "fp32.tuned";
    i.family = "fp32";
    i.step = 9;
    i.title = "Shape-aware dispatch: tile shape, split-K and stream-K tail chosen per problem";
    i.origin = "technique: per-shape kernel selection from autotuning (gemmlab tune)";
    i.summary =
        "Chooses among the pipelined configurations (128x256 and 128x128 with 16x8 thread tiles, 64x128 and "
        "64x64 with 8x8, split-K 1-8, the stream-K tail of step 8) with a load-balance model calibrated by "
        "autotuning on an H100.";
    i.constraints = "any M, N, K >= 1";
    return i;
  }
};

}  // namespace

void register_fp32_tuned(Registry& r) { r.add(std::make_unique<Tuned>()); }
GEMMLAB_REGISTER_KERNELS(register_fp32_tuned);

}  // namespace gemmlab
