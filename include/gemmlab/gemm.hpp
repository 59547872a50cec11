// GEMM problems and the calls that compute them.
//
//   D = act(alpha * op(A) * op(B) + beta * C + bias)
//
// op(A) is m x k, op(B) is k x n, C and D are m x n. Each matrix is a device pointer plus how it is
// stored (Matrix): element type, row- or column-major order, leading dimension, and for batched
// calls the distance between batch items. A call validates everything it can on the host, picks a
// kernel (dispatch), and enqueues it on the caller's stream: it does not allocate, synchronise or
// copy between host and device, so it can be captured into a CUDA graph.
//
// Type combinations offered (A and B share a type; C, D and the bias share one):
//   A, B   | C, D                | compute
//   f32    | f32                 | f32 (exact FP32 products) or tf32 (when the caller allows it)
//   bf16   | f32 or bf16         | FP32 accumulation on tensor cores
//   f16    | f32 or f16          | FP32 accumulation on tensor cores
// FP8 (e4m3, e5m2) is named in DataType and each Matrix carries a scale pointer for it, but no FP8
// call is offered yet: such a call throws Unsupported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "gemmlab/context.hpp"
#include "gemmlab/types.hpp"

namespace gemmlab {

// An input matrix in device memory.
struct Matrix {
  const void* data = nullptr;
  DataType type = DataType::f32;
  Order order = Order::row_major;
  // Elements between the starts of consecutive rows (row-major) or columns (column-major); at least
  // the stored row length (or column length). 0: packed, exactly that length.
  std::int64_t ld = 0;
  // Batched calls: elements between batch item i and i + 1. 0 gives every item the same matrix.
  std::int64_t batch_stride = 0;
  // Reserved for FP8: a device pointer to this operand's scale factor(s). Must be null today.
  const float* scale = nullptr;
};

// The output matrix D: as Matrix, but written.
struct MatrixOut {
  void* data = nullptr;
  DataType type = DataType::f32;
  Order order = Order::row_major;
  std::int64_t ld = 0;
  std::int64_t batch_stride = 0;  // must be non-zero when batch > 1
};

// alpha or beta: a value known on the host, or a device pointer read when the kernel runs (so that
// a captured graph can be replayed with new values, or a value computed on the GPU used directly).
struct Scalar {
  float value = 0.0f;
  const float* device = nullptr;  // when set, *device is used and value is ignored
  Scalar(float v = 0.0f) : value(v) {}
  static Scalar on_device(const float* p) {
    Scalar s;
    s.device = p;
    return s;
  }
};

// Work fused into the kernel after the product, before D is written.
struct Epilogue {
  BiasKind bias_kind = BiasKind::none;
  // Device pointer: m values (per_row) or n values (per_column).
  const void* bias = nullptr;
  // The bias vector's type: f32, or D's type (the default).
  std::optional<DataType> bias_type;
  // Batched and grouped calls: elements between the bias vectors of consecutive batch items (or
  // groups, for a per-column bias). 0: one vector for all.
  std::int64_t bias_batch_stride = 0;
  Activation activation = Activation::none;
};

// One GEMM, or a batch of `batch` GEMMs of the same shape (strided batched GEMM): item i reads
// A + i * a.batch_stride, B + i * b.batch_stride, C + i * c.batch_stride and writes
// D + i * d.batch_stride.
struct Gemm {
  std::int64_t m = 0, n = 0, k = 0;  // each >= 1
  Matrix a, b;
  Op op_a = Op::none, op_b = Op::none;
  // Read only when beta != 0 (it may then be D itself: same pointer, order, ld and batch stride).
  Matrix c;
  MatrixOut d;
  Scalar alpha = 1.0f, beta = 0.0f;
  Epilogue epilogue;
  std::int64_t batch = 1;
  Compute compute = Compute::f32;
  Determinism determinism = Determinism::reproducible;
};

// Grouped GEMM (mixture-of-experts layers): `groups` problems that share n, k and the types and
// differ in m. The groups' rows of op(A), C and D are stacked: group g owns rows
// [offsets[g - 1], offsets[g]) (offsets[-1] = 0), where `offsets` is a device array of `groups`
// non-decreasing int32 values, at most m: the convention of torch._grouped_mm, so that routing
// computed on the GPU never travels to the host. Empty groups are allowed; rows after
// offsets[groups - 1] are not written. Group g multiplies by B_g = B + g * b.batch_stride.
// Offsets that decrease or exceed m cannot be checked without a synchronisation: the kernels treat
// such a group as empty (and Context::Options::check_device_arguments checks them on the host).
struct GroupedGemm {
  int groups = 0;
  const std::int32_t* offsets = nullptr;
  std::int64_t m = 0;  // rows of op(A), C and D: all groups, plus any unused rows at the end
  std::int64_t n = 0, k = 0;
  Matrix a, b;         // op(A): m x k; op(B_g): k x n
  Op op_a = Op::none, op_b = Op::none;
  Matrix c;            // m x n, read only when beta != 0 (may be D)
  MatrixOut d;         // m x n, row-major
  Scalar alpha = 1.0f, beta = 0.0f;
  Epilogue epilogue;   // a per-column bias may differ per group (bias_batch_stride); per-row: m values
  Compute compute = Compute::f32;
  Determinism determinism = Determinism::reproducible;
};

// What a call will run, and why: the kernel and its parameters that dispatch chose, the scratch it
// uses, and the rule or table entry that decided.
struct Plan {
  std::string kernel;   // e.g. "sm90_warpspecialized.bf16"
  std::string config;   // e.g. "tile=128x256 cluster=1 stages=4 group=8 stream_k=off layout=NN"
  std::string reason;   // e.g. "table h100: nearest entry 4096x4096x4096"
  std::size_t workspace_bytes = 0;
};

// Computes the problem on `stream` (nullptr: the legacy default stream). Throws InvalidArgument
// or Unsupported before anything is enqueued, so D is untouched when a call is refused; Error if
// CUDA refuses the launch. Uses `workspace`, or the context's own when null.
GEMMLAB_API void gemm(const Context& ctx, const Gemm& problem, Stream stream = nullptr, Workspace* workspace = nullptr);
GEMMLAB_API void gemm(const Context& ctx, const GroupedGemm& problem, Stream stream = nullptr, Workspace* workspace = nullptr);

// The plan gemm() would follow for this problem: every argument is validated as gemm() validates
// it, but the memory the pointers name is not examined (plan() never touches it, so a problem
// can be planned before its buffers exist, with placeholder addresses, as `gemmlab explain` does);
// gemm() also refuses memory the GPU cannot read. Nothing is launched.
GEMMLAB_API Plan plan(const Context& ctx, const Gemm& problem, const Workspace* workspace = nullptr);
GEMMLAB_API Plan plan(const Context& ctx, const GroupedGemm& problem, const Workspace* workspace = nullptr);

}  // namespace gemmlab
