// Context and Workspace (context.hpp): everything per device is measured and allocated here, once.
#include <cstdlib>
#include <string_view>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "core/error.hpp"
#include "dispatch/dispatch.hpp"
#include "gemmlab/error.hpp"
#include "kernels/library/generic.hpp"

namespace gemmlab {

namespace detail {

DeviceGuard::DeviceGuard(int device) {
  int current = -1;
  GEMMLAB_CUDA(cudaGetDevice(&current));
  if (current != device) {
    GEMMLAB_CUDA(cudaSetDevice(device));
    previous_ = current;
  }
}
DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

Scratch DeviceScratch::view() const {
  Scratch s;
  s.data = static_cast<unsigned char*>(base) + kFlagCount * sizeof(unsigned);
  s.bytes = bytes;
  s.flags = static_cast<unsigned*>(base);
  return s;
}

void DeviceScratch::allocate(int dev, std::size_t n) {
  device = dev;
  bytes = (n + 255) / 256 * 256;
  const DeviceGuard guard(dev);
  // The counters first (256-byte aligned: kFlagCount * 4 bytes is a multiple of 256), then the scratch.
  static_assert(kFlagCount * sizeof(unsigned) % 256 == 0);
  GEMMLAB_CUDA(cudaMalloc(&base, kFlagCount * sizeof(unsigned) + bytes));
  GEMMLAB_CUDA(cudaMemset(base, 0, kFlagCount * sizeof(unsigned)));
  GEMMLAB_CUDA(cudaDeviceSynchronize());
}

void DeviceScratch::release() noexcept {
  if (base) {
    int current = -1;
    cudaGetDevice(&current);
    if (current != device) cudaSetDevice(device);
    cudaFree(base);
    if (current != device && current >= 0) cudaSetDevice(current);
  }
  base = nullptr;
  bytes = 0;
}

namespace {

DeviceState query_state(int ordinal) {
  cudaDeviceProp prop{};
  GEMMLAB_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  DeviceState s;
  s.props.ordinal = ordinal;
  s.props.name = prop.name;
  s.props.cc_major = prop.major;
  s.props.cc_minor = prop.minor;
  s.props.sm_count = prop.multiProcessorCount;
  s.props.l2_bytes = std::size_t(prop.l2CacheSize);
  s.props.smem_per_block_optin = prop.sharedMemPerBlockOptin;
  s.cc = prop.major * 10 + prop.minor;
  return s;
}

// The library holds machine code for this GPU (CMAKE_CUDA_ARCHITECTURES)?
void check_code_for_device(const DeviceState& s) {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, generic_kernel_for_checks());
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw Unsupported(fmt::format("gemmlab was not built for {} (sm_{}{}): {}. Rebuild with "
                                  "CMAKE_CUDA_ARCHITECTURES={}{}",
                                  s.props.name, s.props.cc_major, s.props.cc_minor, cudaGetErrorString(e),
                                  s.props.cc_major, s.props.cc_minor));
  }
}

}  // namespace

}  // namespace detail

Context::Context() : Context(Options{}) {}

Context::Context(const Options& options) : impl_(std::make_unique<detail::ContextImpl>()) {
  impl_->options = options;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw Error(fmt::format("no CUDA GPU is usable here ({})",
                            e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found none"));
  }
  int ordinal = options.device;
  if (ordinal < 0) GEMMLAB_CUDA(cudaGetDevice(&ordinal));
  if (ordinal >= count)
    throw InvalidArgument("device", fmt::format("{} is not a device ordinal: this machine has {} GPU(s)", ordinal, count));
  const detail::DeviceGuard guard(ordinal);
  impl_->device = detail::query_state(ordinal);
  detail::check_code_for_device(impl_->device);
  detail::prepare_kernels(impl_->device);
  bool early = options.early_launch;
  if (const char* env = std::getenv("GEMMLAB_EARLY_LAUNCH"); env && *env) early = std::string_view(env) != "0";
  impl_->device.early_launch = early && impl_->device.cc >= 90;
  std::string table = options.table;
  if (const char* env = std::getenv("GEMMLAB_TABLE"); env && *env) table = env;
  impl_->table = table.empty() ? detail::builtin_table(impl_->device.props.name, impl_->table_source)
                               : detail::load_table_file(table, impl_->table_source);
  impl_->workspace.allocate(ordinal, options.workspace_bytes);
}

Context::~Context() {
  if (impl_) impl_->workspace.release();
}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&& o) noexcept {
  if (this != &o) {
    if (impl_) impl_->workspace.release();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

const DeviceProperties& Context::device() const { return impl_->device.props; }
const Context::Options& Context::options() const { return impl_->options; }
const std::string& Context::table_source() const { return impl_->table_source; }

Workspace::Workspace(const Context& ctx, std::size_t bytes) : impl_(std::make_unique<detail::WorkspaceImpl>()) {
  impl_->memory.allocate(ctx.device().ordinal, bytes);
}
Workspace::~Workspace() {
  if (impl_) impl_->memory.release();
}
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&& o) noexcept {
  if (this != &o) {
    if (impl_) impl_->memory.release();
    impl_ = std::move(o.impl_);
  }
  return *this;
}
std::size_t Workspace::bytes() const { return impl_->memory.bytes; }

}  // namespace gemmlab
