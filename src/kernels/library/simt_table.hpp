// The compiled instantiations of the library's CUDA-core FP32 kernel (kernels/fp32/pipelined.cuh),
// in three tables built by three files so that they compile in parallel: simt_ladder.cu (the lab's
// FP32 ladder grid, packed NN), simt_plain.cu and simt_fused.cu (the model's five configurations in
// every layout, with the general and the fused epilogue). simt.cu chooses among them.
#pragma once

#include <cstddef>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/fp32/pipelined.cuh"

namespace gemmlab::detail {

struct SimtEntry {
  int tile_m = 0, tile_n = 0, thread_m = 0, stages = 0;
  int a_copy = 0, b_copy = 0;  // fp32::CopyPath
  int epi = 0;                 // fp32::EpiKind
  bool tail = false;           // the stream-K tail kernel is compiled
  int threads = 0;
  std::size_t smem_bytes = 0;
  int planned_blocks = 0;  // resident blocks per SM the launch bounds plan for
  const void* kernel = nullptr;
  const void* tail_kernel = nullptr;
  int (*prepare)() = nullptr;  // raises the shared-memory limits; returns resident blocks per SM
  void (*launch)(const fp32::PipelinedArgs&, const fp32::StoreArgs&, unsigned whole_tiles, int batch, int splits,
                 bool early_tail, cudaStream_t, bool early_start) = nullptr;
};

const std::vector<SimtEntry>& simt_entries_ladder();
const std::vector<SimtEntry>& simt_entries_plain();
const std::vector<SimtEntry>& simt_entries_fused();

// The entry of one instantiation (used by the three table files).
template <class Cfg>
SimtEntry simt_entry() {
  SimtEntry e;
  e.tile_m = Cfg::BM, e.tile_n = Cfg::BN, e.thread_m = Cfg::kTM, e.stages = Cfg::kStages;
  e.a_copy = Cfg::kACopy, e.b_copy = Cfg::kBCopy, e.epi = Cfg::kEpi, e.tail = Cfg::kStreamK;
  e.threads = Cfg::kThreads;
  e.smem_bytes = Cfg::kSmemBytes;
  e.planned_blocks = Cfg::kMinBlocks;
  e.kernel = reinterpret_cast<const void*>(&fp32::pipelined_gemm<Cfg>);
  if constexpr (Cfg::kStreamK) e.tail_kernel = reinterpret_cast<const void*>(&fp32::pipelined_tail_gemm<Cfg>);
  e.prepare = &fp32::prepare_pipelined<Cfg>;
  e.launch = &fp32::launch_pipelined<Cfg>;
  return e;
}

// The model's five configurations (simt.hpp) in all nine copy-path combinations of the four layouts
// (A: K-major, or M-major in 4- or 16-byte copies; B: K-major, or N-major in 4- or 16-byte copies)
// with epilogue EPI. Warps (m x n) and thread tile rows: 128x256 = 2 x 4 warps of 64x64 (16x8),
// 128x128 = 2 x 2 (16x8), 64x128 = 2 x 2 warps of 32x64 (8x8), 64x64 = 2 x 1 (8x8), 32x128 = 1 x 2
// (8x8). The stream-K
// tail is compiled for 128x256 with B N-major: with B K-major (16 transposing copies a stage, and
// their column mask) the tail kernel, at 254 registers in NN, spilled 8 to 28 bytes.
template <int EPI>
std::vector<SimtEntry> simt_library_entries() {
  using fp32::kDirect16;
  using fp32::kDirect4;
  using fp32::kTransposed;
  std::vector<SimtEntry> v;
  auto config = [&]<int WM, int WN, int TM, int ST, bool TAIL>() {
    auto add = [&]<int A, int B>() {
      v.push_back(simt_entry<fp32::PipelinedConfig<WM, WN, 16, ST, TM, A, B, EPI, TAIL && B != kTransposed>>());
    };
    add.template operator()<kTransposed, kDirect16>();
    add.template operator()<kTransposed, kDirect4>();
    add.template operator()<kTransposed, kTransposed>();
    add.template operator()<kDirect16, kDirect16>();
    add.template operator()<kDirect16, kDirect4>();
    add.template operator()<kDirect16, kTransposed>();
    add.template operator()<kDirect4, kDirect16>();
    add.template operator()<kDirect4, kDirect4>();
    add.template operator()<kDirect4, kTransposed>();
  };
  config.template operator()<2, 4, 16, 3, true>();
  config.template operator()<2, 2, 16, 3, false>();
  config.template operator()<2, 2, 8, 2, false>();
  config.template operator()<2, 1, 8, 2, false>();
  config.template operator()<1, 2, 8, 2, false>();
  return v;
}

}  // namespace gemmlab::detail
