// A plain text table for the terminal: columns sized to their contents, numbers right-aligned.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gemmlab {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void add_separator() { rows_.push_back({}); }
  // Print at most `columns` characters a line: the widest text columns are cut (ending in "~")
  // until the table fits; numbers are never cut. 0: no limit (the default).
  void fit_to(std::size_t columns) { max_width_ = columns; }
  void print(std::ostream& os) const;
  std::string str() const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a separator line
  std::size_t max_width_ = 0;
};

}  // namespace gemmlab
