// The named configurations of the library's kernel families: what dispatch chooses and a kernel
// runs. One struct per family; the fields are the family's tunable parameters.
#pragma once

namespace gemmlab::detail {

// The Hopper 16-bit kernel (kernels/tensor/hopper.cuh).
struct Sm90Config {
  int tile_m = 128, tile_n = 256;  // 128x256, 128x192, 192x96, 128x128, 128x64, 64x64 or 64x32
  int cluster = 1;                 // 2: pairs of 128x256 tiles sharing their B tile by TMA multicast
  int group_m = 8;                 // tile rows per raster group of the persistent schedule
  int stream_k = 0;                // TailMode: 0 whole tiles only, 1 when the model gains, 2 always
  // Split-K: K cut into this many slices, each multiplied into FP32 partial sums of its own (a
  // batch item of the kernel), then added in a fixed order by a second kernel (split_k.hpp) that
  // applies the epilogue. For a few tiles with a long K; 1: no split (then stream_k may apply).
  int splits = 1;
};

// The CUDA-core FP32 kernel (kernels/fp32/pipelined.cuh).
struct SimtConfig {
  int tile_m = 128, tile_n = 128, thread_m = 8, stages = 3;
  int group_m = 8, splits = 1, stream_k = 0;
  // B is first copied N-major into the workspace, in rows of a 16-byte multiple (in slices of
  // columns of D when the whole copy does not fit), so that the main loop takes 16-byte copies
  // instead of 4-byte ones. Only for a B the main loop would copy 4 bytes at a time (K-major, or
  // N-major in unaligned rows or with n % 4 != 0) and without split-K; the results are bitwise the same.
  bool copy_b = false;

  bool operator==(const SimtConfig&) const = default;
};

// The Hopper TF32 kernel (kernels/tensor/hopper_tf32.cuh).
struct Tf32Config {
  int cluster = 1;
  int group_m = 8;
  int stream_k = 0;
  int splits = 1;     // split-K, as Sm90Config::splits
  int tile_m = 256;   // the tile's rows: 256 or 128 (by 128 columns)
};

// The skinny kernel (kernels/library/skinny.cuh): D with at most 64 rows or columns.
struct SkinnyConfig {
  int splits = 1;  // CTAs of a cluster that split k (1 to 8)
  // 1: W and X reach the warps through TMA stages filled by a producer warp (skinny_bulk.cuh), one
  // CTA an SM; 0: each lane loads its own fragments (skinny.cuh).
  int bulk = 0;
  // With bulk, 1: a persistent grid (one problem) of one CTA an SM (splits 1) or of `splits` CTAs
  // a tile, in no cluster: each CTA takes an even share of all the (tile, stage) pairs, and a tile
  // whose stages fall to two or more CTAs is added up in a fixed order through the workspace;
  // 0: a CTA a tile (and split, the split's CTAs a cluster).
  int persistent = 0;
};

}  // namespace gemmlab::detail
