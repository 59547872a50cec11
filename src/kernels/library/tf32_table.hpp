// The compiled instantiations of the library's TF32 kernel (tf32.sm90a.cu) and a launch's plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "api/problem.hpp"
#include "kernels/library/configs.hpp"
#include "kernels/library/launch.hpp"
#include "kernels/tensor/stream_k.hpp"

namespace gemmlab::detail {

struct Tf32Plan {
  std::int64_t grid_ctas = 0;
  tc::TailPlan tail;
  bool tma_store = false;
  float* stream_k = nullptr;  // the tail's partial sums (in the workspace)
  int k_split = 0;            // split-K: k-tiles per slice (Tf32Args::k_split); 0: none
  bool d_col_major = false;   // D and C column-major (Tf32Args::d_col_major; tma_store then stores D's columns)
};

struct Tf32Entry {
  int tile_m = 256;  // the tile's rows (tc::sm90::Tf32TileOf)
  int cluster = 1;
  bool b_k_major = false, fused = false;
  const void* kernel = nullptr;
  std::size_t smem_bytes = 0;
  int threads = 0;
  void (*launch)(const Problem&, const Tf32Config&, const LaunchEnv&, const Tf32Plan&) = nullptr;
};

const std::vector<Tf32Entry>& tf32_entries();

}  // namespace gemmlab::detail
