// The compiled set of pipelined FP32 configurations and their launcher.
#include "kernels/fp32/pipelined.hpp"

#include "kernels/common.hpp"

#include <fmt/format.h>

#include "kernels/fp32/pipelined.cuh"

// The dispatcher below calls templated lambdas ([]<class Cfg>() {...}); nvcc warns that Cfg does
// not appear in their parameter list, which is the point.
#pragma nv_diag_suppress 445

namespace gemmlab::fp32 {

__global__ void splitk_reduce(int M, int N, int splits, float alpha, float beta, const float* __restrict__ partial,
                              float* __restrict__ C) {
  const std::size_t total = std::size_t(M) * N;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
       i += std::size_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += partial[s * total + i];
    C[i] = dev::epilogue(sum, alpha, beta, &C[i]);
  }
}

namespace {

constexpr int kBK = 16;

// Calls f.template operator()<Cfg>() for the compiled configuration matching (c, b_vec).
template <class F>
auto dispatch(const PipelinedChoice& c, bool b_vec, F&& f) {
  auto by_stages = [&](auto wm, auto wn, auto tm) {
    constexpr int WM = decltype(wm)::value, WN = decltype(wn)::value, TM = decltype(tm)::value;
    auto by_vec = [&](auto st) {
      constexpr int ST = decltype(st)::value;
      return b_vec ? f.template operator()<PipelinedConfig<WM, WN, kBK, ST, true, TM>>()
                   : f.template operator()<PipelinedConfig<WM, WN, kBK, ST, false, TM>>();
    };
    switch (c.stages) {
      case 2: return by_vec(std::integral_constant<int, 2>{});
      case 3: return by_vec(std::integral_constant<int, 3>{});
      default: return by_vec(std::integral_constant<int, 4>{});
    }
  };
  using I = std::integral_constant<int, 1>;
  using II = std::integral_constant<int, 2>;
  using IV = std::integral_constant<int, 4>;
  using VIII = std::integral_constant<int, 8>;
  using T8 = std::integral_constant<int, 8>;
  using T16 = std::integral_constant<int, 16>;
  if (c.thread_m == 16) {  // warp tiles of 64 x 64
    if (c.tile_m == 256) return by_stages(IV{}, II{}, T16{});
    if (c.tile_n == 256) return by_stages(II{}, IV{}, T16{});
    return by_stages(II{}, II{}, T16{});
  }
  if (c.tile_m == 128 && c.tile_n == 128) return by_stages(IV{}, II{}, T8{});
  if (c.tile_m == 256 && c.tile_n == 128) return by_stages(VIII{}, II{}, T8{});
  if (c.tile_m == 128 && c.tile_n == 256) return by_stages(IV{}, IV{}, T8{});
  if (c.tile_m == 128 && c.tile_n == 64) return by_stages(IV{}, I{}, T8{});
  if (c.tile_m == 64 && c.tile_n == 128) return by_stages(II{}, II{}, T8{});
  return by_stages(II{}, I{}, T8{});
}


}  // namespace

std::string to_string(const PipelinedChoice& c) {
  return fmt::format("{}x{}x{} thread {}x8 stages={} group={} splits={} stream_k={} early_tail={}", c.tile_m, c.tile_n,
                     kBK, c.thread_m, c.stages, c.group_m, c.splits, c.stream_k, int(c.early_tail));
}

int pipelined_threads(const PipelinedChoice& c) {
  return dispatch(c, true, []<class Cfg>() { return Cfg::kThreads; });
}

std::size_t pipelined_smem_bytes(const PipelinedChoice& c) {
  return dispatch(c, true, []<class Cfg>() { return Cfg::kSmemBytes; });
}

namespace {

std::int64_t tile_count(const PipelinedChoice& c, const Shape& s) {
  return ((s.m + c.tile_m - 1) / c.tile_m) * ((s.n + c.tile_n - 1) / c.tile_n);
}

// Blocks of this configuration resident on the GPU at once: the occupancy calculator's per-SM count
// (registers, shared memory) times the SMs. Without a GPU, the count __launch_bounds__ plans for.
int resident_blocks(const PipelinedChoice& c) {
  return dispatch(c, true, []<class Cfg>() {
    static const int per_sm = [] {
      int n = 0;
      if (cudaFuncSetAttribute(pipelined_gemm<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(Cfg::kSmemBytes)) != cudaSuccess ||
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, pipelined_gemm<Cfg>, Cfg::kThreads, Cfg::kSmemBytes) !=
              cudaSuccess ||
          n < 1) {
        (void)cudaGetLastError();
        return Cfg::kMinBlocks;
      }
      return n;
    }();
    return per_sm * current_sm_count();
  });
}

}  // namespace

StreamKTail pipelined_tail(const PipelinedChoice& c, const Shape& s) {
  if (c.splits > 1 || c.stream_k == 0 || !dispatch(c, true, []<class Cfg>() { return Cfg::kStreamK; })) return {};
  return plan_stream_k_tail(tile_count(c, s), resident_blocks(c), (s.k + kBK - 1) / kBK, TailMode(c.stream_k));
}

