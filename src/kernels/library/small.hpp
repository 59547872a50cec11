// The library's small-tile kernel as dispatch sees it (small.cuh, `sm80.mma_small`): BF16 and FP16
// operands with D in their type or f32, 64 x 64 tiles of D on mma.sync, for batches of small
// problems. Any m, n, k >= 1 and batch, every layout (each operand read K-major or MN-major as it is
// stored), broadcast operands, C apart from D or D itself, alpha and beta as values or device
// pointers, the fused bias and activation. Each operand's pointer, leading dimension and batch
// stride must be 16-byte multiples (it is copied as it is stored, 16 bytes at a time), and the
// leading dimensions of A, B and D at most 33554430 elements (offsets inside a tile are 32-bit);
// not grouped; sm_80 or later. Reproducible: each tile sums its k in one fixed order.
#pragma once

#include <optional>
#include <string>

#include "api/problem.hpp"
#include "kernels/library/launch.hpp"

namespace gemmlab::detail {

// Once per Context: the kernel's resident CTAs per SM into state.small_resident.
void prepare_small(DeviceState& state);

std::optional<std::string> small_reject(const Problem& p, const DeviceState& state);
void launch_small(const Problem& p, const LaunchEnv& env);

// Whether dispatch tries it before the Hopper kernel: a batch of at least one problem per SM whose
// D has at most 64 rows and 64 columns (the 128 x 128 tile would be 3/4 padding or more). Not for
// batch-invariant calls: the choice depends on m.
bool small_first(const Problem& p, const DeviceState& state);

}  // namespace gemmlab::detail
