#include "results/table.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace gemmlab {

namespace {
bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  return std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+' || s[0] == '.';
}
// Display width: count UTF-8 code points, not bytes (so "×" and "µ" align).
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}
}  // namespace

void Table::print(std::ostream& os) const {
  std::vector<std::size_t> w(header_.size(), 0);
  for (std::size_t i = 0; i < header_.size(); ++i) w[i] = width(header_[i]);
  for (const auto& r : rows_)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], width(r[i]));
  auto line = [&](const std::vector<std::string>& r, bool header) {
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      const std::string pad(w[i] - width(cell), ' ');
      if (i) os << "  ";
      if (!header && looks_numeric(cell)) os << pad << cell;
      else os << cell << (i + 1 < w.size() ? pad : "");
    }
    os << '\n';
  };
  auto rule = [&] {
    std::size_t total = 0;
    for (auto x : w) total += x;
    total += 2 * (w.empty() ? 0 : w.size() - 1);
    os << std::string(total, '-') << '\n';
  };
  line(header_, true);
  rule();
  for (const auto& r : rows_) {
    if (r.empty()) rule();
    else line(r, false);
  }
}

std::string Table::str() const {
  std::ostringstream os;
  print(os);
  return os.str();
}

}  // namespace gemmlab
