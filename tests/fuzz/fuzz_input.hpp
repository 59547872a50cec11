// The bytes of a fuzzer's input read as the fields of a call: each read takes the next bytes (zeros
// once they run out), and sizes, offsets and addresses come either from a short list of values
// where checks change their answer (0, 1, tile edges, 2^31 - 1, the int64 limits) or raw.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

namespace gemmlab::fuzz {

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  std::uint8_t byte() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  template <class T>
  T raw() {
    unsigned char b[sizeof(T)];
    for (auto& x : b) x = byte();
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  bool flag() { return byte() & 1; }

  // A size, leading dimension, stride or count.
  std::int64_t integer() {
    static constexpr std::int64_t kEdges[] = {0,   1,   2,    3,    7,    8,     15,    16,
                                              17,  63,  64,   65,   127,  128,   129,   255,
                                              256, 257, 1000, 4096, 4099, 65536, -1,    -2,
                                              std::int64_t(std::numeric_limits<std::int32_t>::max()),
                                              std::int64_t(std::numeric_limits<std::int32_t>::max()) + 1,
                                              std::int64_t(1) << 32, std::int64_t(1) << 62,
                                              std::numeric_limits<std::int64_t>::max(),
                                              std::numeric_limits<std::int64_t>::min()};
    constexpr std::size_t kCount = sizeof(kEdges) / sizeof(kEdges[0]);
    const std::uint8_t c = byte();
    if (c < 2 * kCount) return kEdges[c % kCount];
    if (c < 240) return std::int64_t(c - 2 * kCount);
    return raw<std::int64_t>();
  }

  // A device address the API never reads: null, one of a few bases 1 MiB apart plus a small
  // (possibly misaligned) offset, so that operands meet and overlap, or raw (up to the top of the
  // address space).
  const void* address() {
    const std::uint8_t c = byte();
    if (c < 16) return nullptr;
    if (c < 224) {
      const std::uintptr_t base = std::uintptr_t(1 + c % 8) << 20;
      return reinterpret_cast<const void*>(base + std::uintptr_t(byte()) * (c & 16 ? 1 : 16));
    }
    return reinterpret_cast<const void*>(raw<std::uintptr_t>());
  }

  // An enumeration's value, now and then one past its last.
  template <class E>
  E enumeration(int count) {
    const std::uint8_t c = byte();
    return static_cast<E>(c < 240 ? c % count : c);
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

// For readers that take a path: the bytes written to a file of this process's own, named by
// `name` (its extension chooses the reader where that matters); removed when it goes out of scope.
// ok() is false when the file could not be written.
class AsFile {
 public:
  AsFile(const std::uint8_t* data, std::size_t size, const std::string& name)
      : path_("/tmp/gemmlab_fuzz_" + std::to_string(::getpid()) + "_" + name) {
    if (std::FILE* f = std::fopen(path_.c_str(), "wb")) {
      ok_ = size == 0 || std::fwrite(data, 1, size, f) == size;
      ok_ = std::fclose(f) == 0 && ok_;
    }
  }
  ~AsFile() { std::remove(path_.c_str()); }
  AsFile(const AsFile&) = delete;
  AsFile& operator=(const AsFile&) = delete;
  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool ok_ = false;
};

}  // namespace gemmlab::fuzz
