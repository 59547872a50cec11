#include "results/table.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace gemmlab {

namespace {
// Numbers, percentages, sizes ("4096x4096") and ranges ("0.18-0.19") are right-aligned; text
// that merely starts with a digit ("2x2 outputs per thread") is not.
bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  const unsigned char c0 = static_cast<unsigned char>(s[0]);
  if (!std::isdigit(c0) && c0 != '-' && c0 != '+' && c0 != '.') return false;
  return s.find_first_not_of("0123456789.-+eE%x,/ ") == std::string::npos;
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
  std::vector<bool> numeric(header_.size(), true);
  for (const auto& r : rows_)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) {
      w[i] = std::max(w[i], width(r[i]));
      if (!r[i].empty() && r[i] != "-" && !looks_numeric(r[i])) numeric[i] = false;
    }
  if (max_width_ > 0) {
    // Narrow the widest text column, one character at a time, until the table fits or every text
    // column is down to its header (or 8 characters).
    auto total = [&] {
      std::size_t t = 2 * (w.empty() ? 0 : w.size() - 1);
      for (auto x : w) t += x;
      return t;
    };
    while (total() > max_width_) {
      std::size_t widest = w.size();
      for (std::size_t i = 0; i < w.size(); ++i) {
        const std::size_t floor = std::max<std::size_t>(8, width(header_[i]));
        if (!numeric[i] && w[i] > floor && (widest == w.size() || w[i] > w[widest])) widest = i;
      }
      if (widest == w.size()) break;
      --w[widest];
    }
  }
  auto clip = [&](const std::string& cell, std::size_t cw) {
    if (width(cell) <= cw || cw == 0) return cell;
    std::string out;
    std::size_t n = 0;
    for (std::size_t b = 0; b < cell.size(); ++b) {
      const unsigned char c = static_cast<unsigned char>(cell[b]);
      if ((c & 0xC0) != 0x80 && ++n > cw - 1) break;
      out += cell[b];
    }
    return out + "~";
  };
  auto line = [&](const std::vector<std::string>& r, bool header) {
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::string cell = clip(i < r.size() ? r[i] : "", w[i]);
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
