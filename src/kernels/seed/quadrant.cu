// Seed ladder, step 7: 4, 8 or 16 outputs per thread in the quadrant layout.
//
// Seed 004. C is cut into equal parts: 2 x 2 for 4 outputs ("four quadrants"), 2 row halves x 4
// column quarters for 8 outputs, 4 x 4 for 16. The grid covers one part; block (bx, by) computes
// the block-sized tile at the same place in every part, and thread (ty, tx) the element at the
// same place in each of them. For every strip of K a block loads one A tile per row part and one
// B tile per column part and multiplies each A tile by each B tile: with R row parts and P column
// parts a thread does R * P multiply-adds per R + P values read from shared memory, and a strip
// costs (R + P) block^2 global loads for 2 R P block^3 flops: CGMA = 2 R P / (R + P) x block,
// that is 2 block (4 outputs), 8/3 block (8 outputs), 4 block (16 outputs). Because a thread's outputs lie in different parts of C, the 32
// threads of a warp still touch 32 consecutive elements in every load and store (coalesced).
//
// Seed 004's printed 16-output kernel gives A parts 2 and 3 and B parts 2 and 3 the offsets of
// part 1 and stores 8 of its 16 results in swapped places; its kernels have no guards, so its 8-
// and 16-output runs at 1600 with 32x32 blocks (1600 / 4 = 400 is not a multiple of 32) write
// across row ends and past C (docs/seed-errata.md). Here the parts are ceil(M / R) x ceil(N / P),
// the last one shorter, and every load and store is guarded: any M, N, K works.
#include "kernels/common.hpp"
#include "kernels/registry.hpp"
#include "kernels/seed/seed_common.cuh"

namespace gemmlab {

namespace {

// R row parts x P column parts of C; each thread computes R * P outputs.
template <int BS, int R, int P>
__global__ void __launch_bounds__(BS * BS)
    quadrant_gemm(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                  float beta, float* __restrict__ C) {
  __shared__ float As[R][BS][BS];  // one A tile per row part
  __shared__ float Bs[P][BS][BS];  // one B tile per column part
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int part_rows = (M + R - 1) / R, part_cols = (N + P - 1) / P;
  const int i = blockIdx.y * BS + ty;  // row within a part
  const int j = blockIdx.x * BS + tx;  // column within a part

  // Row i of part p is row p * part_rows + i of C; it exists if it is inside the part (the grid is
  // rounded up to whole blocks) and inside C (the last part may be shorter).
  int row[R], col[P];
  bool row_ok[R], col_ok[P];
#pragma unroll
  for (int p = 0; p < R; ++p) {
    row[p] = p * part_rows + i;
    row_ok[p] = i < part_rows && row[p] < M;
  }
#pragma unroll
  for (int q = 0; q < P; ++q) {
    col[q] = q * part_cols + j;
    col_ok[q] = j < part_cols && col[q] < N;
  }

  float acc[R][P] = {};
  for (int k0 = 0; k0 < K; k0 += BS) {
    const bool a_k_ok = k0 + tx < K, b_k_ok = k0 + ty < K;
#pragma unroll
    for (int p = 0; p < R; ++p) As[p][ty][tx] = (row_ok[p] && a_k_ok) ? A[row[p] * K + k0 + tx] : 0.0f;
#pragma unroll
    for (int q = 0; q < P; ++q) Bs[q][ty][tx] = (b_k_ok && col_ok[q]) ? B[(k0 + ty) * N + col[q]] : 0.0f;
    __syncthreads();  // all tiles of this strip are complete
#pragma unroll
    for (int k = 0; k < BS; ++k) {
      float a[R], b[P];
#pragma unroll
      for (int p = 0; p < R; ++p) a[p] = As[p][ty][k];
#pragma unroll
      for (int q = 0; q < P; ++q) b[q] = Bs[q][k][tx];
#pragma unroll
      for (int p = 0; p < R; ++p)
#pragma unroll
        for (int q = 0; q < P; ++q) acc[p][q] += a[p] * b[q];
    }
    __syncthreads();  // everyone is done reading before the next strip overwrites the tiles
  }
#pragma unroll
  for (int p = 0; p < R; ++p)
#pragma unroll
    for (int q = 0; q < P; ++q)
      if (row_ok[p] && col_ok[q]) seed::store_output(C, row[p] * N + col[q], acc[p][q], alpha, beta);
}

// Row and column parts for each number of outputs, as seed 004 lays them out.
int row_parts(int outputs) { return outputs == 16 ? 4 : 2; }
int col_parts(int outputs) { return outputs == 4 ? 2 : 4; }

seed::GemmFunction function_for(int block, int outputs) {
  if (block == 16) {
    switch (outputs) {
      case 4: return &quadrant_gemm<16, 2, 2>;
      case 8: return &quadrant_gemm<16, 2, 4>;
      case 16: return &quadrant_gemm<16, 4, 4>;
    }
  } else if (block == 32) {
    switch (outputs) {
      case 4: return &quadrant_gemm<32, 2, 2>;
      case 8: return &quadrant_gemm<32, 2, 4>;
      case 16: return &quadrant_gemm<32, 4, 4>;
    }
  }
  throw Error(fmt::format("seed.quadrant: no instance for block {} with {} outputs", block, outputs));
}

// The grid covers one part of C: ceil(part size / block) blocks in each direction.
std::int64_t grid_x(const Shape& s, const Params& p) {
  return ceil_div(ceil_div(s.n, col_parts(p.at("outputs"))), p.at("block"));
}
std::int64_t grid_y(const Shape& s, const Params& p) {
  return ceil_div(ceil_div(s.m, row_parts(p.at("outputs"))), p.at("block"));
}

class Quadrant final : public KernelBase {
 public:
  Quadrant() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo& dev) const override {
    const int b = p.at("block"), o = p.at("outputs");
    const std::size_t smem = sizeof(float) * std::size_t(row_parts(o) + col_parts(o)) * b * b;
    if (auto why = check_block_fits(dev, std::int64_t(b) * b, smem)) return why;
    return check_grid_fits(dev, grid_x(s, p), grid_y(s, p));
  }

