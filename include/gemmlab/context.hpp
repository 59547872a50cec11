// The per-device state of the library: a Context per GPU, and workspaces.
//
// A Context holds what gemmlab knows about one device (its properties, the kernels' shared-memory
// and occupancy figures, the dispatch table) and a workspace: scratch memory for partial sums and
// the counters kernels signal each other with. It is made once, up front; calls then allocate
// nothing. Nothing per device lives anywhere else, so contexts on several GPUs work side by side.
//
// Thread safety: a Context is read-only after construction and may be shared by any number of
// threads. Its workspace, however, serves one stream at a time: calls that may run at the same time
// on the GPU (on different streams) must each have their own Workspace. Calls on one stream are
// ordered, so any number of them may share one.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gemmlab/export.hpp"

struct CUstream_st;

namespace gemmlab {

// A CUDA stream (cudaStream_t is CUstream_st*).
using Stream = CUstream_st*;

struct DeviceProperties {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t smem_per_block_optin = 0;
};

namespace detail {
struct ContextImpl;
struct WorkspaceImpl;
}  // namespace detail

class Workspace;

class GEMMLAB_API Context {
 public:
  struct Options {
    int device = -1;  // CUDA device ordinal; -1: the calling thread's current device
    // The context's own workspace. Dispatch fits each call into the workspace it is given: a larger
    // one allows stream-K tails, split-K and operand copies on more shapes.
    std::size_t workspace_bytes = std::size_t(64) << 20;
    // A dispatch table (JSON, written by `gemmlab tune --table`). Empty: the table built into the
    // library for this GPU, or the model alone where there is none. Overridden by $GEMMLAB_TABLE.
    std::string table;
    // Copy device-side arguments (grouped offsets) to the host and check them on every call. This
    // synchronises the stream: for debugging only, and not while capturing a graph.
    bool check_device_arguments = false;
    // Launch the GEMM kernels early (programmatic dependent launch, sm_90 and later): their blocks
    // are placed on the SMs the kernel ahead of them on the stream frees as it drains, and wait
    // there for its writes before reading anything, instead of being launched once it has ended.
    // This saves about a microsecond before each (after a call's operand copy, or the previous
    // call). A kernel of yours launched with programmatic dependent launch right after a call must
    // wait for it (cudaGridDependencySynchronize) before reading D, as such launches always must.
    // false: plain stream order. Overridden by $GEMMLAB_EARLY_LAUNCH (0 or 1).
    bool early_launch = true;
  };

  Context();  // the current device, default options
  explicit Context(const Options& options);
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceProperties& device() const;
  const Options& options() const;
  // Where the dispatch table came from: "built-in h100", a file path, or "none (model only)".
  const std::string& table_source() const;

  const detail::ContextImpl& impl() const { return *impl_; }

 private:
  std::unique_ptr<detail::ContextImpl> impl_;
};

// Scratch memory for calls on a stream other than the one the context's own workspace serves.
// Allocated on the context's device when made (the only allocation), freed when destroyed.
class GEMMLAB_API Workspace {
 public:
  Workspace(const Context& ctx, std::size_t bytes);
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  std::size_t bytes() const;
  detail::WorkspaceImpl& impl() const { return *impl_; }

 private:
  std::unique_ptr<detail::WorkspaceImpl> impl_;
};

}  // namespace gemmlab
