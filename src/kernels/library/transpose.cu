// A 64 x 64 tile transpose through shared memory: reads and writes both along rows (coalesced),
// the tile padded by one 4-byte word a row so that the column reads hit 32 different banks. And a
// row copy of matrices whose rows are not 16-byte aligned into rows of a 128-byte multiple.
#include "kernels/library/transpose.hpp"

#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "kernels/device_utils.cuh"

namespace gemmlab::detail {

namespace {

// A block of 32 x 8 threads moves a tile of 64 x 64: each thread 16 elements, all loaded before
// any is stored, so that a block keeps 16 loads a thread in flight. The copy is bound by the bytes
// in flight to DRAM, which a 32 x 32 tile (4 loads a thread, then a barrier before the stores) kept
// too few of (docs/api.md, "TF32, an M-major A").
constexpr int kTile = 64, kCols = 32, kRows = 8, kSpan = kTile / kCols, kPerThread = (kTile / kRows) * kSpan;

// The grid: x over the tiles' columns, y over their rows, z over the batch items, each
// grid-strided (y and z are capped at 65535). A tile's position comes from the block's indices,
// not from dividing a tile number (a 64-bit division per tile).
template <class E>
__global__ void __launch_bounds__(kCols * kRows) transpose(const E* __restrict__ src, std::int64_t ld, std::int64_t stride,
                                                           std::int64_t rows, std::int64_t cols, std::int64_t batch,
                                                           E* __restrict__ dst, std::int64_t dst_ld) {
  // A row of the tile padded to an odd number of 4-byte words: column reads conflict-free.
  constexpr int kPitch = kTile + 4 / int(sizeof(E));
  __shared__ E tile[kTile][kPitch];
  dev::wait_for_prerequisite_grid();
  const std::int64_t tiles_c = (cols + kTile - 1) / kTile, tiles_r = (rows + kTile - 1) / kTile;
  const int x = int(threadIdx.x), y = int(threadIdx.y);
  for (std::int64_t item = blockIdx.z; item < batch; item += gridDim.z)
    for (std::int64_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y)
      for (std::int64_t tc = blockIdx.x; tc < tiles_c; tc += gridDim.x) {
        const std::int64_t r0 = tr * kTile, c0 = tc * kTile;
        // This tile's rows and columns inside the matrix (a partial tile at the edges).
        const int in_r = int(std::min<std::int64_t>(kTile, rows - r0)), in_c = int(std::min<std::int64_t>(kTile, cols - c0));
        const E* s = src + item * stride + (r0 + y) * ld + c0 + x;  // row r0 + y, column c0 + x
        // Element (i, j) of this thread: tile row y + i * kRows, column x + j * kCols (read), or the
        // transposed position (written).
        const auto read_in = [&](int i, int j) { return y + i * kRows < in_r && x + j * kCols < in_c; };
        const auto write_in = [&](int i, int j) { return y + i * kRows < in_c && x + j * kCols < in_r; };
        E v[kPerThread];
#pragma unroll
        for (int i = 0; i < kTile / kRows; ++i)
#pragma unroll
          for (int j = 0; j < kSpan; ++j)
            if (read_in(i, j)) v[kSpan * i + j] = s[i * kRows * ld + j * kCols];
#pragma unroll
        for (int i = 0; i < kTile / kRows; ++i)
#pragma unroll
          for (int j = 0; j < kSpan; ++j)
            if (read_in(i, j)) tile[y + i * kRows][x + j * kCols] = v[kSpan * i + j];
        __syncthreads();
        E* d = dst + item * cols * dst_ld + (c0 + y) * dst_ld + r0 + x;  // destination row c0 + y, column r0 + x
#pragma unroll
        for (int i = 0; i < kTile / kRows; ++i)
#pragma unroll
          for (int j = 0; j < kSpan; ++j)
            if (write_in(i, j)) d[i * kRows * dst_ld + j * kCols] = tile[x + j * kCols][y + i * kRows];
        __syncthreads();
      }
  // The kernel behind (a GEMM launched early) places its blocks once this grid's have all got
  // here, on SMs then free, not beside this grid's blocks at its start: the skinny kernel's
  // clusters, placed beside the blocks of a thin copy, ran far slower (docs/api.md, "TF32, an
  // M-major A").
  dev::allow_dependent_launch();
}

// One block per piece of a row (blockDim.x 16-byte vectors; grid-strided over the pieces of every
// row and item of every job). Each thread reads its vector's elements from the unaligned source
// one at a time (the warp's reads fall on consecutive addresses, which the L1 serves) and writes
// them to the aligned destination row (rows of kCopyRowBytes) in one 16-byte store: element stores
// took much longer. The vector past the row's end is zero-filled: the destination's padding, which
// the tensor maps never read. Pieces rather than whole rows: a few long rows (A of 7 x 4099) then
// still spread over many SMs. Up to two jobs (A and B) in one launch: each launch on the stream
// costs as much as the copy of a small operand (docs/shapes.md, "Copies in rows of 128 bytes").
struct CopyJobs {
  RowCopy job[2];
  int count;
};

template <class E>
__global__ void copy_rows(const CopyJobs jobs) {
  constexpr int kVec = 16 / sizeof(E);
  dev::start_in_stream_order();
  const std::int64_t piece = std::int64_t(blockDim.x) * kVec;
  // Named, not indexed: an array indexed at run time (or a parameter's) lives on the stack.
  auto units_of = [&](const RowCopy& w) { return w.rows * w.batch * ((w.cols + piece - 1) / piece); };
  const std::int64_t units0 = units_of(jobs.job[0]), units1 = jobs.count > 1 ? units_of(jobs.job[1]) : 0;
  for (std::int64_t u = blockIdx.x; u < units0 + units1; u += gridDim.x) {
    const bool first = u < units0;
    const RowCopy w = first ? jobs.job[0] : jobs.job[1];
    const std::int64_t b = u - (first ? 0 : units0), pieces = (w.cols + piece - 1) / piece;
    const std::int64_t r = b / pieces, c = (b % pieces) * piece + std::int64_t(threadIdx.x) * kVec;
    if (c >= w.cols) continue;
    const std::int64_t item = r / w.rows, row = r % w.rows;
    const E* src = static_cast<const E*>(w.src) + item * w.stride + row * w.ld;
    union {
      uint4 v;
      E e[kVec];
    } v;
#pragma unroll
    for (int e = 0; e < kVec; ++e) v.e[e] = c + e < w.cols ? src[c + e] : E(0);
    *reinterpret_cast<uint4*>(static_cast<E*>(w.dst) + r * w.dst_ld + c) = v.v;
  }
}

template <class E>
void launch_copy_rows(const RowCopy* jobs, int count, cudaStream_t stream) {
  constexpr std::int64_t kVec = 16 / sizeof(E);
  if (count < 1 || count > 2) throw Error("copy_rows: one or two jobs");
  CopyJobs all{};
  all.count = count;
  std::int64_t longest = 0;
  for (int j = 0; j < count; ++j) {
    const RowCopy& w = jobs[j];
    // Destination rows hold whole 16-byte vectors: dst_ld (kCopyRowBytes) and dst both aligned.
    if (w.dst_ld % kVec != 0 || reinterpret_cast<std::uintptr_t>(w.dst) % 16 != 0)
      throw Error("copy_rows: the destination rows are not 16-byte aligned");
    all.job[j] = w;
    longest = std::max(longest, (w.cols + kVec - 1) / kVec);
  }
  const unsigned threads = longest >= 128 ? 128 : longest >= 64 ? 64 : 32;
  std::int64_t units = 0;
  for (int j = 0; j < count; ++j) units += jobs[j].rows * jobs[j].batch * ((jobs[j].cols + kVec * threads - 1) / (kVec * threads));
  const unsigned blocks = unsigned(std::clamp<std::int64_t>(units, 1, 1 << 20));
  copy_rows<E><<<blocks, threads, 0, stream>>>(all);
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace

void launch_copy_rows_16(const RowCopy* jobs, int count, cudaStream_t stream) {
  launch_copy_rows<std::uint16_t>(jobs, count, stream);
}

void launch_copy_rows_32(const RowCopy* jobs, int count, cudaStream_t stream) {
  launch_copy_rows<std::uint32_t>(jobs, count, stream);
}

template <class E>
void launch_transpose(const E* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                      std::int64_t batch, E* dst, std::int64_t dst_ld, cudaStream_t stream) {
  const std::int64_t tiles_c = (cols + kTile - 1) / kTile, tiles_r = (rows + kTile - 1) / kTile;
  const dim3 grid(unsigned(std::min<std::int64_t>(tiles_c, 1 << 20)), unsigned(std::min<std::int64_t>(tiles_r, 65535)),
                  unsigned(std::min<std::int64_t>(batch, 65535)));
  transpose<E><<<grid, dim3(kCols, kRows), 0, stream>>>(src, ld, stride, rows, cols, batch, dst, dst_ld);
  GEMMLAB_CHECK_LAUNCH();
}

void launch_transpose_f32(const float* src, std::int64_t ld, std::int64_t stride, std::int64_t rows,
                          std::int64_t cols, std::int64_t batch, float* dst, std::int64_t dst_ld, cudaStream_t stream) {
  launch_transpose(src, ld, stride, rows, cols, batch, dst, dst_ld, stream);
}

void launch_transpose_16(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                         std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream) {
  launch_transpose(static_cast<const std::uint16_t*>(src), ld, stride, rows, cols, batch, static_cast<std::uint16_t*>(dst),
                   dst_ld, stream);
}

}  // namespace gemmlab::detail
