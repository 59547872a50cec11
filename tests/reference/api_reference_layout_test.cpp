// The host side of the API reference's test matrices (src/reference/api_reference.hpp): layouts,
// spans and element offsets as the public API describes them, and the tolerances. No GPU needed.
#include <gtest/gtest.h>

#include "reference/api_reference.hpp"

using namespace gemmlab;
using namespace gemmlab::apiref;

namespace {

TEST(ApiReferenceLayout, OperandLayoutsAreTheStoredMatrices) {
  // op(A) is 5 x 3: stored 5 x 3, or 3 x 5 when transposed; packed ld is the stored line length.
  const Layout rn = operand_layout(DataType::f32, Order::row_major, Op::none, 5, 3);
  EXPECT_EQ(rn.rows, 5);
  EXPECT_EQ(rn.cols, 3);
  EXPECT_EQ(rn.ld, 0);
  EXPECT_EQ(rn.resolved_ld(), 3);
  const Layout rt = operand_layout(DataType::f32, Order::row_major, Op::transpose, 5, 3);
  EXPECT_EQ(rt.rows, 3);
  EXPECT_EQ(rt.cols, 5);
  EXPECT_EQ(rt.resolved_ld(), 5);
  const Layout cn = operand_layout(DataType::bf16, Order::col_major, Op::none, 5, 3, 2);
  EXPECT_EQ(cn.ld, 7) << "column-major: columns of 5, padded by 2";
  EXPECT_EQ(cn.offset(0, 4, 2), 2 * 7 + 4);
  const Layout ct = operand_layout(DataType::f16, Order::col_major, Op::transpose, 5, 3);
  EXPECT_EQ(ct.resolved_ld(), 3);
}

TEST(ApiReferenceLayout, SpansAndBatchGaps) {
  Layout l = operand_layout(DataType::f32, Order::row_major, Op::none, 4, 6, 2);  // ld 8
  EXPECT_EQ(l.item_span(), 3 * 8 + 6);
  EXPECT_EQ(l.span(), 30);
  const Layout b = batched(l, 3, 5);
  EXPECT_EQ(b.batch_stride, 35);
  EXPECT_EQ(b.span(), 2 * 35 + 30);
  EXPECT_EQ(b.offset(2, 3, 5), 70 + 3 * 8 + 5);
  EXPECT_EQ(b.offset(2, 3, 5) + 1, b.span()) << "the last element ends the span";
  const Layout shared = batched(l, 3, 5, true);
  EXPECT_EQ(shared.batch, 1);
  EXPECT_EQ(shared.batch_stride, 0);
  EXPECT_EQ(batched(l, 1, 5).batch_stride, 0);
  Layout empty = l;
  empty.rows = 0;
  EXPECT_EQ(empty.span(), 0);
}

TEST(ApiReferenceLayout, TolerancesFollowThePrecision) {
  const Tolerance f32 = tolerance_for(DataType::f32, DataType::f32, Compute::f32);
  const Tolerance tf32 = tolerance_for(DataType::f32, DataType::f32, Compute::tf32);
  const Tolerance bf16_f32 = tolerance_for(DataType::bf16, DataType::f32, Compute::f32);
  const Tolerance bf16 = tolerance_for(DataType::bf16, DataType::bf16, Compute::f32);
  const Tolerance f16 = tolerance_for(DataType::f16, DataType::f16, Compute::tf32);  // tf32 ignored
  // TF32's errors (1e-4 .. 1e-3) must fail exact FP32; 16-bit outputs are looser than FP32 outputs.
  EXPECT_LT(f32.rel_frobenius, 1e-4);
  EXPECT_LT(f32.elementwise, 1e-4);
  EXPECT_GT(tf32.rel_frobenius, 1e-3);
  EXPECT_LT(bf16_f32.rel_frobenius, bf16.rel_frobenius);
  EXPECT_EQ(f16.rel_frobenius, gemmlab::tolerance_for(Precision::fp16).rel_frobenius);
}

}  // namespace
