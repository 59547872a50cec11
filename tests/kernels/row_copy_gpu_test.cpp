// The row copy of operands the TMA cannot address (kernels/library/transpose.hpp, copy_rows)
// against the source, byte for byte: 2- and 4-byte elements, every start offset inside a 16-byte
// vector, rows shorter than a vector and longer than many, padding between rows and items, two
// jobs in one launch. The source ends where its allocation ends, so a read past it shows under
// compute-sanitizer's memcheck; the destination is poisoned, and the part of each row past the
// zeroed vector must keep the poison.
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "kernels/library/transpose.hpp"
#include "support/gpu_test.hpp"

namespace gemmlab::detail {
namespace {

constexpr unsigned char kPoison = 0xA5;

struct Case {
  std::int64_t rows, cols, ld, batch, stride, offset;  // offset: elements from the allocation's start
};

// One device allocation of exactly `bytes`, filled from `host`.
struct DeviceBytes {
  void* ptr = nullptr;
  explicit DeviceBytes(const std::vector<unsigned char>& host) {
    EXPECT_EQ(cudaMalloc(&ptr, host.size()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceBytes() { cudaFree(ptr); }
  std::vector<unsigned char> read(std::size_t bytes) const {
    std::vector<unsigned char> h(bytes);
    EXPECT_EQ(cudaMemcpy(h.data(), ptr, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

// The source's bytes: offset elements, then the items, the last row of the last item ending the
// allocation.
std::size_t source_bytes(const Case& c, std::size_t es) {
  return std::size_t(c.offset + (c.batch - 1) * c.stride + (c.rows - 1) * c.ld + c.cols) * es;
}

// Checks dst (rows of dst_ld elements, item after item) against src for one case: the copied
// elements equal, the rest of the row's last 16-byte vector zero, the rest of the row poisoned.
void expect_copied(const Case& c, std::size_t es, const std::vector<unsigned char>& src,
                   const std::vector<unsigned char>& dst, std::int64_t dst_ld, std::size_t dst_at) {
  const std::int64_t vec = 16 / std::int64_t(es), zeroed = (c.cols + vec - 1) / vec * vec;
  int bad = 0;
  for (std::int64_t i = 0; i < c.batch; ++i)
    for (std::int64_t r = 0; r < c.rows; ++r) {
      const unsigned char* s = src.data() + (c.offset + i * c.stride + r * c.ld) * es;
      const unsigned char* d = dst.data() + dst_at + ((i * c.rows + r) * dst_ld) * es;
      for (std::int64_t b = 0; b < dst_ld * std::int64_t(es) && bad < 5; ++b) {
        const std::int64_t col = b / std::int64_t(es);
        const unsigned char want = col < c.cols ? s[b] : col < zeroed ? 0 : kPoison;
        if (d[b] != want) {
          ADD_FAILURE() << fmt::format("item {} row {} byte {}: {} where {} was due", i, r, b, d[b], want);
          ++bad;
        }
      }
    }
}

void run_cases(const std::vector<Case>& cases, std::size_t es, bool paired) {
  std::mt19937 rng(20261205);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t at = 0; at < cases.size(); at += paired ? 2 : 1) {
    const int count = paired && at + 1 < cases.size() ? 2 : 1;
    std::vector<std::vector<unsigned char>> src(count);
    std::vector<std::unique_ptr<DeviceBytes>> dev_src;
    RowCopy jobs[2];
    std::size_t dst_bytes = 0, dst_at[2] = {0, 0};
    const std::int64_t vec = 16 / std::int64_t(es);
    for (int j = 0; j < count; ++j) {
      const Case& c = cases[at + j];
      src[j].resize(source_bytes(c, es));
      for (auto& b : src[j]) b = static_cast<unsigned char>(byte(rng));
      dev_src.push_back(std::make_unique<DeviceBytes>(src[j]));
      // Destination rows: a whole vector past the zeroed one, to show what must stay untouched.
      const std::int64_t dst_ld = ((c.cols + vec - 1) / vec + 1) * vec;
      dst_at[j] = dst_bytes;
      dst_bytes += std::size_t(c.batch * c.rows * dst_ld) * es;
      jobs[j] = RowCopy{static_cast<const char*>(dev_src[j]->ptr) + c.offset * es, c.ld, c.stride, c.rows, c.cols,
                        c.batch, nullptr, dst_ld};
    }
    DeviceBytes dst(std::vector<unsigned char>(dst_bytes, kPoison));
    for (int j = 0; j < count; ++j) jobs[j].dst = static_cast<char*>(dst.ptr) + dst_at[j];
    if (es == 2) launch_copy_rows_16(jobs, count, nullptr);
    else launch_copy_rows_32(jobs, count, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<unsigned char> out = dst.read(dst_bytes);
    for (int j = 0; j < count; ++j) {
      const Case& c = cases[at + j];
      SCOPED_TRACE(fmt::format("{}-byte elements, {} x {} (ld {}) x {} items (stride {}), offset {}{}", es, c.rows,
                               c.cols, c.ld, c.batch, c.stride, c.offset, count > 1 ? ", one of two jobs" : ""));
      expect_copied(c, es, src[j], out, jobs[j].dst_ld, dst_at[j]);
    }
  }
}

std::vector<Case> cases_for(std::size_t es) {
  const std::int64_t vec = 16 / std::int64_t(es);
  std::vector<Case> cases;
  for (std::int64_t offset = 0; offset < vec; ++offset) {
    cases.push_back({37, 364, 364, 1, 0, offset});                 // an N-major B of an odd N's neighbour
    cases.push_back({5, 12991, 12991, 1, 0, offset});              // long odd rows
    cases.push_back({33, 3, 5, 1, 0, offset});                     // rows shorter than a vector, padded
    cases.push_back({9, 2 * vec + 1, 3 * vec + 3, 3, 40 * vec + 1, offset});  // items with gaps
    cases.push_back({1, 1, 1, 1, 0, offset});
  }
  return cases;
}

class RowCopyTest : public GpuTest {};

TEST_F(RowCopyTest, TwoByteElementsMatchTheSourceAtEveryOffset) { run_cases(cases_for(2), 2, false); }
TEST_F(RowCopyTest, FourByteElementsMatchTheSourceAtEveryOffset) { run_cases(cases_for(4), 4, false); }
TEST_F(RowCopyTest, TwoJobsInOneLaunchMatchTheirSources) {
  run_cases(cases_for(2), 2, true);
  run_cases(cases_for(4), 4, true);
}

}  // namespace
}  // namespace gemmlab::detail
