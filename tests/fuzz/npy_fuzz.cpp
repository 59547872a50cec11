// Fuzz target: the input as a .npy file, read by core/npy.cpp (the reader of `--input-a` and
// `--input-b`). It must give a matrix or gemmlab::Error; a crash, undefined behaviour, an
// allocation the file's size cannot justify (std::bad_alloc) or another exception is a finding.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "core/npy.hpp"
#include "fuzz_input.hpp"

int gemmlab_fuzz_npy(const std::uint8_t* data, std::size_t size) {
  const gemmlab::fuzz::AsFile file(data, size, "input.npy");  // read_npy takes a path
  if (!file.ok()) return 0;
  try {
    const gemmlab::HostMatrix m = gemmlab::read_npy(file.path());
    (void)gemmlab::to_double(m);
  } catch (const gemmlab::Error&) {
  }
  return 0;
}

#ifdef GEMMLAB_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return gemmlab_fuzz_npy(data, size); }
#endif
