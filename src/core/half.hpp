// Host-side conversions of the 16-bit float formats, bit-exact with the GPU's
// round-to-nearest-even conversions, so .npy files and CPU tests need no CUDA headers.
#pragma once

#include <cstdint>
#include <cstring>

namespace gemmlab {

inline float bits_to_float(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline std::uint32_t float_to_bits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }

inline float bf16_bits_to_float(std::uint16_t b) { return bits_to_float(std::uint32_t(b) << 16); }

inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u = float_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return std::uint16_t(u >> 16);
}

inline float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return bits_to_float(sign);
    // subnormal: normalise
    int e = -1;
    do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
    mant &= 0x3ffu;
    return bits_to_float(sign | (std::uint32_t(127 - 15 - e) << 23) | (mant << 13));
  }
  if (exp == 31) return bits_to_float(sign | 0x7f800000u | (mant << 13));
  return bits_to_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace gemmlab
