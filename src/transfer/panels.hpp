// How the overlapped pipeline cuts C = A B into pieces that can travel while others are computed.
//
// A is cut into row panels, B into column panels, C into the tiles where they meet:
//
//        B_0  B_1  B_2            tile (i, j) = A_i (rows_i x K) * B_j (K x cols_j)
//   A_0 [C00  C01  C02]           Every piece is stored packed on the device (A_i is already
//   A_1 [C10  C11  C12]           contiguous in row-major A; B_j and C_ij are gathered/scattered
//   A_2 [C20  C21  C22]           by cudaMemcpy2DAsync during the copy), so each tile is an
//                                 ordinary packed GEMM any registered kernel can compute.
//
// Tiles run in row-major order; uploads go in the order the tiles first need them:
// A_0, B_0, B_1, ..., A_1, A_2, ... The first kernel can start once A_0 and B_0 are on the
// device, so the first row panel is half as large as the others (a "lead panel"): less to upload
// before the GPU has anything to compute. The column panels stay equal: B_1 must arrive while
// tile (0, 0) computes, and a smaller first tile would leave less time for that.
// Pure arithmetic: tested without a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "core/types.hpp"

namespace gemmlab::transfer {

struct Span {
  std::int64_t begin = 0, size = 0;
  std::int64_t end() const { return begin + size; }
  bool operator==(const Span& o) const { return begin == o.begin && size == o.size; }
};

// `extent` cut into min(panels, extent) consecutive spans covering it exactly, each at least 1.
// Boundaries fall on multiples of `granule` when every panel can still get at least one granule
// (tile-friendly sizes for kernels); with `lead_half` the first span is about half the others.
// Throws Error for panels < 1 or extent < 1.
std::vector<Span> split_panels(std::int64_t extent, int panels, std::int64_t granule = 128, bool lead_half = true);

struct Tile {
  int i = 0, j = 0;         // row panel of A / C, column panel of B / C
  Span rows, cols;          // the part of C it computes
  std::int64_t c_offset = 0;  // element offset of its packed block in the device copy of C
};

struct Upload {
  enum class Operand { a, b } operand;
  int index = 0;  // panel number
};

struct PanelPlan {
  std::vector<Span> rows, cols;  // row panels of A (and C), column panels of B (and C)
  std::vector<Tile> tiles;       // row-major: (0,0), (0,1), ..., (1,0), ...
  std::vector<Upload> uploads;   // A_0, B_0 .. B_last, A_1 .. A_last
  std::int64_t k = 0;            // every tile multiplies over the whole K
  std::vector<Shape> distinct_tile_shapes() const;
};

PanelPlan plan_panels(const Shape& s, int panels);

// Default panel count: about one panel per 4096 rows (columns), between 2 and 8: big enough tiles
// for a fast kernel to run at full speed, small enough that the first upload is short.
int auto_panels(const Shape& s);

}  // namespace gemmlab::transfer
