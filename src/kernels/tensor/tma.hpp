// TMA descriptors (CUtensorMap) for row-major matrices, built on the host.
//
// cuTensorMapEncodeTiled is a driver-API function. gemmlab does not link libcuda (test binaries
// must start on machines without a driver); the function is looked up at run time through the
// runtime's cudaGetDriverEntryPointByVersion instead.
#pragma once

#include <cstdint>

#include <cuda.h>

#include "core/types.hpp"

namespace gemmlab::tc {

enum class Swizzle { none, b128 };

// A 2-D tensor map over a row-major rows x cols matrix of `t` at `base`, copied in boxes of
// box_rows x box_cols. Throws Error (with the driver's code) if the encoding is rejected.
CUtensorMap make_tensor_map_2d(const void* base, DType t, std::int64_t rows, std::int64_t cols, int box_rows,
                               int box_cols, Swizzle swizzle);

}  // namespace gemmlab::tc
