#include "transfer/host_memory.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include <cuda_runtime.h>
#include <fmt/format.h>

namespace gemmlab::transfer {

namespace {

struct ModeText {
  HostMode mode;
  std::string_view name, description;
};

constexpr ModeText kModes[] = {
    {HostMode::pageable, "pageable", "malloc for A, B and C; copies one after another"},
    {HostMode::pinned_c, "pinned-c", "malloc for A and B, cudaMallocHost for C only (as seed 001); copies one after another"},
    {HostMode::pinned, "pinned", "cudaMallocHost for A, B and C; copies one after another"},
    {HostMode::overlapped, "overlapped",
     "cudaMallocHost for A, B and C; panels of A and B uploaded on one stream while tile kernels and "
     "C downloads run on others"},
};

const ModeText& text(HostMode m) {
  for (const auto& t : kModes)
    if (t.mode == m) return t;
  return kModes[0];
}

}  // namespace

std::string_view mode_name(HostMode m) { return text(m).name; }
std::string_view mode_description(HostMode m) { return text(m).description; }

std::optional<HostMode> parse_mode(std::string_view s) {
  for (const auto& t : kModes)
    if (t.name == s) return t.mode;
  return std::nullopt;
}

const std::vector<HostMode>& all_modes() {
  static const std::vector<HostMode> modes = {HostMode::pageable, HostMode::pinned_c, HostMode::pinned,
                                              HostMode::overlapped};
  return modes;
}

std::vector<HostMode> parse_mode_list(std::string_view text_in) {
  if (text_in == "all") return all_modes();
  std::vector<HostMode> out;
  std::string_view rest = text_in;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto m = parse_mode(item);
    if (!m)
      throw Error(fmt::format("unknown host memory mode '{}' (choose pageable, pinned-c, pinned, overlapped, a "
                              "comma-separated list of them, or all)",
                              item));
    if (std::find(out.begin(), out.end(), *m) == out.end()) out.push_back(*m);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return out;
}

HostKind kind_of_a_and_b(HostMode m) {
  return (m == HostMode::pageable || m == HostMode::pinned_c) ? HostKind::pageable : HostKind::pinned;
}

HostKind kind_of_c(HostMode m) { return m == HostMode::pageable ? HostKind::pageable : HostKind::pinned; }

HostBuffer::HostBuffer(std::size_t bytes, HostKind kind) : bytes_(bytes), kind_(kind) {
  if (bytes == 0) return;
  if (kind == HostKind::pageable) {
    ptr_ = std::malloc(bytes);
    if (!ptr_) throw ResourceShortage(fmt::format("malloc of {} failed", format_bytes(double(bytes))));
  } else {
    const cudaError_t e = cudaMallocHost(&ptr_, bytes);
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      (void)cudaGetLastError();  // an allocation failure is not sticky; clear it so later calls are unaffected
      throw ResourceShortage(fmt::format("cudaMallocHost of {} failed: {}", format_bytes(double(bytes)),
                                         cudaGetErrorString(e)));
    }
  }
}

namespace {
// Frees without throwing (destructor and move paths).
void free_quietly(void* p, HostKind kind) {
  if (!p) return;
  if (kind == HostKind::pageable)
    std::free(p);
  else
    cudaFreeHost(p);
}
}  // namespace

HostBuffer::~HostBuffer() { free_quietly(ptr_, kind_); }

HostBuffer::HostBuffer(HostBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)), kind_(o.kind_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& o) noexcept {
  if (this != &o) {
    free_quietly(ptr_, kind_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    kind_ = o.kind_;
  }
  return *this;
}

void HostBuffer::release() {
  if (!ptr_) return;
  void* p = std::exchange(ptr_, nullptr);
  bytes_ = 0;
  if (kind_ == HostKind::pageable)
    std::free(p);
  else
    GEMMLAB_CUDA(cudaFreeHost(p));
}

std::optional<std::size_t> parse_mem_available(std::string_view meminfo) {
  std::size_t pos = 0;
  while (pos < meminfo.size()) {
    std::size_t end = meminfo.find('\n', pos);
    if (end == std::string_view::npos) end = meminfo.size();
    std::string_view line = meminfo.substr(pos, end - pos);
    pos = end + 1;
    constexpr std::string_view key = "MemAvailable:";
    if (line.substr(0, key.size()) != key) continue;
    line.remove_prefix(key.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    std::uint64_t value = 0;
    const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (ec != std::errc() || p == line.data()) return std::nullopt;
    std::string_view unit(p, std::size_t(line.data() + line.size() - p));
    while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
    while (!unit.empty() && (unit.back() == ' ' || unit.back() == '\r')) unit.remove_suffix(1);
    if (unit == "kB") return std::size_t(value) * 1024;
    if (unit.empty()) return std::size_t(value);
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::size_t> host_memory_available() {
  std::ifstream in("/proc/meminfo");
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_mem_available(ss.str());
}

std::optional<std::string> host_memory_shortfall(std::size_t need, std::optional<std::size_t> available) {
  if (!available) return std::nullopt;
  const double usable = kHostMemoryShare * double(*available);
  if (double(need) <= usable) return std::nullopt;
  return fmt::format("needs {} of host memory; {} are available (MemAvailable), gemmlab uses at most {:.0f}% of that",
                     format_bytes(double(need)), format_bytes(double(*available)), 100 * kHostMemoryShare);
}

std::string format_bytes(double b) {
  constexpr double KiB = 1024.0, MiB = KiB * 1024, GiB = MiB * 1024;
  auto trim = [](double v) {
    // 512 MiB, 1.5 GiB: no needless decimals for whole numbers.
    return v == double(std::int64_t(v)) ? fmt::format("{}", std::int64_t(v)) : fmt::format("{:.2f}", v);
  };
  if (b >= GiB) return trim(b / GiB) + " GiB";
  if (b >= MiB) return trim(b / MiB) + " MiB";
  if (b >= KiB) return trim(b / KiB) + " KiB";
  return fmt::format("{} B", std::int64_t(b));
}

}  // namespace gemmlab::transfer
