// Division by a number fixed for a whole launch, as one multiply-high, an add and a shift. A
// kernel that walks units of work (tiles of items) splits each unit index by the same tile counts
// over and over; the GPU has no integer divider, and a 32-bit division by a run-time value costs
// about twenty instructions, more than a small tile's mma (docs/api.md, the small-tile kernel).
//
// The method (Granlund and Montgomery, "Division by invariant integers using multiplication",
// 1994): with s = ceil(log2 d) and m = floor(2^(32+s) / d) + 1, x / d = floor(x m / 2^(32+s))
// for every 32-bit x. m needs 33 bits; its low 32 are kept and its top bit added back as x, so
// x / d = (umulhi(x, m - 2^32) + x) >> s, exact for x < 2^31 (the sum then fits 32 bits).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace gemmlab::detail {

struct Divisor {
  unsigned d = 1, mul = 1, shift = 0;

  Divisor() = default;
  // 1 <= divisor <= 2^31 (callers check their counts on the host).
  explicit Divisor(unsigned divisor) : d(divisor) {
    while (shift < 31 && (1u << shift) < d) ++shift;
    const std::uint64_t above = (std::uint64_t(1) << shift) - d;  // 2^s - d, under d
    mul = unsigned((above << 32) / d + 1);
  }

  // x / d for 0 <= x < 2^31.
  __host__ __device__ __forceinline__ unsigned quotient(unsigned x) const {
#ifdef __CUDA_ARCH__
    const unsigned hi = __umulhi(x, mul);
#else
    const unsigned hi = unsigned((std::uint64_t(x) * mul) >> 32);
#endif
    return (hi + x) >> shift;
  }
};

}  // namespace gemmlab::detail
