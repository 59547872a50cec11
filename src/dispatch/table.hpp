// Dispatch tables: for one GPU, the fastest kernel and parameters measured on a grid of shapes
// (written by `gemmlab tune --table`, kept as JSON under data/dispatch/, built into the library).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gemmlab::detail {

// One measured shape: the problem's class and size, and the kernel that won.
struct TableEntry {
  std::string types;   // "bf16.f32": operand type, output type ("f32.f32", "tf32.f32" when TF32 is allowed)
  std::string layout;  // "NN", "NT", "TN", "TT" (problem.hpp: Problem::layout_name)
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string kernel;                // a family name: "sm90", "sm90_tf32", "simt", "generic"
  std::map<std::string, int> config; // that family's parameters
  double ms = 0, reference_ms = 0;   // measured: the winner and cuBLAS, for the record
};

struct Table {
  std::string device;  // the GPU it was measured on
  std::string commit;  // gemmlab commit of the measurement
  std::vector<TableEntry> entries;

  // The entry of the same class nearest to (m, n, k, batch) in log space, if one lies within a
  // factor of `reach` in every dimension.
  const TableEntry* nearest(const std::string& types, const std::string& layout, std::int64_t m, std::int64_t n,
                            std::int64_t k, std::int64_t batch, double reach = 1.5) const;
};

// The table built into the library for a GPU of this name ("NVIDIA H100 80GB HBM3" -> h100), or
// an empty one; `source` says which.
Table builtin_table(const std::string& device_name, std::string& source);
// A table file; throws Error naming the file and the problem when it cannot be read.
Table load_table_file(const std::string& path, std::string& source);
Table parse_table(const std::string& json_text, const std::string& where);
std::string table_to_json(const Table& t);

}  // namespace gemmlab::detail
