#include "kernels/tensor/tma.hpp"

#include <mutex>

#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab::tc {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    GEMMLAB_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || !p)
      throw Error("the CUDA driver does not provide cuTensorMapEncodeTiled (TMA needs driver 525 or newer)");
    fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  });
  return fn;
}

CUtensorMapDataType tma_type(DType t) {
  switch (t) {
    case DType::f32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::f64: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case DType::bf16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::f16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

CUtensorMapSwizzle cu_swizzle(Swizzle s) {
  return s == Swizzle::b128 ? CU_TENSOR_MAP_SWIZZLE_128B : s == Swizzle::b64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_NONE;
}

CUtensorMapL2promotion cu_promotion(L2Promotion p) {
  return p == L2Promotion::b128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
}

}  // namespace

CUtensorMap make_tensor_map_2d(const void* base, DType t, std::int64_t rows, std::int64_t cols, int box_rows,
                               int box_cols, Swizzle swizzle) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};  // innermost first
  const cuuint64_t strides[1] = {cuuint64_t(cols) * dtype_size(t)};  // bytes between rows
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = encode_fn()(&map, tma_type(t), 2, const_cast<void*>(base), dims, strides, box, elem_strides,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 cu_swizzle(swizzle),
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error(fmt::format("cuTensorMapEncodeTiled failed (CUresult {}) for a {} x {} {} matrix, box {} x {}", int(r),
                            rows, cols, dtype_name(t), box_rows, box_cols));
  return map;
}

CUtensorMap make_tensor_map_3d(const void* base, DType t, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                               std::int64_t depth, std::int64_t stride, int box_rows, int box_cols, Swizzle swizzle,
                               L2Promotion promotion) {
  CUtensorMap map{};
  const std::size_t es = dtype_size(t);
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(depth)};  // innermost first
  // With one matrix the third stride is unused, but must still be valid: one past the matrix.
  const cuuint64_t strides[2] = {cuuint64_t(ld) * es, cuuint64_t(depth > 1 ? stride : ld * rows) * es};
  const cuuint32_t box[3] = {cuuint32_t(box_cols), cuuint32_t(box_rows), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = encode_fn()(&map, tma_type(t), 3, const_cast<void*>(base), dims, strides, box, elem_strides,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 cu_swizzle(swizzle),
                                 cu_promotion(promotion), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error(fmt::format("cuTensorMapEncodeTiled failed (CUresult {}) for {} {} x {} {} matrices (ld {}, stride {}), "
                            "box {} x {}", int(r), depth, rows, cols, dtype_name(t), ld, stride, box_rows, box_cols));
  return map;
}

bool tma_layout_ok(const void* base, std::size_t element_bytes, std::int64_t rows, std::int64_t ld, std::int64_t depth,
                   std::int64_t stride) {
  const auto p = reinterpret_cast<std::uintptr_t>(base);
  if (p % 16 != 0 || (ld * element_bytes) % 16 != 0 || ld * element_bytes >= (std::int64_t(1) << 40)) return false;
  if (depth > 1 && ((stride * element_bytes) % 16 != 0 || stride < ld * rows ||
                    stride * element_bytes >= (std::int64_t(1) << 40)))
    return false;
  return rows <= (std::int64_t(1) << 31) && depth <= (std::int64_t(1) << 31);
}

}  // namespace gemmlab::tc
