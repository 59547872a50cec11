// FP32 ladder, step 7: split-K for shapes with few output tiles.
//
// A 1024 x 1024 C has 64 tiles of 128 x 128: half of an H100's 132 SMs idle, however long K is.
// Split-K cuts K into `splits` slices computed by separate blocks (grid.z), each writing its partial
// sums to a workspace; a second, memory-bound pass adds the slices and applies alpha and beta. More
// blocks, at the price of splits x M x N extra writes and reads: worth it when M N is small and K
// large (the shape suite's 16384 x 16384 x 512 is the opposite case).
#include "kernels/fp32/pipelined_kernel.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

class SplitK final : public fp32::PipelinedKernel {
 public:
  SplitK() : PipelinedKernel(describe()) {}
  fp32::PipelinedChoice choose(const Shape&, const Params& p) const override {
    fp32::PipelinedChoice c;
    c.tile_m = c.tile_n = p.at("tile");
    c.stages = 4;
    c.group_m = 8;
    c.splits = p.at("splits");
    return c;
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "fp32.splitk";
    i.family = "fp32";
    i.step = 7;
    i.title = "Split-K: K sliced over more blocks, partial sums reduced in a second pass";
    i.origin = "technique: split-K parallelisation for small and skinny GEMMs";
    i.summary =
        "Blocks of grid.z each multiply one slice of K into a workspace; a reduction kernel sums the "
        "slices and applies alpha and beta. Fills the GPU when M x N has too few tiles.";
    i.params = {{"tile", "square block tile edge", {64, 128}, 128}, {"splits", "slices of K", {2, 3, 4, 6, 8}, 4}};
    i.constraints = "any M, N, K >= 1; needs splits x M x N x 4 bytes of workspace";
    return i;
  }
};

}  // namespace

void register_fp32_splitk(Registry& r) { r.add(std::make_unique<SplitK>()); }
GEMMLAB_REGISTER_KERNELS(register_fp32_splitk);

}  // namespace gemmlab
