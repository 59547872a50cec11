// The dispatch tables under data/dispatch/, compiled into the library (CMake writes
// builtin_tables.cpp from the JSON files).
#pragma once

#include <vector>

namespace gemmlab::detail {

struct BuiltinTable {
  const char* name;   // file stem: "h100"
  const char* match;  // a substring of the CUDA device name it serves: "H100"
  const char* json;
};

const std::vector<BuiltinTable>& builtin_tables();

}  // namespace gemmlab::detail
