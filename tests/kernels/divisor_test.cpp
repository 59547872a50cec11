// The kernels' division by a launch-wide divisor (kernels/library/divisor.hpp) against the
// hardware's: every divisor kind (1, powers of two and their neighbours, primes, the largest) with
// the dividends where a rounding error would first show (multiples of d and their neighbours, the
// largest), and random ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/library/divisor.hpp"

namespace gemmlab::detail {
namespace {

std::vector<unsigned> divisors() {
  std::vector<unsigned> d;
  for (unsigned i = 1; i <= 300; ++i) d.push_back(i);
  for (int s = 1; s <= 31; ++s) {
    const unsigned p = 1u << s;
    d.insert(d.end(), {p - 1, p, p + 1});
  }
  d.insert(d.end(), {7919u, 65521u, 1000003u, 2147483629u, 2147483647u});  // primes, the last 2^31 - 1
  return d;
}

TEST(Divisor, QuotientIsExactBelow2To31) {
  constexpr unsigned kMax = 0x7fffffffu;  // the largest dividend the kernels pass
  std::mt19937 rng(20261127);
  std::uniform_int_distribution<unsigned> any(0, kMax);
  for (unsigned d : divisors()) {
    if (d > (1u << 31)) continue;
    const Divisor div(d);
    std::vector<unsigned> x{0, 1, kMax, kMax - 1, d - 1};
    if (d <= kMax) x.push_back(d);
    for (std::uint64_t q : {std::uint64_t(1), std::uint64_t(2), std::uint64_t(3), std::uint64_t(kMax / d)})
      for (int delta : {-1, 0, 1}) {
        const std::uint64_t v = q * d + std::uint64_t(std::int64_t(delta) + 1) - 1;
        if (v <= kMax) x.push_back(unsigned(v));
      }
    for (int i = 0; i < 200; ++i) x.push_back(any(rng));
    for (unsigned v : x) ASSERT_EQ(div.quotient(v), v / d) << v << " / " << d;
  }
}

}  // namespace
}  // namespace gemmlab::detail
