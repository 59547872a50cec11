// Dispatch tables: for one GPU, the fastest kernel and parameters measured on a grid of shapes
// (written by `gemmlab tune --table`, kept as JSON under data/dispatch/, built into the library).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gemmlab/types.hpp"

namespace gemmlab::detail {

// A problem's class as one integer: operand and output types, TF32, grouped, each operand's layout.
// Entries are only compared with problems of their class.
int class_key(DataType ab, DataType cd, bool tf32, bool grouped, bool a_k_major, bool b_k_major);
// The same from a table's strings: types "bf16.f32", "tf32.f32", "bf16.bf16.grouped"; layout "NN",
// "NT", "TN", "TT". -1 when they name no class.
int class_key(std::string_view types, std::string_view layout);

// One measured shape: the problem's class and size, and the kernel that won.
struct TableEntry {
  std::string types;   // "bf16.f32": operand type, output type ("f32.f32", "tf32.f32" when TF32 is allowed)
  std::string layout;  // "NN", "NT", "TN", "TT" (problem.hpp: Problem::layout_name)
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string kernel;                // a family name (family_name): "sm90.wgmma", "sm80.simt_pipelined", ...
  std::map<std::string, int> config; // that family's parameters
  double ms = 0, reference_ms = 0;   // measured: the winner and cuBLAS, for the record
  int key = -1;                      // class_key of types and layout
  double log_m = 0, log_n = 0, log_k = 0, log_batch = 0;
};

struct Table {
  std::string device;  // the GPU it was measured on
  std::string match;   // the substring of a CUDA device name it serves ("H100")
  std::string commit;  // gemmlab commit of the measurement
  std::vector<TableEntry> entries;

  // The entry of class `key` nearest to (m, n, k, batch) in log space, if one lies within a factor
  // of `reach` in every dimension.
  const TableEntry* nearest(int key, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                            double reach = 1.5) const;
  void index();  // after entries change: fills keys, logarithms and the per-class lists

 private:
  std::unordered_map<int, std::vector<std::size_t>> by_class_;
};

// The table built into the library for a GPU of this name ("NVIDIA H100 80GB HBM3" -> h100), or
// an empty one; `source` says which.
Table builtin_table(const std::string& device_name, std::string& source);
// A table file; throws Error naming the file and the problem when it cannot be read.
Table load_table_file(const std::string& path, std::string& source);
Table parse_table(const std::string& json_text, const std::string& where);
std::string table_to_json(const Table& t);

}  // namespace gemmlab::detail