PipelinedMainLaunch pipelined_main_launch(const PipelinedChoice& c, const Shape& s, bool b_vec) {
  const StreamKTail tail = pipelined_tail(c, s);
  const std::int64_t whole = tile_count(c, s) - tail.tiles;
  return dispatch(c, b_vec, [&]<class Cfg>() {
    if constexpr (Cfg::kStreamK) {
      if (tail.tiles > whole)
        return PipelinedMainLaunch{reinterpret_cast<const void*>(&pipelined_tail_gemm<Cfg>), dim3(unsigned(tail.blocks))};
    }
    return PipelinedMainLaunch{reinterpret_cast<const void*>(&pipelined_gemm<Cfg>),
                               dim3(unsigned(whole), 1, unsigned(c.splits))};
  });
}

std::size_t pipelined_workspace_bytes(const PipelinedChoice& c, const Shape& s) {
  if (c.splits > 1) return std::size_t(c.splits) * std::size_t(s.m) * std::size_t(s.n) * sizeof(float);
  const StreamKTail tail = pipelined_tail(c, s);
  return tail.tiles > 0 ? std::size_t(tail.slots()) * c.tile_m * c.tile_n * sizeof(float) : 0;
}

bool pipelined_compiled(const PipelinedChoice& c) {
  if (c.thread_m == 16)
    return ((c.tile_m == 128 && (c.tile_n == 128 || c.tile_n == 256)) || (c.tile_m == 256 && c.tile_n == 128)) &&
           c.stages >= 2 && c.stages <= 4;
  if (c.thread_m != 8) return false;
  const bool tile_ok = (c.tile_m == 64 || c.tile_m == 128) && (c.tile_n == 64 || c.tile_n == 128);
  const bool wide_ok = (c.tile_m == 256 && c.tile_n == 128) || (c.tile_m == 128 && c.tile_n == 256);
  return (tile_ok || wide_ok) && c.stages >= 2 && c.stages <= 4;
}

std::optional<std::string> pipelined_reject(const PipelinedChoice& c, const Shape& s, int max_grid_x, int max_grid_z) {
  if (!pipelined_compiled(c))
    return fmt::format("tile {}x{} with {}-row thread tiles is not compiled (8 rows: 64/128 x 64/128, 256x128, "
                       "128x256; 16 rows: 128x128, 128x256, 256x128)", c.tile_m, c.tile_n, c.thread_m);
  const std::int64_t tiles = tile_count(c, s);
  if (tiles > max_grid_x) return fmt::format("{} tiles exceed the grid limit of {}", tiles, max_grid_x);
  if (c.splits > max_grid_z) return fmt::format("{} splits exceed the grid limit of {}", c.splits, max_grid_z);
  return std::nullopt;
}

double pipelined_global_loads(const PipelinedChoice& c, const Shape& s) {
  const double tm = double((s.m + c.tile_m - 1) / c.tile_m), tn = double((s.n + c.tile_n - 1) / c.tile_n);
  return tm * tn * double(s.k) * (c.tile_m + c.tile_n);
}

void launch_pipelined(const PipelinedChoice& c, const Shape& s, float alpha, const float* a, const float* b, float beta,
                      float* cmat, void* workspace, cudaStream_t stream) {
  const int M = int(s.m), N = int(s.n), K = int(s.k);
  const int splits = std::max(1, c.splits);
  // Each split takes a whole number of BK-deep tiles.
  const int k_tiles = (K + kBK - 1) / kBK;
  const int k_per_split = ((k_tiles + splits - 1) / splits) * kBK;
  PipelinedArgs args{M, N, K, alpha, beta, a, b, cmat, k_per_split,
                     splits > 1 ? static_cast<float*>(workspace) : nullptr, c.group_m,
                     N % 4 == 0 && aligned16(cmat) && aligned16(workspace)};
  if (splits > 1 && !workspace) throw Error("split-K needs a workspace");
  args.tail = pipelined_tail(c, s);
  if (args.tail.tiles > 0) {
    if (!workspace || !aligned16(workspace)) throw Error("the stream-K tail needs a 16-byte aligned workspace");
    args.tail_partials = static_cast<float*>(workspace);
    args.tail_arrivals = stream_k_flags(stream);
  }
  const bool b_vec = N % 4 == 0 && aligned16(b);
  dispatch(c, b_vec, [&]<class Cfg>() {
    launch_pipelined<Cfg>(args, unsigned(tile_count(c, s) - args.tail.tiles), splits, c.early_tail, stream);
    return 0;
  });
  if (splits > 1) {
    const int threads = 256;
    const int blocks = int(std::min<std::int64_t>((s.m * s.n + threads - 1) / threads, 132 * 16));
    splitk_reduce<<<blocks, threads, 0, stream>>>(M, N, splits, alpha, beta, args.partial, cmat);
    GEMMLAB_CHECK_LAUNCH();
  }
}

}  // namespace gemmlab::fp32
