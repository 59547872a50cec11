// Fuzz target: the input as a results file (what `gemmlab compare`, `report` and a resumed
// `sweep` read): JSON when it starts with '{', a results array of any records as read_results_file
// accepts them; otherwise CSV, through results/csv_input.cpp. Then compared with itself
// (results/compare.cpp). It must give records or gemmlab::Error; a crash, undefined behaviour or
// another exception (a JSON type error from a field of the wrong kind, say) is a finding.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "fuzz_input.hpp"
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
  const gemmlab::fuzz::AsFile file(data, size, "input.csv");  // read_csv_results takes a path
  if (!file.ok()) return 0;
  try {
    const nlohmann::json records = gemmlab::read_csv_results(file.path());
    (void)gemmlab::compare_results(records, records);
  } catch (const gemmlab::Error&) {
  }
  return 0;
}

#ifdef GEMMLAB_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return gemmlab_fuzz_results(data, size); }
#endif
