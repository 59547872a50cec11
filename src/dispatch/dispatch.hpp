// Dispatch: which kernel, with which parameters, computes a problem. The choice lives here and
// only here: kernels take a named configuration and run it; they do not choose.
//
// For a normalised problem (api/problem.hpp), choose() lists the kernel families that can run it
// on this device (types, architecture, alignment, workspace), then takes the configuration from
// the dispatch table's nearest measured shape, or from each family's model where the table holds
// none, and ranks the candidates by the model's estimate. describe() says what was chosen and why.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "api/problem.hpp"
#include "dispatch/table.hpp"
#include "kernels/library/configs.hpp"
#include "kernels/library/launch.hpp"
#include "kernels/library/operand_copy.hpp"

namespace gemmlab::detail {

struct ContextImpl;

// A family's name (family_name) says where it runs and its scheme: "sm90.wgmma", and with the
// problem's types (describe) "sm90.wgmma.bf16.f32". Tables key their entries by it.
enum class Family {
  generic,     // kernels/library/generic.cu: any problem, CUDA cores
  simt,        // kernels/fp32/pipelined.cuh: FP32 on CUDA cores, cp.async pipeline
  sm90,        // kernels/tensor/hopper.cuh: BF16/FP16 on sm_90a (wgmma, TMA, warp specialisation)
  sm90_tf32,   // kernels/tensor/hopper_tf32.cuh: TF32 on sm_90a
  skinny,       // kernels/library/skinny.cuh: BF16/FP16/TF32 with at most 64 rows or columns of D (mma.sync, sm_90 clusters)
  skinny_simt,  // kernels/library/skinny_simt.cuh: FP32 operands, exact products, at most 16 rows or columns of D (CUDA cores)
  small,        // kernels/library/small.cuh: BF16/FP16 in 64x64 tiles (mma.sync), batches of small problems
};
const char* family_name(Family f);

// Why a choice was made; describe() turns it into words (choose() runs on every call, so it only
// records the facts).
enum class Why {
  table,            // the table's measured winner at a nearby shape (entry)
  model,            // the family's model, no table entry near
  batch_invariant,  // one configuration for every m
  fallback,         // the faster families cannot take the problem (fallback says why)
};

struct Choice {
  Family family = Family::generic;
  Sm90Config sm90;
  SimtConfig simt;
  Tf32Config tf32;
  SkinnyConfig skinny;
  std::size_t workspace_bytes = 0;
  CopyBlocks blocks;  // sm90, sm90_tf32: D in blocks, the operands' copies not fitting whole
  Why why = Why::model;
  const TableEntry* entry = nullptr;  // Why::table
  bool tail_here = false;             // Why::table: the entry's "no tail" replaced by the tail rule (choose_family)
  const TableEntry* entry_refused = nullptr;  // Why::model: the nearby entry whose configuration would not transfer
  std::string fallback;               // Why::fallback: what the faster families said
};

// Per-device preparation of every family (Context construction): shared-memory limits raised,
// resident blocks and clusters counted into `state`.
void prepare_kernels(DeviceState& state);

Choice choose(const ContextImpl& ctx, const Problem& p, std::size_t workspace_bytes);
// Every kernel family and configuration that can compute p with this workspace (the model's
// default configuration of each family, and for the tunable families their other configurations):
// what `gemmlab tune --table` times, and what the tests run one by one. For a batch-invariant
// problem, none with a stream-K tail (which depends on m).
std::vector<Choice> candidates(const ContextImpl& ctx, const Problem& p, std::size_t workspace_bytes);
// The split-K choice `pick` with its number of slices halved and doubled (same family and tiles;
// each the count the kernel runs, where it differs from the pick's), those of the two that can
// run p: what `gemmlab tune` times beside the candidates' grid, whose split counts stop at 8 while
// the models take up to 128, so that a split count is weighed against its neighbours. Nothing
// where `pick` does not split K.
std::vector<Choice> split_neighbours(const ContextImpl& ctx, const Problem& p, const Choice& pick,
                                     std::size_t workspace_bytes);
void execute(const Choice& c, const Problem& p, const LaunchEnv& env);
Plan describe(const Choice& c, const Problem& p);

// A choice's configuration as a table entry's fields (the inverse of reading one).
std::map<std::string, int> config_fields(const Choice& c);

// The table key of a problem's class: "bf16.f32", "tf32.f32", ...
std::string types_key(const Problem& p);

}  // namespace gemmlab::detail
