// Fuzz target: the input as a results file (what `gemmlab compare`, `report` and a resumed
// `sweep` read): JSON when it starts with '{', a results array of any records as read_results_file
// accepts them; otherwise CSV, through results/csv_input.cpp. Then compared with itself
// (results/compare.cpp). It must give records or gemmlab::Error; a crash, undefined behaviour or
// another exception (a JSON type error from a field of the wrong kind, say) is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "results/compare.hpp"
#include "results/csv_input.hpp"

int gemmlab_fuzz_results(const std::uint8_t* data, std::size_t size) {
  if (size > 0 && data[0] == '{') {
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_object() && j.contains("results") && j["results"].is_array()) {
      try {
        (void)gemmlab::compare_results(j, j);
      } catch (const gemmlab::Error&) {
      }
    }
    return 0;
  }
  static const std::string path = "/tmp/gemmlab_fuzz_results_" + std::to_string(::getpid()) + ".csv";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    const nlohmann::json records = gemmlab::read_csv_results(path);
    (void)gemmlab::compare_results(records, records);
  } catch (const gemmlab::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}

#ifdef GEMMLAB_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return gemmlab_fuzz_results(data, size); }
#endif
