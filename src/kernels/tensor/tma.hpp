// TMA descriptors (CUtensorMap) for row-major matrices, built on the host.
//
// cuTensorMapEncodeTiled is a driver-API function. gemmlab does not link libcuda (test binaries
// must start on machines without a driver); the function is looked up at run time through the
// runtime's cudaGetDriverEntryPointByVersion instead.
#pragma once

#include <cstdint>
#include <mutex>

#include <cuda.h>

#include "core/types.hpp"

namespace gemmlab::tc {

// The box's shared-memory layout: rows as they are, or 16-byte chunks swizzled within rows of 128
// bytes (b128) or 64 (b64, for boxes whose rows are 64 bytes).
enum class Swizzle { none, b128, b64 };

// A 2-D tensor map over a row-major rows x cols matrix of `t` at `base`, copied in boxes of
// box_rows x box_cols. Throws Error (with the driver's code) if the encoding is rejected.
CUtensorMap make_tensor_map_2d(const void* base, DType t, std::int64_t rows, std::int64_t cols, int box_rows,
                               int box_cols, Swizzle swizzle);

// How much the L2 fetches from DRAM for a box row that misses: 256 bytes (the default; a tile
// kernel reads the neighbouring bytes soon after, and they come in the same fetch), or 128. An
// operand streamed once in boxes of 128-byte rows (the TMA-fed skinny form's W, stored along
// either side) reads faster with 128: with 256 the L2 served a big-major W's TMA a quarter more
// sectors than W holds and passed half as many again between its two partitions, and the kernel
// drew less of the DRAM's bandwidth (docs/shapes.md, "L2 promotion for a streamed W").
enum class L2Promotion { b128, b256 };

// A 3-D tensor map over `depth` matrices of `rows` x `cols` (row-major, `ld` elements between rows,
// `stride` between matrices) of `t` at `base`, copied in boxes of box_rows x box_cols of one
// matrix. depth = 1 describes a single matrix (stride unused). TMA needs base 16-byte aligned,
// ld and stride multiples of 16 bytes, and stride >= ld * rows (the matrices do not interleave);
// tma_layout_ok checks that first. Throws Error if the encoding is rejected.
CUtensorMap make_tensor_map_3d(const void* base, DType t, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                               std::int64_t depth, std::int64_t stride, int box_rows, int box_cols, Swizzle swizzle,
                               L2Promotion promotion = L2Promotion::b256);
bool tma_layout_ok(const void* base, std::size_t element_bytes, std::int64_t rows, std::int64_t ld, std::int64_t depth,
                   std::int64_t stride);

// The maps of one GEMM launch, and what they were built for: A is M x K and B is K x b_cols, packed
// row-major; C is M x N (b_cols is N, or N rounded up when the operands were copied into padded
// buffers); tma_store says whether C has a map at all.
struct TmaMaps {
  CUtensorMap a, b, c;
};
struct TmaKey {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  Shape shape;
  std::int64_t b_cols = 0;
  bool tma_store = false;
  bool operator==(const TmaKey&) const = default;
};

// Building tensor maps costs microseconds, so each kernel keeps the last set it built (a benchmark
// launches the same GEMM many times). build(key) makes the maps for a new key.
class TmaMapCache {
 public:
  template <class Build>
  TmaMaps get(const TmaKey& key, Build&& build) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!valid_ || !(key == key_)) {
      maps_ = build(key);
      key_ = key;
      valid_ = true;
    }
    return maps_;
  }

 private:
  std::mutex mu_;
  bool valid_ = false;
  TmaKey key_;
  TmaMaps maps_{};
};

}  // namespace gemmlab::tc
