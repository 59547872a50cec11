// What a sweep will measure, decided before anything runs: the product of kernels, parameter
// values, shapes and precisions, expanded into a list of items. Every item is either measured or,
// when the kernel cannot run it (a parameter value it does not allow, reject(), a shape limit,
// the slow-kernel size limit, device memory), carries the reason it is skipped: the sweep records
// skipped items instead of dropping them silently.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device.hpp"
#include "core/fill.hpp"
#include "harness/run.hpp"
#include "kernels/kernel.hpp"
#include "results/identity.hpp"

namespace gemmlab {

// The values a sweep gives one parameter: a list, or every value the kernel allows ("all").
struct ParamChoice {
  std::vector<int> values;
  bool all = false;
};

struct SweepSpec {
  std::map<std::string, ParamChoice> params;  // by parameter name ("block", "outputs", ...)
  bool all_params = false;  // parameters not named above: every allowed value (default: the kernel's default)
  std::vector<Shape> shapes;
  std::string output = "f32";  // type of C: "f32", "same" (the operand type) or a type name, per kernel
  TimingPlan timing;
  Init init = Init::uniform;
  std::uint64_t seed = 1;
  std::int64_t slow_limit = 1024;  // KernelInfo::slow kernels run only while max(M, N, K) <= this
  bool compare_cublas = true;      // measure cuBLAS once per (precision, output, shape) for ratios
};

struct SweepItem {
  const Kernel* kernel = nullptr;
  Params params;  // every declared parameter (the default filled in), or as given when not allowed
  Precision precision = Precision::fp32;
  DType output = DType::f32;
  Shape shape;
  bool baseline = false;                   // a cuBLAS item: its time is the reference for ratios
  std::optional<std::string> skip_reason;  // set: recorded as skipped with this reason, never run
  std::string key;                         // identity in result files (config_key), for --resume
  std::string baseline_key;                // key of the cuBLAS item this one is compared to ("" if none)
};

// Kernels matching any of the patterns (ids, families, globs; Registry::select) whose precision
// is one of `precisions` (all when empty), in catalogue order without repeats. Throws Error when
// a pattern matches nothing or nothing is left.
std::vector<const Kernel*> select_kernels(const std::vector<std::string>& patterns,
                                          const std::vector<Precision>& precisions);

// Checks that need no GPU: every named parameter exists in some selected kernel and has values,
// the output type is known, there is a kernel and a shape. Throws Error. (plan_sweep calls it.)
void validate_sweep(const SweepSpec& spec, const std::vector<const Kernel*>& kernels);

// Expands the spec over `kernels` on `dev`. For every shape: the cuBLAS items first (those that
// kernels of that shape need for ratios, and baseline kernels that were selected), then the
// kernels in order, each with its parameter combinations. Throws Error for a parameter name no
// selected kernel has, or an unknown output type.
std::vector<SweepItem> plan_sweep(const SweepSpec& spec, const std::vector<const Kernel*>& kernels,
                                  const DeviceInfo& dev);

// The descriptive fields of an item's record (kernel, params, shape, settings), as to_json
// writes them; a skipped or failed item's record is this plus status and reason.
nlohmann::json item_record(const SweepItem& item, const SweepSpec& spec);

// The RunSpec that measures an item (cuBLAS is measured as its own item, not beside each kernel).
RunSpec item_run_spec(const SweepItem& item, const SweepSpec& spec);

// "f32", "same" or a type name -> the C type for a kernel of precision p; throws Error.
DType resolve_output(const std::string& output, Precision p);

}  // namespace gemmlab
