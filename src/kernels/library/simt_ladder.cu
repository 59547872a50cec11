// The lab's FP32 ladder (steps 5 to 9) on the library's CUDA-core FP32 kernel: packed row-major NN
// problems with the epilogue of old (fp32::kEpiPacked), in every configuration the ladder's
// parameters reach: tiles 64/128 x 64/128, 256x128 and 128x256 with 8x8 thread tiles; 128x128,
// 128x256 and 256x128 with 16x8; 2, 3 or 4 stages; 16- or 4-byte B copies. The stream-K tail is
// compiled for 128x256 (16x8, 3 stages), the only configuration that runs it (fp32.streamk,
// fp32.tuned). The library runs these too, for packed NN problems without the general epilogue's
// needs (simt.cu): the same code as the measured ladder kernels.
#include "kernels/library/simt_table.hpp"

#pragma nv_diag_suppress 445

namespace gemmlab::detail {

namespace {

std::vector<SimtEntry> ladder_entries() {
  using fp32::kDirect16;
  using fp32::kDirect4;
  using fp32::kEpiPacked;
  using fp32::kTransposed;
  std::vector<SimtEntry> v;
  auto shape = [&]<int WM, int WN, int TM>() {
    auto stages = [&]<int ST>() {
      constexpr bool tail = WM == 2 && WN == 4 && TM == 16 && ST == 3;
      v.push_back(simt_entry<fp32::PipelinedConfig<WM, WN, 16, ST, TM, kTransposed, kDirect16, kEpiPacked, tail>>());
      v.push_back(simt_entry<fp32::PipelinedConfig<WM, WN, 16, ST, TM, kTransposed, kDirect4, kEpiPacked, tail>>());
    };
    stages.template operator()<2>();
    stages.template operator()<3>();
    stages.template operator()<4>();
  };
  // 8x8 thread tiles (warp tiles of 32 x 64): 128x128, 256x128, 128x256, 128x64, 64x128, 64x64.
  shape.template operator()<4, 2, 8>();
  shape.template operator()<8, 2, 8>();
  shape.template operator()<4, 4, 8>();
  shape.template operator()<4, 1, 8>();
  shape.template operator()<2, 2, 8>();
  shape.template operator()<2, 1, 8>();
  // 16x8 (warp tiles of 64 x 64): 256x128, 128x256, 128x128.
  shape.template operator()<4, 2, 16>();
  shape.template operator()<2, 4, 16>();
  shape.template operator()<2, 2, 16>();
  return v;
}

}  // namespace

const std::vector<SimtEntry>& simt_entries_ladder() {
  static const std::vector<SimtEntry> entries = ladder_entries();
  return entries;
}

}  // namespace gemmlab::detail
