// Owning handles for device and pinned host memory (RAII: freed on every path, errors too).
#pragma once

#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "core/types.hpp"

namespace gemmlab {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) GEMMLAB_CUDA(cudaMalloc(&ptr_, bytes_));
  }
  ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A matrix on the device: a buffer plus its shape and element type (row-major, packed).
struct DeviceMatrix {
  DeviceBuffer buf;
  std::int64_t rows = 0, cols = 0;
  DType dtype = DType::f32;

  DeviceMatrix() = default;
  DeviceMatrix(std::int64_t r, std::int64_t c, DType t)
      : buf(std::size_t(r) * std::size_t(c) * dtype_size(t)), rows(r), cols(c), dtype(t) {}
  std::int64_t elements() const { return rows * cols; }
  std::size_t bytes() const { return buf.bytes(); }
  void* data() const { return buf.get(); }
};

}  // namespace gemmlab
