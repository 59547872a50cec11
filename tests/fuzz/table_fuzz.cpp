// Fuzz target: the input as a dispatch table (the JSON of `GEMMLAB_TABLE` or
// Context::Options::table_path), parsed by dispatch/table.cpp, then asked for an entry near a few
// shapes. It must give a table or gemmlab::Error; a crash, undefined behaviour or another
// exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dispatch/table.hpp"
#include "gemmlab/error.hpp"

int gemmlab_fuzz_table(const std::uint8_t* data, std::size_t size) {
  try {
    const gemmlab::detail::Table t =
        gemmlab::detail::parse_table(std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
    for (const auto& e : t.entries) (void)t.nearest(e.key, e.m, e.n, e.k, e.batch);
  } catch (const gemmlab::Error&) {
  }
  return 0;
}

#ifdef GEMMLAB_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return gemmlab_fuzz_table(data, size); }
#endif
