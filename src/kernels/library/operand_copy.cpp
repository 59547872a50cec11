#include "kernels/library/operand_copy.hpp"

#include "kernels/library/transpose.hpp"
#include "kernels/tensor/tma.hpp"

namespace gemmlab::detail {

OperandCopy copy_of(const Operand& o, std::int64_t rows_k_major, std::int64_t k, std::int64_t items,
                    std::size_t elem_bytes) {
  OperandCopy c;
  // A K-major operand's TMA matrix has one row per m (or n); an MN-major one, one row per k.
  c.rows = o.k_major ? rows_k_major : k;
  c.items = o.stride == 0 ? 1 : items;
  if (tc::tma_layout_ok(o.ptr, elem_bytes, c.rows, o.ld, c.items, o.stride)) return OperandCopy{};
  c.needed = true;
  c.cols = o.k_major ? k : rows_k_major;
  const std::int64_t per_16 = std::int64_t(16 / elem_bytes);
  c.ld = (c.cols + per_16 - 1) / per_16 * per_16;
  c.bytes = (std::size_t(c.items) * std::size_t(c.rows) * std::size_t(c.ld) * elem_bytes + 255) / 256 * 256;
  return c;
}

Operand launch_operand_copy(const Operand& o, const OperandCopy& c, void* at, std::size_t elem_bytes,
                            cudaStream_t stream) {
  if (!c.needed) return o;
  if (elem_bytes == 2) launch_copy_rows_16(o.ptr, o.ld, o.stride, c.rows, c.cols, c.items, at, c.ld, stream);
  else launch_copy_rows_32(o.ptr, o.ld, o.stride, c.rows, c.cols, c.items, at, c.ld, stream);
  return Operand{at, c.ld, o.stride == 0 ? 0 : c.rows * c.ld, o.k_major};
}

}  // namespace gemmlab::detail
