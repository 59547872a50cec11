// Base of the ladder steps built on the pipelined template: a step only says which configuration
// it runs for a shape (choose); reject/traffic/plan/launch follow from that, through the library's
// launcher (pipelined.hpp).
#pragma once

#include "kernels/common.hpp"
#include "kernels/fp32/pipelined.hpp"

namespace gemmlab::fp32 {

class PipelinedKernel : public KernelBase {
 public:
  using KernelBase::KernelBase;
  virtual PipelinedChoice choose(const Shape& s, const Params& p) const = 0;

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    return pipelined_reject(choose(s, p), s, dev);
  }

  TrafficModel traffic(const Shape& s, const Params& p) const override {
    const PipelinedChoice c = choose(s, p);
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = pipelined_global_loads(c, s);
    t.global_stores = double(s.m) * s.n;
    if (c.splits > 1) {  // partial sums written, then read back by the reduction
      t.global_stores += double(c.splits) * s.m * s.n;
      t.global_loads += double(c.splits) * s.m * s.n;
    }
    const StreamKTail tail = pipelined_tail(c, s);
    if (tail.tiles > 0) {  // pieces' sums stored to slots, read back by the last piece of each tile
      const double slot = double(c.tile_m) * c.tile_n;
      const StreamKTail::SlotTraffic n = tail.slot_traffic();
      t.global_stores += double(n.stored) * slot;
      t.global_loads += double(n.read) * slot;
    }
    return t;
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    const PipelinedChoice c = choose(s, p);
    const PipelinedMainLaunch main = pipelined_main_launch(c, s, s.n % 4 == 0);
    return {main.function, main.grid, dim3(unsigned(pipelined_threads(c))),
            pipelined_smem_bytes(c)};
  }

  std::size_t workspace_bytes(const Shape& s, const Params& p) const override {
    return pipelined_workspace_bytes(choose(s, p), s);
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    launch_pipelined(choose(g.shape, p), g, ctx);
  }
};

}  // namespace gemmlab::fp32
