// The deliberately broken kernels of broken_kernels.hpp: each reproduces one class of error from
// the seeds' printed code, as faithfully as keeps the test process safe (no access may fault the
// GPU: a fault would end every test that follows). Reads and writes outside the matrices that
// the seeds' code makes are clamped or guarded here; the wrong *values* it produces are kept.
#include "harness/broken_kernels.hpp"

#include <functional>
#include <string>

#include "kernels/common.hpp"
#include "kernels/seed/seed_common.cuh"

namespace gemmlab::broken {

namespace {

constexpr int kBS = 16;  // block size of every broken kernel that does not take one

// ---- seed 000 methods 1/2: the block offset is missing from the operand indices -----------------
__global__ void index_ignores_block_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                         const float* __restrict__ B, float beta, float* __restrict__ C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  // As printed: ty and tx where row and col belong (in bounds as long as M, N >= the block).
  for (int k = 0; k < K; ++k) acc += A[threadIdx.y * K + k] * B[k * N + threadIdx.x];
  seed::store_output(C, row * N + col, acc, alpha, beta);
}

// ---- seed 000 method 6b: four outputs, one accumulator ----------------------------------------
__global__ void one_accumulator_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C) {
  const int row = blockIdx.y * (2 * kBS) + threadIdx.y;  // rows row, row + kBS
  const int col = blockIdx.x * (2 * kBS) + threadIdx.x;  // columns col, col + kBS
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = 0; k < K; ++k) {
    const float a0 = row < M ? A[row * K + k] : 0.0f, a1 = row + kBS < M ? A[(row + kBS) * K + k] : 0.0f;
    const float b0 = col < N ? B[k * N + col] : 0.0f, b1 = col + kBS < N ? B[k * N + col + kBS] : 0.0f;
    // As printed: every loop adds into C_local; C_local2..4 stay 0.
    acc[0] += a0 * b0;
    acc[0] += a0 * b1;
    acc[0] += a1 * b0;
    acc[0] += a1 * b1;
  }
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c)
      if (row + r * kBS < M && col + c * kBS < N)
        seed::store_output(C, (row + r * kBS) * N + col + c * kBS, acc[2 * r + c], alpha, beta);
}

// ---- seed 001 shared kernel: no barrier after the compute loop ----------------------------------
// Warp 0 of each block waits ~10 us after the first barrier; the other warps meanwhile finish the
// strip, load the next one over the shared tiles and wait at the next barrier. Warp 0 then
// multiplies the wrong strip. Without the delay the race is lost only sometimes; with it, always
// (except in the last strip, after which nobody overwrites anything).
constexpr long long kSkewCycles = 20000;

__global__ void missing_barrier_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[kBS][kBS];
  __shared__ float Bs[kBS][kBS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kBS + ty, col = blockIdx.x * kBS + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kBS) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    if (ty * kBS + tx < 32) {  // warp 0 lags behind
      const long long start = clock64();
      while (clock64() - start < kSkewCycles) {
      }
    }
    for (int k = 0; k < kBS; ++k) acc += As[ty][k] * Bs[k][tx];
    // As printed in seed 001: no __syncthreads() here.
  }
  if (row < M && col < N) seed::store_output(C, row * N + col, acc, alpha, beta);
}

