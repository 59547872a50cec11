// The fuzz targets' committed corpora (tests/fuzz/corpus/TARGET/), every input run through its
// target once, in the sanitized build: what a fuzzing run found and kept stays fixed. Built into
// gemmlab_host_sanitized_tests (tests/CMakeLists.txt); tests/fuzz/README.md says how to fuzz.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

int gemmlab_fuzz_api(const std::uint8_t* data, std::size_t size);
int gemmlab_fuzz_npy(const std::uint8_t* data, std::size_t size);
int gemmlab_fuzz_table(const std::uint8_t* data, std::size_t size);
int gemmlab_fuzz_results(const std::uint8_t* data, std::size_t size);
int gemmlab_fuzz_lists(const std::uint8_t* data, std::size_t size);

namespace {

int replay(const std::string& target, int (*run)(const std::uint8_t*, std::size_t)) {
  const std::filesystem::path dir = std::filesystem::path(GEMMLAB_SOURCE_DIR) / "tests/fuzz/corpus" / target;
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    EXPECT_EQ(run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
    ++inputs;
  }
  return inputs;
}

TEST(FuzzCorpora, ApiCallsAreAcceptedOrRefusedByName) { EXPECT_GT(replay("api", gemmlab_fuzz_api), 0); }
TEST(FuzzCorpora, NpyFilesAreReadOrRefused) { EXPECT_GT(replay("npy", gemmlab_fuzz_npy), 0); }
TEST(FuzzCorpora, DispatchTablesAreParsedOrRefused) { EXPECT_GT(replay("table", gemmlab_fuzz_table), 0); }
TEST(FuzzCorpora, ResultsFilesAreReadOrRefused) { EXPECT_GT(replay("results", gemmlab_fuzz_results), 0); }
TEST(FuzzCorpora, SizeAndShapeListsAreParsedOrRefused) { EXPECT_GT(replay("lists", gemmlab_fuzz_lists), 0); }

}  // namespace
