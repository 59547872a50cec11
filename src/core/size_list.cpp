#include "core/size_list.hpp"

#include <charconv>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

std::int64_t parse_int64(const std::string& s, const std::string& what) {
  std::int64_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e) throw Error(fmt::format("{}: '{}' is not an integer", what, s));
  return v;
}

std::vector<std::int64_t> parse_size_list(const std::string& text) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw Error(fmt::format("empty item in size list '{}'", text));
    const auto c1 = item.find(':');
    if (c1 == std::string::npos) {
      out.push_back(parse_int64(item, "size"));
    } else {
      const auto c2 = item.find(':', c1 + 1);
      if (c2 == std::string::npos)
        throw Error(fmt::format("range '{}' needs START:STOP:STEP (STEP like x2 or +256)", item));
      const std::int64_t lo = parse_int64(item.substr(0, c1), "range start");
      const std::int64_t hi = parse_int64(item.substr(c1 + 1, c2 - c1 - 1), "range stop");
      const std::string step = item.substr(c2 + 1);
      if (step.size() < 2 || (step[0] != 'x' && step[0] != '+'))
        throw Error(fmt::format("range step '{}' must be xF (multiply) or +D (add)", step));
      const std::int64_t by = parse_int64(step.substr(1), "range step");
      if (lo <= 0 || hi < lo) throw Error(fmt::format("range '{}' must have 0 < START <= STOP", item));
      if ((step[0] == 'x' && by < 2) || (step[0] == '+' && by < 1))
        throw Error(fmt::format("range step '{}' would never reach STOP", step));
      for (std::int64_t v = lo;;) {
        out.push_back(v);
        if (out.size() > 10000) throw Error(fmt::format("range '{}' has too many values", item));
        // The next value, unless it would pass STOP (checked before computing it: no overflow).
        if (step[0] == 'x' ? v > hi / by : v > hi - by) break;
        v = step[0] == 'x' ? v * by : v + by;
      }
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (auto v : out)
    if (v <= 0) throw Error(fmt::format("sizes must be at least 1 (got {})", v));
  return out;
}

}  // namespace gemmlab
