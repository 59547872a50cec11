// A 32 x 32 tile transpose through shared memory: reads and writes both along rows (coalesced),
// the tile padded by one column so that the column reads hit 32 different banks. And a row copy of
// matrices whose rows are not 16-byte aligned into rows of a 128-byte multiple.
#include "kernels/library/transpose.hpp"

#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "kernels/device_utils.cuh"

namespace gemmlab::detail {

namespace {

constexpr int kTile = 32, kRows = 8;

template <class E>
__global__ void transpose(const E* __restrict__ src, std::int64_t ld, std::int64_t stride, std::int64_t rows,
                          std::int64_t cols, std::int64_t batch, E* __restrict__ dst, std::int64_t dst_ld) {
  __shared__ E tile[kTile][kTile + 1];
  dev::start_in_stream_order();
  const std::int64_t tiles_c = (cols + kTile - 1) / kTile, tiles_r = (rows + kTile - 1) / kTile;
  for (std::int64_t item = blockIdx.y; item < batch; item += gridDim.y) {
    const E* s = src + item * stride;
    E* d = dst + item * cols * dst_ld;
    for (std::int64_t t = blockIdx.x; t < tiles_r * tiles_c; t += gridDim.x) {
      const std::int64_t r0 = (t / tiles_c) * kTile, c0 = (t % tiles_c) * kTile;
      for (int i = threadIdx.y; i < kTile; i += kRows) {
        const std::int64_t r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[i][threadIdx.x] = s[r * ld + c];
      }
      __syncthreads();
      for (int i = threadIdx.y; i < kTile; i += kRows) {
        const std::int64_t c = c0 + i, r = r0 + threadIdx.x;  // dst row c, column r
        if (r < rows && c < cols) d[c * dst_ld + r] = tile[threadIdx.x][i];
      }
      __syncthreads();
    }
  }
}

// One block per piece of a row (blockDim.x 16-byte vectors; grid-strided over the pieces of every
// row and item). Each thread reads its vector's elements from the unaligned source one at a time
// (the warp's reads fall on consecutive addresses, which the L1 serves) and writes them to the
// aligned destination row (rows of kCopyRowBytes) in one 16-byte store: element stores took about
// twice as long. The vector past the row's end is zero-filled: the destination's padding, which
// the tensor maps never read. Pieces rather than whole rows: a few long rows (A of 7 x 4099) then
// still spread over many SMs.
template <class E>
__global__ void copy_rows(const E* __restrict__ src, std::int64_t ld, std::int64_t stride, std::int64_t rows,
                          std::int64_t cols, std::int64_t batch, E* __restrict__ dst, std::int64_t dst_ld) {
  constexpr int kVec = 16 / sizeof(E);
  dev::start_in_stream_order();
  const std::int64_t piece = std::int64_t(blockDim.x) * kVec, pieces = (cols + piece - 1) / piece;
  for (std::int64_t b = blockIdx.x; b < rows * batch * pieces; b += gridDim.x) {
    const std::int64_t r = b / pieces, c = (b % pieces) * piece + std::int64_t(threadIdx.x) * kVec;
    if (c >= cols) continue;
    const std::int64_t item = r / rows, row = r % rows;
    const E* s = src + item * stride + row * ld;
    union {
      uint4 v;
      E e[kVec];
    } u;
#pragma unroll
    for (int j = 0; j < kVec; ++j) u.e[j] = c + j < cols ? s[c + j] : E(0);
    *reinterpret_cast<uint4*>(dst + r * dst_ld + c) = u.v;
  }
}

template <class E>
void launch_copy_rows(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                      std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream) {
  constexpr std::int64_t kVec = 16 / sizeof(E);
  // Destination rows hold whole 16-byte vectors: dst_ld (kCopyRowBytes) and dst both aligned.
  if (dst_ld % kVec != 0 || reinterpret_cast<std::uintptr_t>(dst) % 16 != 0)
    throw Error("copy_rows: the destination rows are not 16-byte aligned");
  const std::int64_t vectors = (cols + kVec - 1) / kVec;
  const unsigned threads = vectors >= 128 ? 128 : vectors >= 64 ? 64 : 32;
  const std::int64_t pieces = (vectors + threads - 1) / threads;
  const unsigned blocks = unsigned(std::min<std::int64_t>(rows * batch * pieces, 1 << 20));
  copy_rows<E><<<blocks, threads, 0, stream>>>(static_cast<const E*>(src), ld, stride, rows, cols, batch,
                                               static_cast<E*>(dst), dst_ld);
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace

void launch_copy_rows_16(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                         std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream) {
  launch_copy_rows<std::uint16_t>(src, ld, stride, rows, cols, batch, dst, dst_ld, stream);
}

void launch_copy_rows_32(const void* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                         std::int64_t batch, void* dst, std::int64_t dst_ld, cudaStream_t stream) {
  launch_copy_rows<std::uint32_t>(src, ld, stride, rows, cols, batch, dst, dst_ld, stream);
}

template <class E>
void launch_transpose(const E* src, std::int64_t ld, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                      std::int64_t batch, E* dst, std::int64_t dst_ld, cudaStream_t stream) {
  const std::int64_t tiles = ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
  const dim3 grid(unsigned(std::min<std::int64_t>(tiles, 1 << 20)), unsigned(std::min<std::int64_t>(batch, 65535)));
  transpose<E><<<grid, dim3(kTile, kRows), 0, stream>>>(src, ld, stride, rows, cols, batch, dst, dst_ld);
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
