#include "kernels/registry.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

namespace detail {

// The registration functions of every kernel file, in the order the files' static initialisers ran
// (which the registry's sort makes irrelevant). A function's static: it exists before the first
// file registers, whatever the initialisation order of the files.
static std::vector<RegisterKernels>& kernel_files() {
  static std::vector<RegisterKernels> files;
  return files;
}

bool add_kernel_file(RegisterKernels fn) {
  kernel_files().push_back(fn);
  return true;
}

}  // namespace detail

const Registry& Registry::instance() {
  static const Registry registry = [] {
    Registry r;
    for (detail::RegisterKernels fn : detail::kernel_files()) fn(r);
    r.sort();
    return r;
  }();
  return registry;
}

void Registry::sort() {
  static const std::vector<std::string> families{"auto", "baseline", "seed", "fp32", "tensor"};
  auto rank = [](const KernelInfo& i) {
    const auto it = std::find(families.begin(), families.end(), i.family);
    return std::make_pair(std::size_t(it - families.begin()), it == families.end() ? i.family : std::string());
  };
  std::stable_sort(kernels_.begin(), kernels_.end(), [&](const std::unique_ptr<Kernel>& a, const std::unique_ptr<Kernel>& b) {
    const auto ra = rank(a->info()), rb = rank(b->info());
    if (ra != rb) return ra < rb;
    return a->info().step < b->info().step;
  });
}

void Registry::add(std::unique_ptr<Kernel> k) {
  if (find(k->info().id)) throw Error(fmt::format("duplicate kernel id '{}'", k->info().id));
  kernels_.push_back(std::move(k));
}

const Kernel* Registry::find(const std::string& id) const {
  for (const auto& k : kernels_)
    if (k->info().id == id) return k.get();
  return nullptr;
}

const Kernel& Registry::get(const std::string& id) const {
  if (const Kernel* k = find(id)) return *k;
  std::vector<std::string> close;
  for (const auto& k : kernels_) {
    const std::string& kid = k->info().id;
    // Suggest ids sharing the family prefix or containing what was typed.
    if (kid.find(id) != std::string::npos || id.find(kid.substr(0, kid.find('.'))) == 0)
      close.push_back(kid);
  }
  std::string hint = close.empty() ? "run 'gemmlab list' to see them"
                                   : fmt::format("did you mean: {}?", fmt::join(close, ", "));
  throw Error(fmt::format("unknown kernel '{}' ({})", id, hint));
}

bool glob_match(const std::string& pattern, const std::string& text) {
  // '*' matches any run of characters, '?' one character.
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<const Kernel*> Registry::select(const std::string& pattern) const {
  std::vector<const Kernel*> out;
  for (const auto& k : kernels_)
    if (k->info().family == pattern || glob_match(pattern, k->info().id)) out.push_back(k.get());
  return out;
}

const Kernel& Registry::baseline_for(Precision p) const {
  for (const auto& k : kernels_)
    if (k->info().family == "baseline" && k->info().precision == p) return *k;
  throw Error(fmt::format("no cuBLAS baseline registered for {}", precision_name(p)));
}

Params resolve_params(const Kernel& k, const Params& given) {
  const KernelInfo& info = k.info();
  Params out;
  for (const auto& [name, value] : given) {
    auto spec = std::find_if(info.params.begin(), info.params.end(),
                             [&](const ParamSpec& s) { return s.name == name; });
    if (spec == info.params.end()) {
      std::vector<std::string> names;
      for (const auto& s : info.params) names.push_back(s.name);
      throw Error(fmt::format("kernel {} has no parameter '{}' ({})", info.id, name,
                              names.empty() ? std::string("it takes none")
                                            : fmt::format("it takes: {}", fmt::join(names, ", "))));
    }
    if (std::find(spec->allowed.begin(), spec->allowed.end(), value) == spec->allowed.end())
      throw Error(fmt::format("kernel {}: {}={} is not allowed (allowed: {})", info.id, name, value,
                              fmt::join(spec->allowed, ", ")));
    out[name] = value;
  }
  for (const auto& s : info.params)
    if (!out.count(s.name)) out[s.name] = s.default_value;
  return out;
}

std::vector<Params> all_param_combinations(const Kernel& k) {
  std::vector<Params> combos{Params{}};
  for (const auto& spec : k.info().params) {
    std::vector<Params> next;
    for (const auto& c : combos)
      for (int v : spec.allowed) {
        Params p = c;
        p[spec.name] = v;
        next.push_back(std::move(p));
      }
    combos = std::move(next);
  }
  return combos;
}

std::string params_to_string(const Params& p) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : p) parts.push_back(fmt::format("{}={}", k, v));
  return fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace gemmlab
