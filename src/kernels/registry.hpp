// The registry: the one place where the rest of gemmlab learns which kernels exist.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace gemmlab {

class Registry {
 public:
  // All kernels, in catalogue order: family (auto, baseline, seed, fp32, tensor, then any other by
  // name), then ladder step, then the order their file added them in.
  static const Registry& instance();

  const std::vector<std::unique_ptr<Kernel>>& kernels() const { return kernels_; }
  const Kernel* find(const std::string& id) const;            // nullptr if unknown
  const Kernel& get(const std::string& id) const;             // throws Error naming close matches
  // Kernels whose id matches a glob ("seed.*", "fp32.*") or a family name ("seed").
  std::vector<const Kernel*> select(const std::string& pattern) const;
  // The cuBLAS kernel that computes the same precision, for "ratio to cuBLAS".
  const Kernel& baseline_for(Precision p) const;

  void add(std::unique_ptr<Kernel> k);  // throws on a duplicate id

 private:
  Registry() = default;
  void sort();
  std::vector<std::unique_ptr<Kernel>> kernels_;
};

namespace detail {
using RegisterKernels = void (*)(Registry&);
bool add_kernel_file(RegisterKernels fn);  // GEMMLAB_REGISTER_KERNELS's
}  // namespace detail

// Registers the kernels of one file: one line at namespace scope beside the function that adds
// them to the registry,
//   void register_fp32_tuned(Registry& r) { r.add(std::make_unique<Tuned>()); }
//   GEMMLAB_REGISTER_KERNELS(register_fp32_tuned);
// Nothing else lists the kernels: every object of the lab is linked (CMakeLists.txt:
// gemmlab_lab_linked), its registrations run before main, and Registry::instance() calls them.
#define GEMMLAB_REGISTER_KERNELS(fn) \
  [[maybe_unused]] static const bool gemmlab_kernel_file_##fn = ::gemmlab::detail::add_kernel_file(&fn)

// Fills in defaults and checks every given parameter is declared and allowed.
// Throws Error("kernel seed.naive: block=64 is not allowed (allowed: 8, 16, 32)").
Params resolve_params(const Kernel& k, const Params& given);
// The product of every parameter's allowed values (for sweeps and tests).
std::vector<Params> all_param_combinations(const Kernel& k);
std::string params_to_string(const Params& p);  // "block=16 outputs=4"
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace gemmlab
