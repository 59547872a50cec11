// What a Context holds (context.hpp): the device's facts, the workspace, the dispatch table.
#pragma once

#include <string>

#include "dispatch/table.hpp"
#include "gemmlab/context.hpp"
#include "kernels/library/launch.hpp"

namespace gemmlab::detail {

// Device memory of a workspace: `bytes` of scratch, then the stream-K counters.
struct DeviceScratch {
  int device = 0;
  void* base = nullptr;
  std::size_t bytes = 0;
  Scratch view() const;
  void allocate(int device, std::size_t bytes);  // also zeroes the counters (synchronously)
  void release() noexcept;
};

struct ContextImpl {
  Context::Options options;
  DeviceState device;
  DeviceScratch workspace;
  Table table;
  std::string table_source;
};

struct WorkspaceImpl {
  DeviceScratch memory;
};

// Makes `device` current for the lifetime of the guard, if it is not already (calls may come
// from threads whose current device is another GPU).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace gemmlab::detail
