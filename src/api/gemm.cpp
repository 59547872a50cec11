// gemm() and plan() (gemm.hpp): validate, dispatch, launch.
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "api/problem.hpp"
#include "core/error.hpp"
#include "dispatch/dispatch.hpp"
#include "gemmlab/error.hpp"

namespace gemmlab {

namespace detail {

namespace {

// A pointer the GPU of the context cannot read (host memory that is not page-locked, another
// GPU's memory) would fault inside the kernel and poison the CUDA context: refuse it here.
// cudaPointerGetAttributes is a host-side query: no synchronisation, and allowed during capture.
void check_pointer(const void* p, int device, const char* name) {
  if (!p) return;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    throw InvalidArgument(name, "is not memory CUDA knows (a host pointer from malloc or new?)");
  }
  switch (attr.type) {
    case cudaMemoryTypeUnregistered:
      throw InvalidArgument(name, "is host memory the GPU cannot read (allocate it with cudaMalloc, or pin it)");
    case cudaMemoryTypeDevice:
      if (attr.device != device)
        throw InvalidArgument(name, fmt::format("is memory of GPU {}, but the context is on GPU {}", attr.device, device));
      break;
    default: break;  // pinned host memory and managed memory are readable
  }
}

void check_pointers(const Problem& p, int device) {
  check_pointer(p.transposed ? p.b.ptr : p.a.ptr, device, "a.data");
  check_pointer(p.transposed ? p.a.ptr : p.b.ptr, device, "b.data");
  if (p.reads_c()) check_pointer(p.c, device, "c.data");
  check_pointer(p.d, device, "d.data");
  check_pointer(p.bias, device, "epilogue.bias");
  check_pointer(p.alpha_ptr, device, "alpha.device");
  check_pointer(p.beta_ptr, device, "beta.device");
  check_pointer(p.offsets, device, "offsets");
}

// Context::Options::check_device_arguments: read the grouped offsets back and check them.
void check_offsets_on_host(const Problem& p, cudaStream_t stream) {
  std::vector<std::int32_t> off(std::size_t(p.groups));
  GEMMLAB_CUDA(cudaMemcpyAsync(off.data(), p.offsets, off.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream));
  GEMMLAB_CUDA(cudaStreamSynchronize(stream));
  std::int64_t prev = 0;
  for (int g = 0; g < p.groups; ++g) {
    if (off[std::size_t(g)] < prev)
      throw InvalidArgument("offsets", fmt::format("offsets[{}] = {} is less than offsets[{}] = {}: offsets must not "
                                                   "decrease", g, off[std::size_t(g)], g - 1, prev));
    if (off[std::size_t(g)] > p.m)
      throw InvalidArgument("offsets", fmt::format("offsets[{}] = {} exceeds m = {}", g, off[std::size_t(g)], p.m));
    prev = off[std::size_t(g)];
  }
}

Scratch scratch_for(const Context& ctx, const Workspace* ws) {
  return ws ? ws->impl().memory.view() : ctx.impl().workspace.view();
}

void run(const Context& ctx, const Problem& p, Stream stream, const Workspace* ws) {
  const ContextImpl& c = ctx.impl();
  check_pointers(p, c.device.props.ordinal);
  if (ws && ws->impl().memory.device != c.device.props.ordinal)
    throw InvalidArgument("workspace", fmt::format("was made for GPU {}, but the context is on GPU {}",
                                                   ws->impl().memory.device, c.device.props.ordinal));
  const DeviceGuard guard(c.device.props.ordinal);
  if (p.grouped() && c.options.check_device_arguments) check_offsets_on_host(p, stream);
  const LaunchEnv env{stream, scratch_for(ctx, ws), &c.device};
  const Choice choice = choose(c, p, env.scratch.bytes);
  execute(choice, p, env);
}

Plan plan_for(const Context& ctx, const Problem& p, const Workspace* ws) {
  const Choice choice = choose(ctx.impl(), p, scratch_for(ctx, ws).bytes);
  return describe(choice, p);
}

}  // namespace

}  // namespace detail

void gemm(const Context& ctx, const Gemm& problem, Stream stream, Workspace* workspace) {
  detail::run(ctx, detail::normalize(problem), stream, workspace);
}

void gemm(const Context& ctx, const GroupedGemm& problem, Stream stream, Workspace* workspace) {
  detail::run(ctx, detail::normalize(problem), stream, workspace);
}

Plan plan(const Context& ctx, const Gemm& problem, const Workspace* workspace) {
  return detail::plan_for(ctx, detail::normalize(problem), workspace);
}

Plan plan(const Context& ctx, const GroupedGemm& problem, const Workspace* workspace) {
  return detail::plan_for(ctx, detail::normalize(problem), workspace);
}

}  // namespace gemmlab
