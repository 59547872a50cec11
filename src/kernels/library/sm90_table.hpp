// The compiled instantiations of the library's Hopper 16-bit kernel (one table per operand and
// output type, built in the sm90_*.sm90a.cu files) and what a launch of one is planned with.
#pragma once

#include <cstddef>
#include <vector>

#include "api/problem.hpp"
#include "kernels/library/configs.hpp"
#include "kernels/library/launch.hpp"
#include "kernels/tensor/stream_k.hpp"

namespace gemmlab::detail {

// What sm90.cpp decides for a launch: the grid, the stream-K tail, the epilogue's paths.
struct Sm90Plan {
  std::int64_t grid_ctas = 0;
  tc::TailPlan tail;
  bool tma_store = false;    // D is TMA-addressable (the TMA epilogue may run when beta == 0)
  bool pair_stores = false;  // two adjacent outputs may be stored as one access
  int k_split = 0;           // split-K: k-tiles per slice (HopperArgs::k_split); 0: none
};

struct Sm90Entry {
  int tile_m = 0, tile_n = 0, cluster = 1;
  bool a_k_major = true, b_k_major = false, fused = false, grouped = false;
  bool stream_k = false;  // compiled with the stream-K tail
  const void* kernel = nullptr;
  std::size_t smem_bytes = 0;
  int threads = 0;
  void (*launch)(const Problem&, const Sm90Config&, const LaunchEnv&, const Sm90Plan&) = nullptr;
};

const std::vector<Sm90Entry>& sm90_entries_bf16_f32();
const std::vector<Sm90Entry>& sm90_entries_bf16_bf16();
const std::vector<Sm90Entry>& sm90_entries_f16_f32();
const std::vector<Sm90Entry>& sm90_entries_f16_f16();

}  // namespace gemmlab::detail
