#include "support/device_models.hpp"

#include <array>
#include <cstddef>

#include "kernels/library/simt.hpp"
#include "kernels/library/skinny.hpp"

namespace gemmlab::test {

using detail::DeviceState;

namespace {

// The skinny kernels' CTAs resident at once in clusters of 1 to 8 (cudaOccupancyMaxActiveClusters
// on an H200, 132 SMs as the H100's): fewer than the SMs times a kernel's CTAs an SM once a
// cluster has 3 or more, as a cluster's CTAs share a GPC.
std::array<int, detail::kSkinnyMaxSplits> clustered(int per_sm) {
  switch (per_sm) {
    case 6: return {792, 792, 744, 744, 730, 744, 707, 736};
    case 5: return {660, 660, 609, 616, 620, 606, 588, 616};
    case 4: return {528, 528, 489, 496, 470, 474, 483, 496};
    case 3: return {396, 396, 372, 368, 345, 372, 329, 360};
    case 2: return {264, 264, 237, 248, 235, 234, 224, 240};
    default: return {132, 132, 117, 120, 110, 102, 105, 120};
  }
}

void set_resident(DeviceState& s, std::size_t kernel, int per_sm) {
  const auto ctas = clustered(per_sm);
  for (std::size_t i = 0; i < ctas.size(); ++i) s.skinny_resident[kernel * detail::kSkinnyMaxSplits + i] = ctas[i];
}

}  // namespace

// The CTAs an SM of each kernel (by its registers) as the H200 reports them.
void set_skinny_resident(DeviceState& s) {
  using namespace detail;
  s.skinny_resident.assign(kSkinnyKernels * kSkinnyMaxSplits, 0);
  struct Mma {
    int mt;
    bool wide, w_kmajor, x_kmajor;
    int per_sm;
  };
  const Mma mma[] = {{1, false, false, true, 6}, {1, false, false, false, 5}, {1, false, true, true, 4},
                     {1, false, true, false, 4}, {2, false, false, true, 4}, {2, false, false, false, 4},
                     {2, false, true, true, 3},  {2, false, true, false, 3}, {4, false, false, true, 4},
                     {4, false, true, true, 4},  {8, false, false, true, 3}, {8, false, true, true, 2},
                     {1, true, false, true, 5},  {1, true, false, false, 4}, {1, true, true, true, 4},
                     {2, true, false, true, 4},  {2, true, false, false, 4}, {2, true, true, true, 3},
                     {4, true, false, true, 4},  {4, true, true, true, 4},   {8, true, false, true, 3},
                     {8, true, true, true, 2}};
  for (const Mma& k : mma) set_resident(s, skinny_mma_kernel_index(k.mt, k.wide, k.w_kmajor, k.x_kmajor), k.per_sm);
  for (bool w_kmajor : {false, true})
    for (int cols : {1, 2, 4, 8, 16}) set_resident(s, skinny_simt_kernel_index(cols, w_kmajor), 2);
  // The TMA-fed form: one CTA an SM (its shared memory).
  for (int mt : {1, 2, 4, 8}) set_resident(s, skinny_bulk_kernel_index(mt), 1);
}

DeviceState hopper_model(const std::string& name, bool with_simt) {
  DeviceState s;
  s.props.name = name;
  s.props.sm_count = 132;
  s.props.l2_bytes = std::size_t(50) << 20;
  s.cc = 90;
  s.sm90_resident = {132, 66, 132, 132, 132, 66, 132, 132, 132};  // sm90.cpp's kTiles
  s.tf32_resident = {132, 66, 132, 66, 132};
  set_skinny_resident(s);
  if (with_simt) {
    s.props.smem_per_block_optin = 232448;
    detail::assume_simt_occupancy(s);
  }
  return s;
}

}  // namespace gemmlab::test
