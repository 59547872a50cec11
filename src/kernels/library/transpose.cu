// A 64 x 64 tile transpose through shared memory: reads and writes both along rows (coalesced),
// the tile padded by one 4-byte word a row so that the column reads hit 32 different banks. And a
// row copy of matrices whose rows are not 16-byte aligned into rows of a 128-byte multiple.
#include "kernels/library/transpose.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/library/divisor.hpp"

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

// The row copy: each thread writes 16-byte vectors of the aligned destination (rows of
// kCopyRowBytes), kUnroll of them, all loaded before any is stored so that a thread keeps several
// loads in flight. A vector of the unaligned source is read as the two aligned 16-byte vectors
// around it, and its bytes shifted out of them (a funnel shift of 32-bit words): neighbouring
// threads read the same aligned vectors, which the L1 serves once. Where the aligned pair would
// reach outside the source's extent (its first or last bytes), or the vector is the row's last
// and partial, the elements are read one at a time, and the columns past the row's end written as
// zeros: the destination's padding, which the tensor maps never read. Vectors are numbered over
// all rows of all items, so short rows (an N-major B of a few hundred columns) keep whole warps
// busy as well as long ones; the numbers are split into (row, vector) by invariant divisors, so
// each job of a launch has fewer than 2^30 vectors (the launch splits larger ones). A small copy
// (the operands of a few hundred on a side) takes blocks of 128 threads and one vector a thread,
// to spread over more SMs. Up to two jobs (A and B) in one launch: each launch on the stream costs
// as much as the copy of a small operand (docs/shapes.md, "Copies in rows of 128 bytes").
constexpr std::int64_t kSmallCopyVectors = std::int64_t(1) << 18;
constexpr std::int64_t kMaxCopyVectors = std::int64_t(1) << 30;

struct CopyJob {
  const char* src;          // item 0, row 0, element 0
  const char *begin, *end;  // the bytes the source spans (the aligned pairs read stay inside)
  std::int64_t ld, stride;  // bytes between rows, between items
  char* dst;
  std::int64_t dst_ld;      // bytes between destination rows (a 16-byte multiple)
  unsigned cols, vectors;   // elements a row; 16-byte vectors of the whole job
  Divisor per_row, rows;    // vectors a destination row; rows an item
};
struct CopyJobs {
  CopyJob job[2];
  int count;
};

