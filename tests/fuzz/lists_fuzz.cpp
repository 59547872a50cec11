// Fuzz target: the input as the lists users write on the command line: `--sizes` (core/size_list),
// `--shapes` (sweep/shapes), and `-m/-n/-k` lists combined or zipped. Each must give its values
// or gemmlab::Error; a crash, undefined behaviour (an overflowing range step, say), an allocation
// no list justifies or another exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/size_list.hpp"
#include "sweep/shapes.hpp"

int gemmlab_fuzz_lists(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: (void)gemmlab::parse_size_list(text); break;
      case 1: (void)gemmlab::parse_shape_list(text); break;
      default: {
        // Three lists separated by ';', as -m, -n and -k would give them.
        const std::size_t a = text.find(';'), b = a == std::string::npos ? a : text.find(';', a + 1);
        if (b == std::string::npos) return 0;
        const auto ms = gemmlab::parse_size_list(text.substr(0, a));
        const auto ns = gemmlab::parse_size_list(text.substr(a + 1, b - a - 1));
        const auto ks = gemmlab::parse_size_list(text.substr(b + 1));
        (void)gemmlab::shapes_from_dimensions(ms, ns, ks, data[0] & 4);
      }
    }
  } catch (const gemmlab::Error&) {
  }
  return 0;
}

#ifdef GEMMLAB_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return gemmlab_fuzz_lists(data, size); }
#endif
