// FP32 ladder, step 6: block rasterisation for L2 reuse, and a choice of tile shapes.
//
// Blocks run roughly in the order of their index. With tiles numbered row by row, the blocks
// running at one time span a few rows of C tiles and *all* column tiles: all of B streams through
// L2 for every few rows of A. Grouping the order (group_m tile rows at a time, column by column
// inside a group) makes concurrently running blocks share both A and B panels, so more of their
// loads hit L2. Tile shape (128 or 64 in each direction) and pipeline depth are parameters, so the
// autotuner (gemmlab tune) can pick per shape.
#include "kernels/fp32/pipelined_kernel.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

class Raster final : public fp32::PipelinedKernel {
 public:
  Raster() : PipelinedKernel(describe()) {}
  fp32::PipelinedChoice choose(const Shape&, const Params& p) const override {
    fp32::PipelinedChoice c;
    c.tile_m = p.at("tile_m");
    c.tile_n = p.at("tile_n");
    c.stages = p.at("stages");
    c.thread_m = p.at("thread_m");
    c.group_m = p.at("group");
    return c;
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "fp32.raster";
    i.family = "fp32";
    i.step = 6;
    i.title = "Block rasterisation (grouped tile order) for L2 reuse; tunable tile shape";
    i.origin = "technique: threadblock swizzling / grouped launch order";
    i.summary =
        "Step 5 with tiles visited group_m tile rows at a time, so that blocks resident together reuse "
        "the same A and B panels from L2; tile shape and stages are tunable.";
    i.params = {{"tile_m", "block tile rows", {64, 128, 256}, 128},
                {"tile_n", "block tile columns", {64, 128, 256}, 128},
                {"thread_m", "rows of each thread's tile (x 8 columns)", {8, 16}, 8},
                {"stages", "shared-memory pipeline depth", {2, 3, 4}, 4},
                {"group", "tile rows per raster group (0: row by row)", {0, 4, 8, 16}, 8}};
    i.constraints =
        "any M, N, K >= 1 (zero-filled edges); tiles 64/128 x 64/128, 256x128, 128x256; 16-byte copies of B "
        "when N % 4 == 0";
    return i;
  }
};

}  // namespace

void register_fp32_raster(Registry& r) { r.add(std::make_unique<Raster>()); }
GEMMLAB_REGISTER_KERNELS(register_fp32_raster);

}  // namespace gemmlab
