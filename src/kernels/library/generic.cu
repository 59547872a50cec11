// The generic kernel (generic.hpp). A plain shared-memory tiled GEMM on CUDA cores: 64 x 64 tiles
// of D, k-tiles of 16, 256 threads with 4 x 4 outputs each, every operand element loaded on its
// own with bounds checks (no alignment assumed) and converted to FP32 in shared memory. Loads run
// along whichever index is contiguous in memory, so both K-major and MN-major operands coalesce.
// Each output is one FP32 sum over k in order: deterministic, and independent of m (batch
// invariant).
#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/library/epilogue.cuh"
#include "kernels/library/generic.hpp"

namespace gemmlab::detail {

namespace {

constexpr int BM = 64, BN = 64, BK = 16, kThreads = 256;

struct GenericArgs {
  std::int64_t m, n, k, batch;
  const void* a;
  std::int64_t lda, stride_a;
  const void* b;
  std::int64_t ldb, stride_b;
  const void* c;
  std::int64_t ldc, stride_c;
  void* d;
  std::int64_t ldd, stride_d;
  int a_kmajor, b_kmajor;
  int groups;  // 0: not grouped
  const std::int32_t* offsets;
  std::int64_t tiles_n, tile_rows;  // tile rows per item (grouped: an upper bound over all groups)
  epi::Params epi;
};

// Rows [row0, row_end) of D that tile row `t` of a grouped problem covers, and its group; false
// when t is past the last tile row. Group g's rows are [offsets[g-1], offsets[g]); a decreasing or
// out-of-range offset makes the group empty (validate on the host to catch those).
__device__ bool grouped_tile_row(const GenericArgs& p, std::int64_t t, int& group, std::int64_t& row0,
                                 std::int64_t& row_end) {
  std::int64_t start = 0;
  for (int g = 0; g < p.groups; ++g) {
    std::int64_t end = p.offsets[g];
    end = end < start ? start : (end > p.m ? p.m : end);
    const std::int64_t tiles = (end - start + BM - 1) / BM;
    if (t < tiles) {
      group = g, row0 = start + t * BM, row_end = end;
      return true;
    }
    t -= tiles;
    start = end;
  }
  return false;
}

template <class TAB, class TCD>
__global__ void __launch_bounds__(kThreads) generic_gemm(const GenericArgs p) {
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  dev::start_in_stream_order();
  const TAB* A = static_cast<const TAB*>(p.a);
  const TAB* B = static_cast<const TAB*>(p.b);
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const epi::Scalars s = epi::scalars(p.epi);
  const std::int64_t tiles = p.tiles_n * p.tile_rows;
  for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
    for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const std::int64_t tr = tile / p.tiles_n, col0 = (tile % p.tiles_n) * BN;
      std::int64_t row0 = tr * BM, row_end = p.m;
      int group = 0;
      if (p.groups > 0 && !grouped_tile_row(p, tr, group, row0, row_end)) break;  // tile rows grow with tile
      const std::int64_t b_item = p.groups > 0 ? group : item;  // which B (and per-column bias)
      const TAB* a = A + item * p.stride_a;
      const TAB* b = B + b_item * p.stride_b;
      float acc[4][4] = {};
      for (std::int64_t k0 = 0; k0 < p.k; k0 += BK) {
        // A tile: 64 rows x 16 k. K-major: lanes run along k; M-major: along m.
#pragma unroll
        for (int r = 0; r < BM * BK / kThreads; ++r) {
          const int e = threadIdx.x + r * kThreads;
          const int i = p.a_kmajor ? e / BK : e % BM, kk = p.a_kmajor ? e % BK : e / BM;
          const std::int64_t row = row0 + i, kg = k0 + kk;
          float v = 0.0f;
          if (row < row_end && kg < p.k) v = epi::to_f32(p.a_kmajor ? a[row * p.lda + kg] : a[kg * p.lda + row]);
          As[kk][i] = v;
        }
        // B tile: 16 k x 64 columns. K-major: lanes along k; N-major: along n.
#pragma unroll
        for (int r = 0; r < BN * BK / kThreads; ++r) {
          const int e = threadIdx.x + r * kThreads;
          const int j = p.b_kmajor ? e / BK : e % BN, kk = p.b_kmajor ? e % BK : e / BN;
          const std::int64_t col = col0 + j, kg = k0 + kk;
          float v = 0.0f;
          if (col < p.n && kg < p.k) v = epi::to_f32(p.b_kmajor ? b[col * p.ldb + kg] : b[kg * p.ldb + col]);
          Bs[kk][j] = v;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
          float av[4], bv[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) av[i] = As[kk][ty + 16 * i];
#pragma unroll
          for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
      }
      TCD* D = static_cast<TCD*>(p.d) + item * p.stride_d;
      const TCD* C = static_cast<const TCD*>(p.c) + item * p.stride_c;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const std::int64_t row = row0 + ty + 16 * i;
        if (row >= row_end) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const std::int64_t col = col0 + tx + 16 * j;
          if (col >= p.n) continue;
          const float bias = epi::bias_at<TCD>(p.epi, b_item, row, col);
          D[row * p.ldd + col] = epi::finish<TCD>(p.epi, s, acc[i][j], C + row * p.ldc + col, bias);
        }
      }
    }
  }
}

template <class TAB, class TCD>
void launch_typed(const GenericArgs& args, cudaStream_t stream) {
  const std::int64_t tiles = args.tiles_n * args.tile_rows;
  const dim3 grid(unsigned(std::min<std::int64_t>(tiles, 1 << 20)), unsigned(std::min<std::int64_t>(args.batch, 65535)));
  generic_gemm<TAB, TCD><<<grid, kThreads, 0, stream>>>(args);
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace

epi::Params epilogue_params(const Problem& p);

void launch_generic(const Problem& p, cudaStream_t stream) {
  if (p.grouped() && p.m == 0) return;
  GenericArgs g{};
  g.m = p.m, g.n = p.n, g.k = p.k, g.batch = p.grouped() ? 1 : p.batch;
  g.a = p.a.ptr, g.lda = p.a.ld, g.stride_a = p.a.stride, g.a_kmajor = p.a.k_major;
  g.b = p.b.ptr, g.ldb = p.b.ld, g.stride_b = p.b.stride, g.b_kmajor = p.b.k_major;
  g.c = p.c, g.ldc = p.ldc, g.stride_c = p.stride_c;
  g.d = p.d, g.ldd = p.ldd, g.stride_d = p.stride_d;
  g.groups = p.groups, g.offsets = p.offsets;
  g.tiles_n = (p.n + BN - 1) / BN;
  g.tile_rows = (p.m + BM - 1) / BM + (p.grouped() ? p.groups : 0);
  g.epi = epilogue_params(p);
  switch (p.ab) {
    case DataType::f32: return launch_typed<float, float>(g, stream);
    case DataType::bf16:
      return p.cd == DataType::f32 ? launch_typed<__nv_bfloat16, float>(g, stream)
                                   : launch_typed<__nv_bfloat16, __nv_bfloat16>(g, stream);
    case DataType::f16:
      return p.cd == DataType::f32 ? launch_typed<__half, float>(g, stream) : launch_typed<__half, __half>(g, stream);
    default: throw Unsupported("the generic kernel has no code for this type combination");
  }
}

const void* generic_kernel_for_checks() { return reinterpret_cast<const void*>(&generic_gemm<float, float>); }

}  // namespace gemmlab::detail