// ---- seed 000 method 6a: the "double buffer" refetches the current strip -----------------------
// The printed kernel, for a square matrix of side N divisible by 2 * kBS (it ignores alpha, beta).
__global__ void stale_double_buffer_gemm(int, int N, int, float, const float* __restrict__ A,
                                         const float* __restrict__ B, float, float* __restrict__ C) {
  const int bx = blockIdx.x * 2, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  const int aBegin = N * kBS * by, aEnd = aBegin + N - 1, aStep = kBS;
  const int bBegin = kBS * bx, bStep = kBS * N;
  float c1 = 0.0f, c2 = 0.0f;
  __shared__ float As[kBS][kBS];
  __shared__ float Bs[kBS][2 * kBS];
  __shared__ float A_shared[kBS][kBS];
  __shared__ float B_shared[kBS][2 * kBS];
  A_shared[ty][tx] = A[aBegin + N * ty + tx];
  B_shared[ty][tx] = B[bBegin + N * ty + tx];
  B_shared[ty][tx + kBS] = B[bBegin + N * ty + tx + kBS];
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    As[ty][tx] = A_shared[ty][tx];
    Bs[ty][tx] = B_shared[ty][tx];
    Bs[ty][tx + kBS] = B_shared[ty][tx + kBS];
    __syncthreads();
    // As printed: `a` and `b`, the strip just copied, where the next one (a + aStep) belongs.
    A_shared[ty][tx] = A[a + N * ty + tx];
    B_shared[ty][tx] = B[b + N * ty + tx];
    B_shared[ty][tx + kBS] = B[b + N * ty + tx + kBS];
    for (int k = 0; k < kBS; ++k) c1 += As[ty][k] * Bs[k][tx];
    for (int k = 0; k < kBS; ++k) c2 += As[ty][k] * Bs[k][tx + kBS];
    __syncthreads();
  }
  const int c = N * kBS * by + kBS * bx;
  C[c + N * ty + tx] = c1;
  C[c + N * ty + tx + kBS] = c2;
}

// ---- seed 003 versions 4/5: unguarded loads and prefetch ----------------------------------------
// Seed 003's version 4 with its `a < aEnd` check, for any M, N, K. Index arithmetic as printed;
// each address is clamped into its matrix (the seed's is not) so that the test cannot fault.
__device__ __forceinline__ float load_clamped(const float* p, long long index, long long size) {
  return p[index < size ? index : size - 1];
}

__global__ void unguarded_prefetch_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                        const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[kBS][kBS];
  __shared__ float Bs[kBS][kBS];
  const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  const long long a_size = (long long)M * K, b_size = (long long)K * N;
  const long long aBegin = (long long)K * kBS * by, aEnd = aBegin + K - 1, aStep = kBS;
  const long long bBegin = kBS * bx, bStep = (long long)kBS * N;
  float fetchA = load_clamped(A, aBegin + (long long)K * ty + tx, a_size);
  float fetchB = load_clamped(B, bBegin + (long long)N * ty + tx, b_size);
  float acc = 0.0f;
  for (long long a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    As[ty][tx] = fetchA;
    Bs[ty][tx] = fetchB;
    __syncthreads();
    if (a < aEnd) {  // as printed: still true for the last strip
      fetchA = load_clamped(A, a + aStep + (long long)K * ty + tx, a_size);
      fetchB = load_clamped(B, b + bStep + (long long)N * ty + tx, b_size);
    }
    for (int k = 0; k < kBS; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  const int row = by * kBS + ty, col = bx * kBS + tx;
  if (row < M && col < N) seed::store_output(C, row * N + col, acc, alpha, beta);  // guarded: no stray writes
}

// ---- seed 004, 16 outputs: wrong part offsets and swapped stores ---------------------------------
// The printed kernel, for a square matrix of side `width` divisible by 4 * kBS (ignores alpha, beta).
__global__ void wrong_quadrant_gemm(int, int width, int, float, const float* __restrict__ A,
                                    const float* __restrict__ B, float, float* __restrict__ C) {
  const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  __shared__ float shared_A[4][kBS][kBS];
  __shared__ float shared_B[4][kBS][kBS];
  float Csub[16] = {};
  const int row_start_A[4] = {by * kBS * width, by * kBS * width + (width * width / 4),
                              by * kBS * width + (width * width / 4), by * kBS * width + (width * width / 4)};
  const int col_start_B[4] = {bx * kBS, bx * kBS + (width / 4), bx * kBS + (width / 4), bx * kBS + (width / 4)};
  for (int k = 0; k < width; k += kBS) {
    for (int i = 0; i < 4; ++i) {
      shared_A[i][ty][tx] = A[row_start_A[i] + k + ty * width + tx];
      shared_B[i][ty][tx] = B[k * width + col_start_B[i] + ty * width + tx];
    }
    __syncthreads();
    for (int i = 0; i < kBS; ++i)
      for (int p = 0; p < 4; ++p)
        for (int q = 0; q < 4; ++q) Csub[4 * p + q] += shared_A[p][ty][i] * shared_B[q][i][tx];
    __syncthreads();
  }
  const int c = width * kBS * by + kBS * bx, w4 = width / 4, t = width * ty + tx;
  C[c + t] = Csub[0];
  C[c + w4 + t] = Csub[1];
  C[c + w4 * width + t] = Csub[2];
  C[c + w4 * width + w4 + t] = Csub[3];
  C[c + w4 * 2 + t] = Csub[4];
  C[c + w4 * 3 + t] = Csub[5];
  C[c + w4 * width + w4 * 2 + t] = Csub[6];
  C[c + w4 * width + w4 * 3 + t] = Csub[7];
  C[c + w4 * width * 2 + t] = Csub[8];
  C[c + w4 * width * 2 + w4 + t] = Csub[9];
  C[c + w4 * width * 3 + t] = Csub[10];
  C[c + w4 * width * 3 + w4 + t] = Csub[11];
  C[c + w4 * width * 2 + w4 * 2 + t] = Csub[12];
  C[c + w4 * width * 2 + w4 * 3 + t] = Csub[13];
  C[c + w4 * width * 3 + w4 * 2 + t] = Csub[14];
  C[c + w4 * width * 3 + w4 * 3 + t] = Csub[15];
}

// ---- a correct guarded kernel, for the launch-geometry error (grid rounded down) -----------------
__global__ void guarded_naive_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                   const float* __restrict__ B, float beta, float* __restrict__ C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  seed::store_output(C, row * N + col, acc, alpha, beta);
}

