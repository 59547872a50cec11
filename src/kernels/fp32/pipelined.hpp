// The lab's view of the pipelined FP32 kernel (pipelined.cuh), which the library compiles and
// launches (kernels/library/simt.hpp): ladder steps 5-9 (async, raster, splitk, streamk, tuned) are
// thin kernels over this. A step names a configuration (PipelinedChoice); these functions run it on
// the lab's packed row-major NN problems through the library's launcher.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "core/types.hpp"
#include "kernels/fp32/stream_k_tail.hpp"
#include "kernels/kernel.hpp"
#include "kernels/library/configs.hpp"

namespace gemmlab::detail {
struct DeviceState;
}

namespace gemmlab::fp32 {

// One compiled configuration: with 8-row thread tiles, tile_m x tile_n in {64, 128} x {64, 128},
// 256 x 128 or 128 x 256 (512 threads); with 16-row thread tiles 128 x 128 (128 threads), 128 x 256
// and 256 x 128 (256 threads); stages in {2, 3, 4};
// the 16-byte B path is chosen at launch from the shape and the pointers.
struct PipelinedChoice {
  int tile_m = 128, tile_n = 128, stages = 3;
  int thread_m = 8;  // rows of the thread tile (8 or 16; 16 with tiles 128x128, 128x256, 256x128)
  int group_m = 0;  // rasterisation group (0: row by row)
  int splits = 1;   // split-K factor (1: none)
  int stream_k = 0;  // stream-K tail for a partial last wave (TailMode: 0 off, 1 when the model gains, 2 always);
                     // only without split-K, compiled for 128x256 with 16-row thread tiles and 3 stages
  bool early_tail = true;  // the tail's blocks start on the SMs the whole tiles free (programmatic dependent
                           // launch, sm_90+), rather than after the last whole tile
};

std::string to_string(const PipelinedChoice& c);
detail::SimtConfig simt_config(const PipelinedChoice& c);
PipelinedChoice pipelined_choice(const detail::SimtConfig& c);  // early_tail on

// The library's facts about the GPU a lab call without an ExecContext plans for (the current
// device; without a GPU, an H100's 132 SMs and the occupancy the launch bounds plan for).
const detail::DeviceState& lab_device_state();

// Threads and dynamic shared memory of a configuration's blocks.
int pipelined_threads(const PipelinedChoice& c);
std::size_t pipelined_smem_bytes(const PipelinedChoice& c);

// The launch that does most of a shape's work, for the occupancy and profiler analyses: the
// whole-tile kernel, or the stream-K tail's when the tail has more tiles than the rest.
struct PipelinedMainLaunch {
  const void* function;
  dim3 grid;
};
PipelinedMainLaunch pipelined_main_launch(const PipelinedChoice& c, const Shape& s, bool b_vec);

// The stream-K tail a launch of this configuration uses on this GPU (tail.tiles == 0: none).
StreamKTail pipelined_tail(const PipelinedChoice& c, const Shape& s);

// Scratch memory for split-K partial sums, or for the stream-K tail's.
std::size_t pipelined_workspace_bytes(const PipelinedChoice& c, const Shape& s);

bool pipelined_compiled(const PipelinedChoice& c);
// Why this configuration cannot run on this shape (not compiled, grid limits), or nothing.
std::optional<std::string> pipelined_reject(const PipelinedChoice& c, const Shape& s, const DeviceInfo& dev);

// C = alpha A B + beta C with configuration c, on ctx.stream, with ctx.workspace (at least
// pipelined_workspace_bytes) and the stream-K counters of the stream.
void launch_pipelined(const PipelinedChoice& c, const GemmArgs& g, const ExecContext& ctx);

// Global loads the configuration issues (for the traffic model): each block reads its A and B panels.
double pipelined_global_loads(const PipelinedChoice& c, const Shape& s);

}  // namespace gemmlab::fp32
