// FP32 ladder, step 8: one kernel that picks its configuration per shape.
//
// Steps 5-7 expose their knobs; this step chooses them. For every compiled tile shape and split-K
// factor it estimates the run time from a simple model (how many waves of blocks the shape needs on
// this GPU, each tile shape's measured relative efficiency, the extra traffic of split-K) and runs
// the cheapest. The efficiencies come from `gemmlab tune` on an H100 (docs/kernels/fp32-ladder.md).
// This is the kernel the library's gemm() call uses for FP32.
#include <cmath>
#include <limits>

#include <cuda_runtime.h>

#include "kernels/fp32/pipelined_kernel.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {


namespace {

struct TileOption {
  int tile_m, tile_n;
  int blocks_per_sm;  // resident blocks per SM (registers and shared memory, 4 stages)
  double efficiency;  // throughput of one full wave relative to 128 x 128
};

// Measured on an H100 (see docs/kernels/fp32-ladder.md); the model only needs their ratios.
constexpr TileOption kTiles[] = {
    {128, 128, 2, 1.00},
    {128, 64, 4, 0.90},
    {64, 128, 4, 0.90},
    {64, 64, 6, 0.75},
};
constexpr int kSplits[] = {1, 2, 3, 4, 6, 8};

fp32::PipelinedChoice choose_for(const Shape& s, int sms) {
  double best = std::numeric_limits<double>::infinity();
  fp32::PipelinedChoice pick;
  pick.stages = 4;
  pick.group_m = 8;
  for (const TileOption& t : kTiles) {
    const double tiles = double((s.m + t.tile_m - 1) / t.tile_m) * double((s.n + t.tile_n - 1) / t.tile_n);
    for (int splits : kSplits) {
      if (splits > 1 && s.k < 256 * splits) continue;  // slices too thin to pay for the reduction
      const double blocks = tiles * splits;
      const double slots = double(sms) * t.blocks_per_sm;
      const double waves = std::ceil(blocks / slots);
      // Time of one wave ~ work of one block / (efficiency); work in units of 128x128 tile-k-steps.
      const double k_slice = std::ceil(double(s.k) / splits);
      const double wave_time = (double(t.tile_m) * t.tile_n / (128.0 * 128.0)) * k_slice * t.blocks_per_sm / 2.0 / t.efficiency;
      double time = waves * wave_time;
      // Split-K's extra pass: write and read splits x M x N floats; ~ 1/40 of a k-step per element
      // of a 128x128 tile at H100 rates (memory-bound reduction vs FMA-bound tiles).
      if (splits > 1) time += double(splits) * s.m * s.n / (128.0 * 128.0) * 40.0 / sms;
      if (time < best * 0.98) {  // prefer the simpler choice on near-ties
        best = time;
        pick.tile_m = t.tile_m;
        pick.tile_n = t.tile_n;
        pick.splits = splits;
      }
    }
  }
  return pick;
}

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
    i.step = 8;
    i.title = "Shape-aware dispatch: tile shape and split-K chosen per problem";
    i.origin = "technique: per-shape kernel selection from autotuning (gemmlab tune)";
    i.summary =
        "Chooses among the pipelined configurations (tile 128/64 x 128/64, split-K 1-8) with a wave "
        "model calibrated by autotuning on an H100; the FP32 kernel behind gemmlab::gemm().";
    i.constraints = "any M, N, K >= 1";
    return i;
  }
};

}  // namespace

void register_fp32_tuned(Registry& r) { r.add(std::make_unique<Tuned>()); }

}  // namespace gemmlab
