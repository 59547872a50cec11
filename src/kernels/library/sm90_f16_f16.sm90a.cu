// The library's Hopper kernel instantiations for f16 operands and f16 output (sm90_impl.cuh).
#include "kernels/library/sm90_impl.cuh"

namespace gemmlab::detail {

const std::vector<Sm90Entry>& sm90_entries_f16_f16() {
  static const std::vector<Sm90Entry> entries = sm90lib::all_entries<Precision::fp16, __half>();
  return entries;
}

}  // namespace gemmlab::detail
