// The library's CUDA-core FP32 kernel with the general epilogue: the model's five configurations in
// every layout (simt_table.hpp).
#include "kernels/library/simt_table.hpp"

// The table is built with templated lambdas ([]<int A, int B>() {...}); nvcc warns that their
// template parameters do not appear in their parameter lists, which is the point.
#pragma nv_diag_suppress 445

namespace gemmlab::detail {

const std::vector<SimtEntry>& simt_entries_plain() {
  static const std::vector<SimtEntry> entries = simt_library_entries<fp32::kEpiPlain>();
  return entries;
}

}  // namespace gemmlab::detail
