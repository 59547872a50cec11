// Hopper GPUs as dispatch sees them, for tests without a GPU: the facts a Context measures when it
// is made (SMs, L2, the resident CTAs of each kernel configuration), written down from an H100
// and an H200 (both 132 SMs and 50 MiB of L2). A model, not a measurement: where a real Context
// would measure differently, the real GPU's choice differs too.
#pragma once

#include <string>

#include "kernels/library/launch.hpp"

namespace gemmlab::test {

// The skinny kernels' resident CTAs in clusters of each split of k (skinny.hpp's layout).
void set_skinny_resident(detail::DeviceState& s);

// An H100 or H200 named `name`: SMs, L2, compute capability, the resident CTAs of the Hopper,
// TF32 and skinny kernels; the FP32 kernel's as its launch bounds plan (assume_simt_occupancy)
// when `with_simt` is set.
detail::DeviceState hopper_model(const std::string& name, bool with_simt);

}  // namespace gemmlab::test
