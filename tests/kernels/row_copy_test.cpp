// How a row copy too large for one launch is split (kernels/library/transpose.hpp,
// row_copy_pieces): every row of every item copied once, in order, each piece under the limit,
// with the limit made small so that the split shows on small shapes.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/error.hpp"
#include "kernels/library/transpose.hpp"

namespace gemmlab::detail {
namespace {

// Walks the pieces and checks that they cover rows [0, rows) of items [0, batch) in order.
void expect_cover(const RowCopy& w, std::size_t es, std::int64_t max_vectors) {
  const std::int64_t per_row = (w.cols + 16 / std::int64_t(es) - 1) / (16 / std::int64_t(es));
  std::int64_t item = 0, row = 0;
  for (const RowCopy& p : row_copy_pieces(w, es, max_vectors)) {
    EXPECT_LT(p.rows * p.batch * per_row, max_vectors);
    EXPECT_EQ(p.cols, w.cols);
    EXPECT_EQ(p.ld, w.ld);
    EXPECT_EQ(p.stride, w.stride);
    const std::int64_t src_at = (static_cast<const char*>(p.src) - static_cast<const char*>(w.src)) / std::int64_t(es);
    const std::int64_t dst_at = (static_cast<char*>(p.dst) - static_cast<char*>(w.dst)) / std::int64_t(es);
    EXPECT_EQ(src_at, item * w.stride + row * w.ld) << "item " << item << " row " << row;
    EXPECT_EQ(dst_at, (item * w.rows + row) * w.dst_ld) << "item " << item << " row " << row;
    if (p.batch > 1) EXPECT_EQ(p.rows, w.rows) << "a piece of several items takes them whole";
    row += p.rows;
    if (row == w.rows) row = 0, item += p.batch;
    else EXPECT_EQ(p.batch, 1);
  }
  EXPECT_EQ(item, w.batch);
  EXPECT_EQ(row, 0);
}

TEST(RowCopyPieces, CoverEveryRowOnceUnderTheLimit) {
  char src[1], dst[1];
  for (std::size_t es : {2u, 4u})
    for (std::int64_t max_vectors : {2, 3, 7, 64, 1000})
      for (std::int64_t cols : {1, 8, 9, 100})
        for (std::int64_t rows : {1, 5, 33})
          for (std::int64_t batch : {1, 4}) {
            const std::int64_t per_row = (cols + 16 / std::int64_t(es) - 1) / (16 / std::int64_t(es));
            if (per_row >= max_vectors) continue;
            SCOPED_TRACE(testing::Message() << es << "-byte, " << rows << " x " << cols << " x " << batch << ", limit "
                                            << max_vectors);
            expect_cover(RowCopy{src, cols + 3, rows * (cols + 3) + 7, rows, cols, batch, dst, cols + 16}, es,
                         max_vectors);
          }
}

TEST(RowCopyPieces, RefuseARowOfTooManyVectors) {
  char src[1], dst[1];
  EXPECT_THROW(row_copy_pieces(RowCopy{src, 64, 0, 2, 64, 1, dst, 64}, 2, 8), Error);
}

}  // namespace
}  // namespace gemmlab::detail
