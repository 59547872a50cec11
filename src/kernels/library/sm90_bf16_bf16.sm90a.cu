// The library's Hopper kernel instantiations for bf16 operands and bf16 output (sm90_impl.cuh).
#include "kernels/library/sm90_impl.cuh"

namespace gemmlab::detail {

const std::vector<Sm90Entry>& sm90_entries_bf16_bf16() {
  static const std::vector<Sm90Entry> entries = sm90lib::all_entries<Precision::bf16, __nv_bfloat16>();
  return entries;
}

}  // namespace gemmlab::detail