  TrafficModel traffic(const Shape& s, const Params& p) const override {
    TrafficModel t;
    t.flops = s.flops();
    // A row of A is loaded by every block of the grid row holding it (grid_x of them); a column of B
    // by every block of its grid column. Square N divisible by parts x block: CGMA 2b, 8b/3, 4b.
    t.global_loads = double(s.m) * s.k * grid_x(s, p) + double(s.k) * s.n * grid_y(s, p);
    t.global_stores = double(s.m) * s.n;
    return t;
  }

  LaunchPlan plan(const Shape& s, const Params& p) const override {
    const int b = p.at("block");
    return {reinterpret_cast<const void*>(function_for(b, p.at("outputs"))),
            dim3(unsigned(grid_x(s, p)), unsigned(grid_y(s, p))), dim3(b, b), 0};
  }

  void launch(const GemmArgs& g, const Params& p, const ExecContext& ctx) const override {
    seed::launch_gemm(function_for(p.at("block"), p.at("outputs")), plan(g.shape, p), g, ctx);
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = "seed.quadrant";
    i.family = "seed";
    i.step = 7;
    i.title = "4, 8 or 16 outputs per thread in different parts of C (quadrant layout)";
    i.origin = "seed 004 'Zwiększenie nakładu pracy na wątek' (4 outputs) and 'Dodatkowe eksperymenty' (8, 16)";
    i.summary =
        "C is cut into 2x2 (4 outputs), 2x4 (8) or 4x4 (16) parts; a thread computes the element at the same place "
        "in every part, from one A tile per row part and one B tile per column part in shared memory. More outputs "
        "per thread means more multiply-adds per shared-memory read and per global load (CGMA = 2, 8/3 and 4 "
        "times the block), and because a thread's outputs are a part apart, not side by side, every warp still "
        "loads and stores 32 consecutive elements.";
    i.params = {{"block", "thread block and tiles are block x block", {16, 32}, 16},
                {"outputs", "outputs per thread: 4 (2x2 parts), 8 (2 row x 4 column parts), 16 (4x4 parts)", {4, 8, 16}, 4}};
    i.constraints = "any M, N, K >= 1 (parts of ceil(M/rows) x ceil(N/columns), every load and store guarded)";
    return i;
  }
};

}  // namespace

void register_seed_quadrant(Registry& r) { r.add(std::make_unique<Quadrant>()); }
GEMMLAB_REGISTER_KERNELS(register_seed_quadrant);

}  // namespace gemmlab
