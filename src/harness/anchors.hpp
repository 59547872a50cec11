// The baselines of `gemmlab bench`: the same public-API call made through cuBLAS or cuBLASLt, with
// the same types, layouts, batch and epilogue, in the same process and on the same stream.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gemmlab/gemm.hpp"
#include "harness/lab.hpp"

namespace gemmlab::anchor {

struct Anchor {
  std::string name;            // "cublasGemmEx", "cublasLt GELU_BIAS", ...
  std::function<void()> run;   // enqueues the call on the lab's stream
  std::shared_ptr<void> state; // whatever the call needs kept alive (handles, pointer arrays)
};

// cublasGemmEx / cublasGemmStridedBatchedEx for a plain call, cublasLtMatmul for a call with a
// fused epilogue (a per-column bias and ReLU or GELU: what cuBLASLt offers). alpha and beta must be
// host values. Throws Unsupported when cuBLAS has no equivalent.
Anchor cublas_for(Lab& lab, const Gemm& g);

// cublasGemmGroupedBatchedEx: one cuBLAS group per non-empty group, sizes from `offsets` (the
// host copy of g.offsets). Row-major D only (as the API's grouped calls).
Anchor cublas_grouped_for(Lab& lab, const GroupedGemm& g, const std::vector<std::int32_t>& offsets);

}  // namespace gemmlab::anchor
