// Writes the SYNTHETIC test fixtures (tests/fixtures/*.json, *.csv) with gemmlab's own writers:
//   build/tests/gemmlab_make_fixtures tests/fixtures
// Run it after changing what result records hold; the test FixturesAreCurrent says when.
#include <iostream>

#include "core/error.hpp"
#include "support/fixtures.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gemmlab_make_fixtures DIR\n";
    return 2;
  }
  try {
    gemmlab::fixtures::write_fixture_files(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "gemmlab_make_fixtures: " << e.what() << '\n';
    return 1;
  }
  std::cout << "wrote synthetic fixtures to " << argv[1] << '\n';
  return 0;
}
