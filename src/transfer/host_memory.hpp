// Host memory for the transfer pipeline: the four host-memory modes, an owning host buffer that
// is either pageable (malloc) or pinned (cudaMallocHost), and the check that a problem size fits
// in the host's memory before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace gemmlab::transfer {

// How A, B and C live on the host, and how they travel.
enum class HostMode {
  pageable,    // malloc for A, B and C (seed 001's "malloc" variant)
  pinned_c,    // malloc for A and B, cudaMallocHost for C only (seed 001's "cudaMallocHost" variant)
  pinned,      // cudaMallocHost for A, B and C
  overlapped,  // A, B, C pinned; A, B and C move in panels on their own streams while kernels run
};

std::string_view mode_name(HostMode m);         // "pageable", "pinned-c", "pinned", "overlapped"
std::string_view mode_description(HostMode m);  // one line: what is allocated how
std::optional<HostMode> parse_mode(std::string_view s);
// "all", or a comma-separated list of mode names, in the order given (duplicates removed).
// Throws Error naming the choices.
std::vector<HostMode> parse_mode_list(std::string_view text);
const std::vector<HostMode>& all_modes();

enum class HostKind { pageable, pinned };
// Which allocation each matrix gets in a mode.
HostKind kind_of_a_and_b(HostMode m);
HostKind kind_of_c(HostMode m);

// A resource (host or device memory) is too small for a problem size: the size is skipped with
// this message, it is not a failure of the program.
class ResourceShortage : public Error {
 public:
  using Error::Error;
};

// Owning host buffer. Allocation failure throws ResourceShortage. release() frees now (so that
// the free can be timed); the destructor frees whatever is left on error paths.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t bytes, HostKind kind);
  ~HostBuffer();
  HostBuffer(HostBuffer&& o) noexcept;
  HostBuffer& operator=(HostBuffer&& o) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void release();  // throws Error if cudaFreeHost fails
  void* get() const { return ptr_; }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }
  HostKind kind() const { return kind_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  HostKind kind_ = HostKind::pageable;
};

// MemAvailable from the text of /proc/meminfo, in bytes; nullopt if the line is missing or malformed.
std::optional<std::size_t> parse_mem_available(std::string_view meminfo);
// Reads /proc/meminfo now (every call: on some machines the figure grows after boot).
std::optional<std::size_t> host_memory_available();

// The share of MemAvailable gemmlab lets itself use: the rest stays for the system, and malloc's
// overcommit means a wrong guess ends in the OOM killer, not in an error we could catch.
inline constexpr double kHostMemoryShare = 0.75;

// Why `need` bytes of host memory should not be allocated when `available` bytes are available
// (nullopt: go ahead). An unknown `available` is no reason to skip: allocation failure still
// produces a clean skip.
std::optional<std::string> host_memory_shortfall(std::size_t need, std::optional<std::size_t> available);

std::string format_bytes(double bytes);  // "512 MiB", "1.50 GiB", "64 KiB"

}  // namespace gemmlab::transfer
