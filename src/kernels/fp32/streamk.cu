// FP32 ladder, step 8: a stream-K tail for the last, partial wave of tiles.
//
// Step 6's best configuration (128 x 256 tiles, 16 x 8 thread tiles, 3 stages) needs one SM per
// block, so a shape runs in waves of 132 tiles on an H100: 4096^3 has 512 tiles, 3.88 waves run in
// the time of 4, and 8192^3 has 2048, 15.5 waves in the time of 16. Here the tiles of the last
// wave are not given one block each: their k-tiles, tile after tile, are cut into one contiguous
// range per resident block, and the pieces of a tile that several blocks share are added by the last
// of them to finish (src/kernels/fp32/stream_k_tail.hpp). The tail then costs its share of the work
// plus a few k-tiles of stores and adds, instead of a whole tile. The tail is a second kernel,
// launched so that it may start before the first has ended (programmatic dependent launch): each SM
// moves on to its range of the tail as soon as its last whole tile is done.
#include "kernels/fp32/pipelined_kernel.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

class StreamK final : public fp32::PipelinedKernel {
 public:
  StreamK() : PipelinedKernel(describe()) {}
  fp32::PipelinedChoice choose(const Shape&, const Params& p) const override {
    fp32::PipelinedChoice c;
    c.tile_m = 128;
    c.tile_n = 256;
    c.thread_m = 16;
    c.stages = 3;
    c.group_m = p.at("group");
    c.stream_k = p.at("stream_k");
    c.early_tail = p.at("early_tail") != 0;
    return c;
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "fp32.streamk";
    i.family = "fp32";
    i.step = 8;
    i.title = "Stream-K tail: the last partial wave's k-tiles shared by every SM";
    i.origin = "technique: stream-K work decomposition (hybrid data-parallel + stream-K), last-block fix-up";
    i.summary =
        "128x256 tiles (16x8 per thread, 3 stages, raster group 8 by default); the tiles that leave the last wave partial "
        "are cut into one contiguous k range per resident block, and the last block to finish a shared tile "
        "adds the others' sums from a workspace.";
    i.params = {{"group", "tile rows per raster group (0: row by row)", {0, 4, 8, 16, 32}, 8},
                {"stream_k",
                 "1: a tail where the cost model predicts a gain (on an H100 4096^3 and 8192^3 have one), 2: whenever "
                 "the last wave is partial, 0: whole tiles only",
                 {0, 1, 2},
                 1},
                {"early_tail",
                 "1: the tail's blocks start on the SMs the whole tiles free (programmatic dependent launch), 0: after "
                 "the last whole tile",
                 {0, 1},
                 1}};
    i.constraints = "any M, N, K >= 1 (zero-filled edges); a workspace of up to (blocks + tail tiles) x 128 KB";
    return i;
  }
};

}  // namespace

void register_fp32_streamk(Registry& r) { r.add(std::make_unique<StreamK>()); }
GEMMLAB_REGISTER_KERNELS(register_fp32_streamk);

}  // namespace gemmlab
