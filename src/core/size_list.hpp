// Lists of matrix sizes as users write them on the command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmlab {

// "256", "256,512,1024", "256:8192:x2" (multiply), "1000:5000:+1000" (add), and lists of those.
// Throws Error on anything else, on sizes < 1 and on ranges that never end.
std::vector<std::int64_t> parse_size_list(const std::string& text);

// A whole string as a base-10 integer; throws Error("<what>: 'x' is not an integer") otherwise.
std::int64_t parse_int64(const std::string& text, const std::string& what);

}  // namespace gemmlab
