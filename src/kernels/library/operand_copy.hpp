// Copies of an operand the TMA cannot address (a pointer, leading dimension or batch stride that
// is not a 16-byte multiple: odd K or N, a sub-matrix view), for the tensor-core families: the
// stored matrix copied into the workspace with rows of a 16-byte multiple. The tensor maps keep
// the true K and N, so the engine reads zeros past them whatever the padding holds.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "api/problem.hpp"

namespace gemmlab::detail {

// The copy of one operand: `items` matrices of rows x cols (rows of the stored operand: m or n
// when K-major, k otherwise), into rows of ld elements; `needed` false when the TMA can read it
// in place.
struct OperandCopy {
  bool needed = false;
  std::int64_t rows = 0, cols = 0, items = 0, ld = 0;
  std::size_t bytes = 0;  // a multiple of 256
};
OperandCopy copy_of(const Operand& o, std::int64_t rows_k_major, std::int64_t k, std::int64_t items,
                    std::size_t elem_bytes);

// Enqueues the copy of `o` at `at` and returns the operand the kernel reads in its place.
Operand launch_operand_copy(const Operand& o, const OperandCopy& c, void* at, std::size_t elem_bytes,
                            cudaStream_t stream);

}  // namespace gemmlab::detail
