// The library's skinny kernels as dispatch sees them: GEMMs whose D has at most 64 rows or at most
// 64 columns (decode steps, GEMVs, projections to a few outputs), on sm_90. Two forms: mma.sync
// (skinny.cuh, `sm90.skinny_mma`; with SkinnyConfig::bulk, fed by TMA stages, skinny_bulk.cuh), and
// CUDA cores for exact FP32 products with at most 16 (skinny_simt.cuh, `sm90.skinny_simt`, at the
// end of this file).
//
// What it computes: BF16 and FP16 operands with D in their type or f32, and FP32 operands with D
// in f32 where the call allows TF32 (Compute::tf32); not grouped,
// k a multiple of a 16-byte vector (8 or 4 elements), any layout of A and B: the long operand,
// streamed with 16-byte loads, needs a pointer, leading dimension and batch stride of 16-byte
// multiples (and, stored along its long side, that side a multiple of 8); the short one is read
// K-major in 16-byte rows, and copied so into the workspace when stored otherwise, except that the
// register path reads an MN-major one of at most 16 columns as it is, element by element (FP32
// operands: over a big-major W only). Strided batches (broadcast operands included), C apart from
// D or D itself, alpha and beta as values or device pointers, and the fused bias and activation
// (epilogue.cuh). Its split of k is a cluster's, or the TMA-fed form's persistent grid's (partial
// sums through the workspace): sums add in a fixed order, so results are reproducible run to run.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "api/problem.hpp"
#include "kernels/library/configs.hpp"
#include "kernels/library/launch.hpp"

namespace gemmlab::detail {

// Once per Context: the TMA-fed form's shared-memory allowance, then the CTAs of each skinny kernel
// resident at once on the GPU in clusters of 1 to kSkinnyMaxSplits (its split of k) into
// state.skinny_resident.
void prepare_skinny(DeviceState& state);
// state.skinny_resident holds kSkinnyMaxSplits counts for each of kSkinnyKernels kernels, the
// kernel's at skinny_resident[index * kSkinnyMaxSplits + splits - 1], its index one of these: the
// mma.sync form's by its groups of 8 columns (mt: 1, 2, 4, 8), FP32 operands (wide) and the
// operands' layouts; the CUDA-core form's by its columns (S: 1, 2, 4, 8, 16) and W's layout; the
// TMA-fed form's by mt (its shared memory and threads depend on nothing else).
inline constexpr int kSkinnyMaxSplits = 8;  // the portable cluster size
// 4 mt x width x W layout x X layout, then 5 S x W layout, then the TMA-fed form's 4 mt.
inline constexpr std::size_t kSkinnyMmaKernels = 32, kSkinnySimtKernels = 10,
                             kSkinnyKernels = kSkinnyMmaKernels + kSkinnySimtKernels + 4;
std::size_t skinny_mma_kernel_index(int mt, bool wide, bool w_kmajor, bool x_kmajor);
std::size_t skinny_simt_kernel_index(int s, bool w_kmajor);
std::size_t skinny_bulk_kernel_index(int mt);

std::optional<std::string> skinny_reject(const Problem& p, const SkinnyConfig& c, const DeviceState& state,
                                         std::size_t workspace_bytes);
// The workspace of the copy of the short operand, when it is not K-major in 16-byte rows and the
// form cannot read it as stored (the register path reads most MN-major ones of at most 16 columns),
// then the persistent grid's partial sums (SkinnyConfig::persistent; two slots a CTA, its CTAs
// the GPU's SMs, or `splits` a tile).
std::size_t skinny_workspace_bytes(const Problem& p, const SkinnyConfig& c, const DeviceState& state);
void launch_skinny(const Problem& p, const SkinnyConfig& c, const LaunchEnv& env);

// Whether the problem is the kernel's kind at all (a side of D at most 64).
bool skinny_shape(const Problem& p);
// Whether dispatch tries it before the tile kernels, where it measured faster (docs/shapes.md):
// a decode step (m <= 16 against a long operand of at least 1024 rows and k; past 256 MiB of
// W in the TMA-fed form, which also takes n <= 8 against as much, and m <= 8 against a 16-bit W
// of 512 to 2048 rows with a long k), or
// one problem of at most 256 on the long side with k at least 32 times that. Elsewhere the tile
// kernel won: with 17 to 64 short-side columns each warp's X fragments cost it as many bytes as its
// W; a short n (16384 x 8 x 16384) reads a K-major A in 64-byte pieces of rows far apart; a larger
// W streams faster through the tile kernel's deeper pipeline; batches of small problems.
bool skinny_first(const Problem& p);

// Splits of k that fill the GPU with CTAs while each warp keeps a few k-steps, and the TMA-fed
// form where bulk_first says (skinny.cu); batch_invariant problems are not taken (the
// kernel's choice depends on m).
// `workspace_bytes`: the call's, which the persistent grid's partial sums must fit.
SkinnyConfig skinny_model_choice(const Problem& p, const DeviceState& state,
                                 std::size_t workspace_bytes = std::numeric_limits<std::size_t>::max());
std::vector<SkinnyConfig> skinny_configs();

// The CUDA-core form: FP32 operands (products exact in FP32 whether or not the call allows TF32)
// and D in f32, at most 16 rows or columns of D, the same operands, layouts, batches, epilogue,
// split of k over a cluster and fixed order of sums as the mma.sync form; k a multiple of 4, and a
// long operand stored along its long side needs that side a multiple of 4.
bool skinny_simt_shape(const Problem& p);
// Tried first for FP32 operands with at least a million elements of W an item: with at most 16
// columns the tile kernels multiply mostly padding. Where the call allows TF32, only with at most
// 4 columns; elsewhere the tensor-core kernels measured faster (docs/shapes.md).
bool skinny_simt_first(const Problem& p);
std::optional<std::string> skinny_simt_reject(const Problem& p, const SkinnyConfig& c, const DeviceState& state,
                                              std::size_t workspace_bytes);
std::size_t skinny_simt_workspace_bytes(const Problem& p);
void launch_skinny_simt(const Problem& p, const SkinnyConfig& c, const LaunchEnv& env);
SkinnyConfig skinny_simt_model_choice(const Problem& p, const DeviceState& state);

}  // namespace gemmlab::detail
