// FP32 ladder, step 5: multi-stage asynchronous copies (cp.async).
//
// Step 4 staged the next tile through registers: the loads had to finish before the stores into
// shared memory, within one tile's math. With cp.async (sm_80+) the copy engine of each SM writes
// shared memory directly, without registers, and several tiles can be in flight: with 3 or 4
// stages, the latency of global memory is covered by 2 or 3 tiles of math. The block tile is
// 128 x 128 x 16 with the warp and thread tiles of step 4 (src/kernels/fp32/pipelined.cuh).
#include "kernels/fp32/pipelined_kernel.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

class AsyncCopy final : public fp32::PipelinedKernel {
 public:
  AsyncCopy() : PipelinedKernel(describe()) {}
  fp32::PipelinedChoice choose(const Shape&, const Params& p) const override {
    fp32::PipelinedChoice c;
    c.stages = p.at("stages");
    c.group_m = 0;
    return c;
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "fp32.async";
    i.family = "fp32";
    i.step = 5;
    i.title = "Multi-stage cp.async pipeline (128x128x16 tiles, 2-4 stages)";
    i.origin = "technique: asynchronous global->shared copies (cp.async, sm_80+), software pipelining";
    i.summary =
        "Tiles travel from global to shared memory with cp.async, without registers, STAGES - 1 tiles "
        "ahead of the math; out-of-range elements are zero-filled by the copy itself.";
    i.params = {{"stages", "shared-memory pipeline depth", {2, 3, 4}, 3}};
    i.constraints = "any M, N, K >= 1 (zero-filled edges); 16-byte copies of B when N % 4 == 0";
    return i;
  }
};

}  // namespace

void register_fp32_async(Registry& r) { r.add(std::make_unique<AsyncCopy>()); }
GEMMLAB_REGISTER_KERNELS(register_fp32_async);

}  // namespace gemmlab
