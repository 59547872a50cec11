// Fuzz target: the input as a .npy file, read by core/npy.cpp (the reader of `--input-a` and
// `--input-b`). It must give a matrix or gemmlab::Error; a crash, undefined behaviour, an
// allocation the file's size cannot justify (std::bad_alloc) or another exception is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "core/npy.hpp"

int gemmlab_fuzz_npy(const std::uint8_t* data, std::size_t size) {
  // read_npy takes a path: the bytes go through a file of this process's own.
  static const std::string path = "/tmp/gemmlab_fuzz_npy_" + std::to_string(::getpid()) + ".npy";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    const gemmlab::HostMatrix m = gemmlab::read_npy(path);
    (void)gemmlab::to_double(m);
  } catch (const gemmlab::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}

#ifdef GEMMLAB_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return gemmlab_fuzz_npy(data, size); }
#endif
