#include "results/csv_input.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

namespace {

// Splits CSV text into rows of cells (RFC 4180: quoted cells may hold commas, newlines and "").
std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(cell));
      cell.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !cell.empty()) {
        row.push_back(std::move(cell));
        rows.push_back(std::move(row));
      }
      row.clear();
      cell.clear();
      any = false;
    } else {
      cell += c;
      any = true;
    }
  }
  if (quoted) throw Error(fmt::format("{}: unterminated quoted cell", path));
  if (any || !cell.empty()) {
    row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json typed(const std::string& s) {
  if (s == "true") return true;
  if (s == "false") return false;
  std::int64_t i = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (auto [p, ec] = std::from_chars(b, e, i); ec == std::errc() && p == e) return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(b, e, d); ec == std::errc() && p == e) return d;
  return s;
}

}  // namespace

nlohmann::json read_csv_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  const auto rows = parse_csv(ss.str(), path);
  if (rows.empty()) throw Error(fmt::format("{}: empty file (no CSV header)", path));
  const auto& header = rows[0];
  if (header.empty() || header[0] != "kernel")
    throw Error(fmt::format("{}: not a gemmlab results CSV (the first column must be 'kernel')", path));
  nlohmann::json results = nlohmann::json::array();
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != header.size())
      throw Error(fmt::format("{}: row {} has {} cells, the header {}", path, r + 1, rows[r].size(), header.size()));
    nlohmann::json rec = nlohmann::json::object();
    for (std::size_t c = 0; c < header.size(); ++c)
      if (!rows[r][c].empty()) rec[header[c]] = typed(rows[r][c]);
    results.push_back(std::move(rec));
  }
  return nlohmann::json{{"results", results}};
}

}  // namespace gemmlab