// The 16 bytes at `at`, which is not 16-byte aligned, from the aligned vectors lo and hi around it.
__device__ __forceinline__ uint4 shifted(const uint4 lo, const uint4 hi, unsigned offset) {
  const std::uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const unsigned q = offset >> 2, s = (offset & 3) * 8;
  std::uint32_t x[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) x[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
  return uint4{__funnelshift_r(x[0], x[1], s), __funnelshift_r(x[1], x[2], s), __funnelshift_r(x[2], x[3], s),
               __funnelshift_r(x[3], x[4], s)};
}

template <class E, int kCopyThreads, int kCopyUnroll>
__global__ void __launch_bounds__(kCopyThreads) copy_rows(const CopyJobs jobs) {
  constexpr unsigned kVec = 16 / sizeof(E);
  dev::start_in_stream_order();
  const unsigned first_count = jobs.job[0].vectors;
  const unsigned total = first_count + (jobs.count > 1 ? jobs.job[1].vectors : 0u);
  const unsigned base = blockIdx.x * (kCopyThreads * kCopyUnroll) + threadIdx.x;
  uint4 v[kCopyUnroll];
  char* to[kCopyUnroll];
#pragma unroll
  for (int u = 0; u < kCopyUnroll; ++u) {
    to[u] = nullptr;
    const unsigned i = base + unsigned(u) * kCopyThreads;
    if (i >= total) continue;
    // Named, not indexed: an array indexed at run time (or a parameter's) lives on the stack.
    const bool first = i < first_count;
    const CopyJob j = first ? jobs.job[0] : jobs.job[1];
    const unsigned n = first ? i : i - first_count;
    const unsigned r = j.per_row.quotient(n), c = (n - r * j.per_row.d) * kVec;
    const unsigned item = j.rows.quotient(r), row = r - item * j.rows.d;
    const char* at = j.src + std::int64_t(item) * j.stride + std::int64_t(row) * j.ld + std::int64_t(c) * sizeof(E);
    to[u] = j.dst + std::int64_t(r) * j.dst_ld + std::int64_t(c) * sizeof(E);
    const unsigned offset = unsigned(reinterpret_cast<std::uintptr_t>(at) & 15);
    const uint4* pair = reinterpret_cast<const uint4*>(at - offset);
    if (c + kVec <= j.cols && offset == 0) {
      v[u] = __ldg(pair);
    } else if (c + kVec <= j.cols && at - offset >= j.begin && at - offset + 32 <= j.end) {
      v[u] = shifted(__ldg(pair), __ldg(pair + 1), offset);
    } else {
      union {
        uint4 q;
        E e[kVec];
      } w;
      const E* s = reinterpret_cast<const E*>(at);
#pragma unroll
      for (unsigned e = 0; e < kVec; ++e) w.e[e] = c + e < j.cols ? s[e] : E(0);
      v[u] = w.q;
    }
  }
#pragma unroll
  for (int u = 0; u < kCopyUnroll; ++u)
    if (to[u] != nullptr) *reinterpret_cast<uint4*>(to[u]) = v[u];
}

template <class E>
CopyJob copy_job(const RowCopy& w) {
  constexpr std::int64_t kVec = 16 / sizeof(E), es = sizeof(E);
  const std::int64_t per_row = (w.cols + kVec - 1) / kVec;
  CopyJob j{};
  j.src = static_cast<const char*>(w.src);
  j.begin = j.src;
  j.end = j.src + (std::max<std::int64_t>(w.batch - 1, 0) * w.stride + (w.rows - 1) * w.ld + w.cols) * es;
  j.ld = w.ld * es;
  j.stride = w.stride * es;
  j.dst = static_cast<char*>(w.dst);
  j.dst_ld = w.dst_ld * es;
  j.cols = unsigned(w.cols);
  j.vectors = unsigned(w.rows * w.batch * per_row);
  j.per_row = Divisor(unsigned(per_row));
  j.rows = Divisor(unsigned(w.rows));
  return j;
}

template <class E>
void launch_copy_jobs(const RowCopy* jobs, int count, cudaStream_t stream) {
  CopyJobs all{};
  all.count = count;
  std::int64_t total = 0;
  for (int j = 0; j < count; ++j) {
    all.job[j] = copy_job<E>(jobs[j]);
    total += all.job[j].vectors;
  }
  if (total < kSmallCopyVectors) copy_rows<E, 128, 1><<<unsigned((total + 127) / 128), 128, 0, stream>>>(all);
  else copy_rows<E, 256, 4><<<unsigned((total + 1023) / 1024), 256, 0, stream>>>(all);
  GEMMLAB_CHECK_LAUNCH();
}

template <class E>
void launch_copy_rows(const RowCopy* jobs, int count, cudaStream_t stream) {
  constexpr std::int64_t kVec = 16 / sizeof(E);
  if (count < 1 || count > 2) throw Error("copy_rows: one or two jobs");
  bool whole = true;
  for (int j = 0; j < count; ++j) {
    const RowCopy& w = jobs[j];
    // Destination rows hold whole 16-byte vectors: dst_ld (kCopyRowBytes) and dst both aligned.
    if (w.dst_ld % kVec != 0 || reinterpret_cast<std::uintptr_t>(w.dst) % 16 != 0)
      throw Error("copy_rows: the destination rows are not 16-byte aligned");
    if (w.rows < 1 || w.cols < 1 || w.batch < 1 || w.dst_ld < w.cols) throw Error("copy_rows: an empty or overlapping copy");
    whole = whole && w.rows * w.batch * ((w.cols + kVec - 1) / kVec) < kMaxCopyVectors;
  }
  if (whole) return launch_copy_jobs<E>(jobs, count, stream);
  for (int j = 0; j < count; ++j)
    for (const RowCopy& piece : row_copy_pieces(jobs[j], sizeof(E), kMaxCopyVectors)) launch_copy_jobs<E>(&piece, 1, stream);
}

}  // namespace

std::vector<RowCopy> row_copy_pieces(const RowCopy& w, std::size_t elem_bytes, std::int64_t max_vectors) {
  const std::int64_t per_row = (w.cols + 16 / std::int64_t(elem_bytes) - 1) / (16 / std::int64_t(elem_bytes));
  if (per_row >= max_vectors) throw Error("copy_rows: a row of more vectors than a launch takes");
  const std::int64_t rows_each = std::min(w.rows, (max_vectors - 1) / per_row);
  const std::int64_t items_each = rows_each < w.rows ? 1 : std::max<std::int64_t>(1, (max_vectors - 1) / (w.rows * per_row));
  const std::int64_t es = std::int64_t(elem_bytes);
  std::vector<RowCopy> pieces;
  for (std::int64_t i = 0; i < w.batch; i += items_each)
    for (std::int64_t r = 0; r < w.rows; r += rows_each) {
      RowCopy piece = w;
      piece.src = static_cast<const char*>(w.src) + (i * w.stride + r * w.ld) * es;
      piece.dst = static_cast<char*>(w.dst) + (i * w.rows + r) * w.dst_ld * es;
      piece.rows = std::min(rows_each, w.rows - r);
      piece.batch = std::min(items_each, w.batch - i);
      pieces.push_back(piece);
    }
  return pieces;
}

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
