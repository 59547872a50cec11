#include "sweep/shapes.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "core/error.hpp"
#include "sweep/suite.hpp"

namespace gemmlab {

namespace {

std::int64_t parse_dimension(const std::string& s, const std::string& item) {
  std::int64_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (s.empty() || ec != std::errc() || p != e)
    throw Error(fmt::format("shape '{}' must be MxNxK with three positive integers", item));
  if (v < 1) throw Error(fmt::format("shape '{}': sizes must be at least 1", item));
  return v;
}

}  // namespace

std::vector<Shape> parse_shape_list(const std::string& text) {
  if (text == "suite") return suite_shapes();
  if (text == "heldout" || text.starts_with("heldout:")) {
    unsigned seed = 1;
    if (text != "heldout") {
      const std::string s = text.substr(8);
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), seed);
      if (s.empty() || ec != std::errc() || p != s.data() + s.size())
        throw Error(fmt::format("'{}': the held-out shapes' seed must be a number from 0 to 4294967295", text));
    }
    return unique_shapes(held_out_shapes(seed));
  }
  std::vector<Shape> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw Error(fmt::format("empty item in shape list '{}'", text));
    const std::size_t x1 = item.find('x');
    const std::size_t x2 = x1 == std::string::npos ? std::string::npos : item.find('x', x1 + 1);
    if (x1 == std::string::npos || x2 == std::string::npos || item.find('x', x2 + 1) != std::string::npos)
      throw Error(fmt::format("shape '{}' must be MxNxK with three positive integers", item));
    out.push_back(Shape{parse_dimension(item.substr(0, x1), item), parse_dimension(item.substr(x1 + 1, x2 - x1 - 1), item),
                        parse_dimension(item.substr(x2 + 1), item)});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<Shape> square_shapes(const std::vector<std::int64_t>& sizes) {
  std::vector<Shape> out;
  for (std::int64_t n : sizes) out.push_back(Shape{n, n, n});
  return out;
}

std::vector<Shape> shapes_from_dimensions(const std::vector<std::int64_t>& ms, const std::vector<std::int64_t>& ns,
                                          const std::vector<std::int64_t>& ks, bool zip) {
  if (ms.empty() || ns.empty() || ks.empty()) throw Error("give all of -m, -n and -k (each a list or range)");
  std::vector<Shape> out;
  if (!zip) {
    // Each list holds at most 10,000 values (size_list.hpp), but their product can hold 10^12.
    const double count = double(ms.size()) * double(ns.size()) * double(ks.size());
    if (count > double(kMaxShapes))
      throw Error(fmt::format("-m, -n and -k give {} x {} x {} = {:.0f} shapes; a sweep takes at most {} (use --zip to "
                              "pair them element by element, or shorter lists)",
                              ms.size(), ns.size(), ks.size(), count, kMaxShapes));
    for (auto m : ms)
      for (auto n : ns)
        for (auto k : ks) out.push_back(Shape{m, n, k});
    return out;
  }
  const std::size_t len = std::max({ms.size(), ns.size(), ks.size()});
  for (const auto* list : {&ms, &ns, &ks})
    if (list->size() != 1 && list->size() != len)
      throw Error(fmt::format("--zip pairs -m, -n and -k element by element: they have {}, {} and {} values "
                              "(each needs {} or 1)",
                              ms.size(), ns.size(), ks.size(), len));
  auto at = [](const std::vector<std::int64_t>& v, std::size_t i) { return v.size() == 1 ? v[0] : v[i]; };
  for (std::size_t i = 0; i < len; ++i) out.push_back(Shape{at(ms, i), at(ns, i), at(ks, i)});
  return out;
}

void append_unique(std::vector<Shape>& shapes, const std::vector<Shape>& more) {
  for (const Shape& s : more)
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
}

}  // namespace gemmlab
