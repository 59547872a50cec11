// FP32 ladder, step 9: one kernel that picks its configuration per shape.
//
// Steps 5-8 expose their knobs; this step chooses them. For every compiled tile shape and split-K
// factor it estimates the run time from a simple model (how many waves of blocks the shape needs on
// this GPU, each tile shape's measured relative efficiency, the extra traffic of split-K, the
// stream-K tail of step 8 where its own cost model keeps one) and runs the cheapest. The efficiencies come from `gemmlab tune` on an H100 (docs/kernels/fp32-ladder.md).
// The model and its calibration are in docs/kernels/fp32-ladder.md.
#include <cmath>
#include <limits>

#include <cuda_runtime.h>

#include "kernels/fp32/pipelined_kernel.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {


namespace {

// The configurations the dispatcher chooses among, with their throughput relative to the best one
// when the GPU is full, measured by `gemmlab tune` on an H100 at 4096^3 (docs/kernels/fp32-ladder.md):
// 128x256 with 16x8 thread tiles 46.6 TFLOPS, 128x128 (16x8) 44.0, 64x128 (8x8) 44.3.
struct TileOption {
  int tile_m, tile_n, thread_m, stages;
  double efficiency;
};
constexpr TileOption kTiles[] = {
    {128, 256, 16, 3, 1.00},
    {128, 128, 16, 3, 0.94},
    {64, 128, 8, 2, 0.95},
    {64, 64, 8, 2, 0.80},
};
constexpr int kSplits[] = {1, 2, 3, 4, 6, 8};

fp32::PipelinedChoice choice_of(const TileOption& t, int splits) {
  fp32::PipelinedChoice c;
  c.tile_m = t.tile_m;
  c.tile_n = t.tile_n;
  c.thread_m = t.thread_m;
  c.stages = t.stages;
  // Raster groups of 32 tile rows for 128x256 tiles: 1.3% faster than 8 at 8192^3 on the H100, the
  // same within noise at the suite's other large shapes (docs/results/h100/experiments-2026-11-22k/groups.txt).
  c.group_m = t.tile_n == 256 ? 32 : 8;
  c.splits = splits;
  c.stream_k = splits == 1 ? int(TailMode::when_faster) : 0;
  return c;
}

// Estimated time, in units of one 128x128 tile times one k on one SM: the blocks are spread evenly
// over the SMs, the busiest SM sets the time; split-K adds its reduction pass (memory-bound: about
// 115 units per 4 MB moved on an H100). With a stream-K tail, the last partial wave costs each
// block its range of the tail's k-tiles plus the tail's overhead instead of a whole tile.
double estimate(const TileOption& t, int splits, const Shape& s, int sms) {
  const double tiles = double((s.m + t.tile_m - 1) / t.tile_m) * double((s.n + t.tile_n - 1) / t.tile_n);
  const fp32::StreamKTail tail = fp32::pipelined_tail(choice_of(t, splits), s);
  double per_sm = std::ceil(tiles * splits / sms);
  if (tail.tiles > 0) {
    const double range = std::ceil(double(tail.iters()) / tail.blocks);
    per_sm = double(tail.whole) / sms + double(tail.blocks) / sms * (range + fp32::kTailOverhead) / tail.k_tiles;
  }
  const double k_slice = std::ceil(double(s.k) / splits);
  double time = per_sm * (double(t.tile_m) * t.tile_n / (128.0 * 128.0)) * k_slice / t.efficiency;
  if (splits > 1) time += double(splits + 1) * double(s.m) * s.n * 4.0 / (4.0 * 1024 * 1024) * 115.0;
  return time;
}

fp32::PipelinedChoice choose_for(const Shape& s, int sms) {
  double best = std::numeric_limits<double>::infinity();
  fp32::PipelinedChoice pick;
  for (const TileOption& t : kTiles)
    for (int splits : kSplits) {
      if (splits > 1 && s.k < 256 * splits) continue;  // slices too thin to pay for the reduction
      const double time = estimate(t, splits, s, sms);
      if (time < best * 0.98) {  // prefer the earlier (simpler) choice on near-ties
        best = time;
        pick = choice_of(t, splits);
      }
    }
  return pick;
}

}  // namespace

namespace {

class Tuned final : public fp32::PipelinedKernel {
 public:
  Tuned() : PipelinedKernel(describe()) {}
  fp32::PipelinedChoice choose(const Shape& s, const Params&) const override {
    return choose_for(s, current_sm_count());
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

}  // namespace gemmlab
