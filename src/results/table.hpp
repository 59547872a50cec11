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
  void print(std::ostream& os) const;
  std::string str() const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a separator line
};

}  // namespace gemmlab
