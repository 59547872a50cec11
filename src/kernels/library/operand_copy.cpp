#include "kernels/library/operand_copy.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

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
  const std::int64_t per_row = kCopyRowBytes / std::int64_t(elem_bytes);
  c.ld = (c.cols + per_row - 1) / per_row * per_row;
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

void launch_operand_copies(Operand& a, const OperandCopy& ca, void* a_at, Operand& b, const OperandCopy& cb, void* b_at,
                           std::size_t elem_bytes, cudaStream_t stream) {
  RowCopy jobs[2];
  int count = 0;
  for (auto [o, c, at] : {std::tuple{&a, &ca, a_at}, std::tuple{&b, &cb, b_at}}) {
    if (!c->needed) continue;
    jobs[count++] = RowCopy{o->ptr, o->ld, o->stride, c->rows, c->cols, c->items, at, c->ld};
    *o = Operand{at, c->ld, o->stride == 0 ? 0 : c->rows * c->ld, o->k_major};
  }
  if (count == 0) return;
  if (elem_bytes == 2) launch_copy_rows_16(jobs, count, stream);
  else launch_copy_rows_32(jobs, count, stream);
}

std::size_t copy_line_bytes(const Operand& o, std::int64_t k, std::size_t elem_bytes) {
  // K-major: a row of k padded to kCopyRowBytes; M- or N-major: k rows, so k elements per line
  // (the rows' padding counted by copy_blocks).
  const std::int64_t per_row = kCopyRowBytes / std::int64_t(elem_bytes);
  return std::size_t(o.k_major ? (k + per_row - 1) / per_row * per_row : k) * elem_bytes;
}

namespace {

// The waves of blocks of rows x cols over m x n (whole blocks, then the last row and column).
std::int64_t blocks_waves(std::int64_t m, std::int64_t n, std::int64_t rows, std::int64_t cols, int tile_m, int tile_n,
                          std::int64_t slots) {
  std::int64_t waves = 0;
  for (const auto& [r, r_count] : {std::pair{rows, m / rows}, std::pair{m % rows, std::int64_t(m % rows > 0)}})
    for (const auto& [c, c_count] : {std::pair{cols, n / cols}, std::pair{n % cols, std::int64_t(n % cols > 0)}})
      if (r_count > 0 && c_count > 0) waves += r_count * c_count * cdiv(cdiv(r, tile_m) * cdiv(c, tile_n), slots);
  return waves;
}

}  // namespace

std::int64_t whole_waves(const Problem& p, int tile_m, int tile_n, std::int64_t slots) {
  return cdiv(cdiv(p.m, tile_m) * cdiv(p.n, tile_n), std::max<std::int64_t>(1, slots));
}

CopyBlocks copy_blocks(const Problem& p, std::size_t a_line, std::size_t b_line, std::size_t workspace_bytes,
                       int tile_m, int tile_n, std::int64_t slots) {
  slots = std::max<std::int64_t>(1, slots);
  // An M- or N-major copy pads its lines' count (its rows' length) to kCopyRowBytes: as many lines
  // as 2-byte elements fill it cover both element sizes (a K-major copy's line holds the padding).
  auto bytes = [](std::int64_t lines, std::size_t line) {
    constexpr std::int64_t per_row = kCopyRowBytes / 2;
    return (std::size_t((lines + per_row - 1) / per_row * per_row) * line + 255) / 256 * 256;
  };
  CopyBlocks best;
  std::int64_t last_cols = 0;
  for (std::int64_t split_n = 1; split_n <= cdiv(p.n, tile_n); ++split_n) {
    const std::int64_t cols = split_n == 1 ? p.n : cdiv(cdiv(p.n, split_n), tile_n) * tile_n;
    if (split_n > 1 && cols >= last_cols) continue;  // no fewer columns than the previous split
    last_cols = cols;
    const std::size_t b_bytes = bytes(cols, b_line);
    if (b_bytes > workspace_bytes) continue;
    std::int64_t rows = p.m;
    if (a_line > 0) {
      const std::size_t room = (workspace_bytes - b_bytes) / 256 * 256;
      const std::int64_t most = std::int64_t(room / a_line) / tile_m * tile_m;
      if (most == 0) continue;
      const std::int64_t split_m = cdiv(p.m, most);
      rows = split_m == 1 ? p.m : cdiv(cdiv(p.m, split_m), tile_m) * tile_m;  // balanced, whole tiles
    }
    CopyBlocks c{rows, cols, a_line > 0 ? bytes(rows, a_line) : 0, b_bytes};
    c.waves = blocks_waves(p.m, p.n, rows, cols, tile_m, tile_n, slots);
    if (best.rows == 0 || c.waves < best.waves || (c.waves == best.waves && c.count(p.m, p.n) < best.count(p.m, p.n)))
      best = c;
    if (b_line == 0) break;  // B is read in place: more splits of n only add blocks
  }
  return best;
}

Problem block_of(const Problem& p, std::int64_t r0, std::int64_t rows, std::int64_t n0, std::int64_t cols) {
  Problem q = p;
  q.m = rows, q.n = cols;
  const std::size_t es = size_of(p.ab), ds = size_of(p.cd);
  auto moved = [es](Operand o, std::int64_t lines) {
    o.ptr = static_cast<const unsigned char*>(o.ptr) + std::size_t(o.k_major ? lines * o.ld : lines) * es;
    return o;
  };
  q.a = moved(p.a, r0);
  q.b = moved(p.b, n0);
  q.d = static_cast<unsigned char*>(p.d) + std::size_t(r0 * p.ldd + n0) * ds;
  if (p.c) q.c = static_cast<const unsigned char*>(p.c) + std::size_t(r0 * p.ldc + n0) * ds;
  if (p.bias && p.bias_kind != BiasKind::none)
    q.bias = static_cast<const unsigned char*>(p.bias) +
             std::size_t(p.bias_kind == BiasKind::per_row ? r0 : n0) * size_of(p.bias_type);
  return q;
}

}  // namespace gemmlab::detail
