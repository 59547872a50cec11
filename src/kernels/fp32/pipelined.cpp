// The lab's FP32 ladder on the library's CUDA-core kernel (pipelined.hpp): a ladder call is a
// packed row-major NN problem, run through detail::launch_simt with the step's configuration.
#include "kernels/fp32/pipelined.hpp"

#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include <cstdint>

#include "api/problem.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/library/launch.hpp"
#include "kernels/library/simt.hpp"
#include "kernels/stream_k_flags.hpp"

namespace gemmlab::fp32 {

namespace {

constexpr int kBK = 16;

// The lab's packed row-major NN problem (lda = k, ldb = n, C = D, ldc = ldd = n).
detail::Problem lab_problem(const Shape& s, const void* a = nullptr, const void* b = nullptr, void* c = nullptr,
                            float alpha = 1.0f, float beta = 0.0f) {
  detail::Problem p;
  p.ab = DataType::f32, p.cd = DataType::f32;
  p.m = s.m, p.n = s.n, p.k = s.k;
  p.a = {a, s.k, 0, true};
  p.b = {b, s.n, 0, false};
  p.c = beta != 0.0f ? c : nullptr, p.ldc = s.n;
  p.d = c, p.ldd = s.n;
  p.alpha = alpha, p.beta = beta;
  return p;
}

// One DeviceState per GPU the lab has asked about, built on first use (prepare_simt: the kernels'
// shared-memory limits raised, their occupancy measured), or without a GPU the planned figures.
// The lab's own convenience: the library keeps its state in each Context.
const detail::DeviceState& state_for_current_device() {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<detail::DeviceState>> states;
  static const bool have_gpu = device_count() > 0;
  int device = -1;
  if (!have_gpu || cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    device = -1;
  }
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<detail::DeviceState>& s = states[device];
  if (!s) {
    s = std::make_unique<detail::DeviceState>();
    if (device < 0) {
      s->props.sm_count = current_sm_count();
      s->cc = 90;
      detail::assume_simt_occupancy(*s);
    } else {
      const DeviceInfo d = query_device(device);
      s->props.ordinal = device;
      s->props.name = d.name;
      s->props.cc_major = d.cc_major, s->props.cc_minor = d.cc_minor;
      s->props.sm_count = d.sm_count;
      s->props.l2_bytes = std::size_t(d.l2_bytes);
      s->props.smem_per_block_optin = d.smem_per_block_optin;
      s->cc = d.cc();
      detail::prepare_simt(*s);
    }
  }
  return *s;
}

std::int64_t tile_count(const PipelinedChoice& c, const Shape& s) {
  return ((s.m + c.tile_m - 1) / c.tile_m) * ((s.n + c.tile_n - 1) / c.tile_n);
}

}  // namespace

const detail::DeviceState& lab_device_state() { return state_for_current_device(); }

std::string to_string(const PipelinedChoice& c) {
  return fmt::format("{}x{}x{} thread {}x8 stages={} group={} splits={} stream_k={} early_tail={}", c.tile_m, c.tile_n,
                     kBK, c.thread_m, c.stages, c.group_m, c.splits, c.stream_k, int(c.early_tail));
}

detail::SimtConfig simt_config(const PipelinedChoice& c) {
  detail::SimtConfig s;
  s.tile_m = c.tile_m, s.tile_n = c.tile_n, s.thread_m = c.thread_m, s.stages = c.stages;
  s.group_m = c.group_m, s.splits = std::max(1, c.splits), s.stream_k = c.stream_k;
  return s;
}

PipelinedChoice pipelined_choice(const detail::SimtConfig& s) {
  PipelinedChoice c;
  c.tile_m = s.tile_m, c.tile_n = s.tile_n, c.thread_m = s.thread_m, c.stages = s.stages;
  c.group_m = s.group_m, c.splits = s.splits, c.stream_k = s.stream_k;
  return c;
}

bool pipelined_compiled(const PipelinedChoice& c) {
  // Whether the library holds the packed NN instantiation (one shape stands for all).
  return !detail::simt_reject(lab_problem(Shape{256, 256, 256}), simt_config(c), lab_device_state()).has_value();
}

int pipelined_threads(const PipelinedChoice& c) {
  const auto shape = detail::simt_launch_shape(lab_problem(Shape{256, 256, 256}), simt_config(c), lab_device_state());
  return shape ? shape->threads : 0;
}

std::size_t pipelined_smem_bytes(const PipelinedChoice& c) {
  const auto shape = detail::simt_launch_shape(lab_problem(Shape{256, 256, 256}), simt_config(c), lab_device_state());
  return shape ? shape->smem_bytes : 0;
}

StreamKTail pipelined_tail(const PipelinedChoice& c, const Shape& s) {
  return detail::simt_tail(lab_problem(s), simt_config(c), lab_device_state());
}

PipelinedMainLaunch pipelined_main_launch(const PipelinedChoice& c, const Shape& s, bool b_vec) {
  // Null pointers count as aligned, so B's copy path follows n % 4; an unaligned stand-in pointer
  // (never read) selects the 4-byte path when b_vec says so.
  detail::Problem p = lab_problem(s);
  if (!b_vec) p.b.ptr = reinterpret_cast<const void*>(std::uintptr_t(4));
  const auto shape = detail::simt_launch_shape(p, simt_config(c), lab_device_state());
  if (!shape) return {nullptr, dim3(1)};
  return {shape->kernel, dim3(shape->grid_x, shape->grid_y, shape->grid_z)};
}

std::size_t pipelined_workspace_bytes(const PipelinedChoice& c, const Shape& s) {
  return detail::simt_workspace_bytes(lab_problem(s), simt_config(c), lab_device_state());
}

std::optional<std::string> pipelined_reject(const PipelinedChoice& c, const Shape& s, const DeviceInfo& dev) {
  if (auto why = detail::simt_reject(lab_problem(s), simt_config(c), lab_device_state())) return why;
  const std::int64_t tiles = tile_count(c, s);
  if (tiles > dev.max_grid_dim[0]) return fmt::format("{} tiles exceed the grid limit of {}", tiles, dev.max_grid_dim[0]);
  if (c.splits > dev.max_grid_dim[2]) return fmt::format("{} splits exceed the grid limit of {}", c.splits, dev.max_grid_dim[2]);
  return std::nullopt;
}

double pipelined_global_loads(const PipelinedChoice& c, const Shape& s) {
  const double tm = double((s.m + c.tile_m - 1) / c.tile_m), tn = double((s.n + c.tile_n - 1) / c.tile_n);
  return tm * tn * double(s.k) * (c.tile_m + c.tile_n);
}

void launch_pipelined(const PipelinedChoice& c, const GemmArgs& g, const ExecContext& ctx) {
  const detail::Problem p = lab_problem(g.shape, g.a, g.b, g.c, g.alpha, g.beta);
  // The lab's state for this device (the same one the workspace was sized with), which also raised
  // the kernels' shared-memory limits on it.
  const detail::DeviceState& state = state_for_current_device();
  const detail::SimtConfig config = simt_config(c);
  detail::LaunchEnv env;
  env.stream = ctx.stream;
  env.device = &state;
  env.scratch.data = static_cast<unsigned char*>(ctx.workspace);
  env.scratch.bytes = ctx.workspace_bytes;
  // The stream-K counters: the lab's per-stream ones (kernels/stream_k_flags.hpp, allocated on a
  // stream's first use), fetched only for a launch with a tail.
  if (detail::simt_tail(p, config, state).tiles > 0) env.scratch.flags = stream_k_flags(ctx.stream);
  detail::launch_simt(p, config, env, c.early_tail);
}

}  // namespace gemmlab::fp32