// ---- seed 002 version 2: width / TILE_WIDTH strips ------------------------------------------------
__global__ void k_tail_dropped_gemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                    const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float s_a[kBS][kBS];
  __shared__ float s_b[kBS][kBS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kBS + ty, col = blockIdx.x * kBS + tx;
  float result = 0.0f;
  for (int p = 0; p < K / kBS; ++p) {  // as printed: rounded down
    s_a[ty][tx] = row < M ? A[row * K + p * kBS + tx] : 0.0f;
    s_b[ty][tx] = col < N ? B[(p * kBS + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kBS; ++k) result += s_a[ty][k] * s_b[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) seed::store_output(C, row * N + col, result, alpha, beta);
}

// ---- seed 003 version 1: blockDim.y used as the column stride ------------------------------------
// The printed kernel (one block, square WIDTH divisible by both block sides; ignores alpha, beta).
__global__ void column_offset_gemm(int, int WIDTH, int, float, const float* __restrict__ Ad,
                                   const float* __restrict__ Bd, float, float* __restrict__ Cd) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int i = 0; i < WIDTH / int(blockDim.y); i++) {
    for (int j = 0; j < WIDTH / int(blockDim.x); j++) {
      float C_local = 0.0f;
      for (int k = 0; k < WIDTH; ++k)
        C_local += Ad[i * WIDTH * blockDim.y + ty * WIDTH + k] * Bd[j * blockDim.y + k * WIDTH + tx];
      Cd[i * WIDTH * blockDim.y + j * blockDim.y + ty * WIDTH + tx] = C_local;
    }
  }
}

// ---- the Kernel wrapper ------------------------------------------------------------------------

using Geometry = std::function<std::pair<dim3, dim3>(const Shape&)>;  // grid, block

class BrokenKernel final : public KernelBase {
 public:
  BrokenKernel(std::string id, std::string origin, seed::GemmFunction fn, Geometry geometry)
      : KernelBase(describe(std::move(id), std::move(origin))), fn_(fn), geometry_(std::move(geometry)) {}

  std::optional<std::string> reject(const Shape&, const Params&, const DeviceInfo&) const override {
    return std::nullopt;  // the tests choose shapes the broken code can address safely
  }
  TrafficModel traffic(const Shape& s, const Params&) const override {
    TrafficModel t;
    t.flops = s.flops();
    t.global_loads = 2.0 * double(s.m) * s.n * s.k;
    t.global_stores = double(s.m) * s.n;
    return t;
  }
  LaunchPlan plan(const Shape& s, const Params&) const override {
    const auto [grid, block] = geometry_(s);
    return {reinterpret_cast<const void*>(fn_), grid, block, 0};
  }
  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    seed::launch_gemm(fn_, plan(g.shape, p), g, ctx);
  }

 private:
  static KernelInfo describe(std::string id, std::string origin) {
    KernelInfo i;
    i.id = "broken." + id;
    i.family = "broken";
    i.title = "deliberately broken (tests only)";
    i.origin = std::move(origin);
    i.summary = "Reproduces an error of the seeds' printed code so that the tests can show the verifier catches it.";
    i.constraints = "test shapes only";
    return i;
  }
  seed::GemmFunction fn_;
  Geometry geometry_;
};

unsigned blocks(std::int64_t n, std::int64_t per_block) { return unsigned(ceil_div(n, per_block)); }

}  // namespace

std::unique_ptr<Kernel> index_ignores_block() {
  return std::make_unique<BrokenKernel>("index_ignores_block", "seed 000 methods 1 and 2", &index_ignores_block_gemm,
                                        [](const Shape& s) {
                                          return std::pair{dim3(blocks(s.n, kBS), blocks(s.m, kBS)), dim3(kBS, kBS)};
                                        });
}

std::unique_ptr<Kernel> one_accumulator_for_four_outputs() {
  return std::make_unique<BrokenKernel>(
      "one_accumulator", "seed 000 method 6b", &one_accumulator_gemm, [](const Shape& s) {
        return std::pair{dim3(blocks(s.n, 2 * kBS), blocks(s.m, 2 * kBS)), dim3(kBS, kBS)};
      });
}

std::unique_ptr<Kernel> missing_barrier() {
  return std::make_unique<BrokenKernel>("missing_barrier", "seed 001 dgemm_gpu_shared", &missing_barrier_gemm,
                                        [](const Shape& s) {
                                          return std::pair{dim3(blocks(s.n, kBS), blocks(s.m, kBS)), dim3(kBS, kBS)};
                                        });
}

std::unique_ptr<Kernel> stale_double_buffer() {
  return std::make_unique<BrokenKernel>("stale_double_buffer", "seed 000 method 6a", &stale_double_buffer_gemm,
                                        [](const Shape& s) {
                                          return std::pair{dim3(unsigned(s.n / (2 * kBS)), unsigned(s.n / kBS)),
                                                           dim3(kBS, kBS)};
                                        });
}

std::unique_ptr<Kernel> unguarded_prefetch() {
  return std::make_unique<BrokenKernel>("unguarded_prefetch", "seed 003 versions 4 and 5", &unguarded_prefetch_gemm,
                                        [](const Shape& s) {
                                          return std::pair{dim3(blocks(s.n, kBS), blocks(s.m, kBS)), dim3(kBS, kBS)};
                                        });
}

std::unique_ptr<Kernel> wrong_quadrant_offsets() {
  return std::make_unique<BrokenKernel>("wrong_quadrant_offsets", "seed 004, 16 outputs per thread",
                                        &wrong_quadrant_gemm, [](const Shape& s) {
                                          const unsigned g = unsigned(s.n / (4 * kBS));
                                          return std::pair{dim3(g, g), dim3(kBS, kBS)};
                                        });
}

std::unique_ptr<Kernel> grid_rounded_down() {
  return std::make_unique<BrokenKernel>("grid_rounded_down", "seeds 000 and 003: GRID_SIZE = MATRIX_SIZE / BLOCK_SIZE",
                                        &guarded_naive_gemm, [](const Shape& s) {
                                          return std::pair{dim3(unsigned(s.n / kBS), unsigned(s.m / kBS)),
                                                           dim3(kBS, kBS)};
                                        });
}

std::unique_ptr<Kernel> k_tail_dropped() {
  return std::make_unique<BrokenKernel>("k_tail_dropped", "seed 002 version 2", &k_tail_dropped_gemm,
                                        [](const Shape& s) {
                                          return std::pair{dim3(blocks(s.n, kBS), blocks(s.m, kBS)), dim3(kBS, kBS)};
                                        });
}

std::unique_ptr<Kernel> column_offset_uses_block_dim_y(int block_x, int block_y) {
  return std::make_unique<BrokenKernel>(
      "column_offset_uses_block_dim_y", "seed 003 version 1", &column_offset_gemm,
      [block_x, block_y](const Shape&) { return std::pair{dim3(1, 1), dim3(unsigned(block_x), unsigned(block_y))}; });
}

}  // namespace gemmlab::broken
