#include "sweep/plan.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/registry.hpp"

namespace gemmlab {

namespace {

// The value lists for each of the kernel's parameters, then their product.
std::vector<Params> param_combinations(const Kernel& k, const SweepSpec& spec) {
  std::vector<Params> combos{Params{}};
  for (const ParamSpec& p : k.info().params) {
    std::vector<int> values;
    auto it = spec.params.find(p.name);
    if (it != spec.params.end())
      values = it->second.all ? p.allowed : it->second.values;
    else
      values = spec.all_params ? p.allowed : std::vector<int>{p.default_value};
    std::vector<Params> next;
    for (const Params& c : combos)
      for (int v : values) {
        Params n = c;
        n[p.name] = v;
        next.push_back(std::move(n));
      }
    combos = std::move(next);
  }
  return combos;
}

std::optional<std::string> disallowed_value(const Kernel& k, const Params& params) {
  for (const ParamSpec& p : k.info().params) {
    const int v = params.at(p.name);
    if (std::find(p.allowed.begin(), p.allowed.end(), v) == p.allowed.end())
      return fmt::format("{}={} is not allowed (allowed: {})", p.name, v, fmt::join(p.allowed, ", "));
  }
  return std::nullopt;
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / double(1ull << 30)); }

// Why `item` cannot be measured on `dev`, or nullopt. The same checks run_gemm makes (so a sweep
// never asks it for something it would refuse), plus the sweep's own slow-kernel size limit.
std::optional<std::string> why_skip(const SweepItem& item, const SweepSpec& spec, const DeviceInfo& dev) {
  const Kernel& k = *item.kernel;
  const KernelInfo& info = k.info();
  if (auto why = disallowed_value(k, item.params)) return why;
  if (info.min_cc > dev.cc())
    return fmt::format("needs compute capability {}.{} or newer (this GPU is {}.{})", info.min_cc / 10,
                       info.min_cc % 10, dev.cc_major, dev.cc_minor);
  if (std::find(info.outputs.begin(), info.outputs.end(), item.output) == info.outputs.end())
    return fmt::format("cannot write C as {}", dtype_name(item.output));
  try {
    validate_shape(item.shape);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  if (auto why = k.reject(item.shape, item.params, dev)) return why;
  const std::int64_t largest = std::max({item.shape.m, item.shape.n, item.shape.k});
  if (info.slow && spec.slow_limit > 0 && largest > spec.slow_limit)
    return fmt::format("slow by design: runs only up to size {} (--slow-limit)", spec.slow_limit);
  const std::size_t need = run_memory_bytes(k, item_run_spec(item, spec), item.params);
  if (dev.global_mem_bytes > 0 && double(need) > 0.9 * double(dev.global_mem_bytes))
    return fmt::format("needs about {} of device memory with the float64 reference; the GPU has {}", gib(double(need)),
                       gib(double(dev.global_mem_bytes)));
  return std::nullopt;
}

SweepItem make_item(const Kernel& k, const Params& params, DType output, const Shape& shape, const SweepSpec& spec,
                    const DeviceInfo& dev) {
  SweepItem item;
  item.kernel = &k;
  item.params = params;
  item.precision = k.info().precision;
  item.output = output;
  item.shape = shape;
  item.baseline = k.info().family == "baseline";
  item.key = config_key(item_record(item, spec));
  item.skip_reason = why_skip(item, spec, dev);
  return item;
}

}  // namespace

DType resolve_output(const std::string& output, Precision p) {
  if (output == "f32") return DType::f32;
  if (output == "same") return operand_type(p);
  if (auto t = parse_dtype(output)) return *t;
  throw Error(fmt::format("unknown output type '{}' (choose f32, bf16, f16 or same)", output));
}

std::vector<const Kernel*> select_kernels(const std::vector<std::string>& patterns,
                                          const std::vector<Precision>& precisions) {
  const Registry& reg = Registry::instance();
  std::set<const Kernel*> chosen;
  for (const std::string& pattern : patterns) {
    const auto matched = reg.select(pattern);
    if (matched.empty()) throw Error(fmt::format("no kernel matches '{}' (see 'gemmlab list')", pattern));
    chosen.insert(matched.begin(), matched.end());
  }
  std::vector<const Kernel*> out;
  for (const auto& k : reg.kernels()) {  // catalogue order
    if (!chosen.count(k.get())) continue;
    if (!precisions.empty() &&
        std::find(precisions.begin(), precisions.end(), k->info().precision) == precisions.end())
      continue;
    out.push_back(k.get());
  }
  if (out.empty()) throw Error("no selected kernel has the requested precision");
  return out;
}

void validate_sweep(const SweepSpec& spec, const std::vector<const Kernel*>& kernels) {
  if (kernels.empty()) throw Error("a sweep needs at least one kernel");
  if (spec.shapes.empty()) throw Error("a sweep needs at least one size: --sizes, -m/-n/-k or --shapes");
  // A parameter name that no selected kernel declares is a typo, not a silent no-op.
  for (const auto& [name, choice] : spec.params) {
    const bool known = std::any_of(kernels.begin(), kernels.end(), [&](const Kernel* k) {
      const auto& ps = k->info().params;
      return std::any_of(ps.begin(), ps.end(), [&](const ParamSpec& p) { return p.name == name; });
    });
    if (!known) throw Error(fmt::format("no selected kernel has a parameter '{}' (see 'gemmlab list')", name));
    if (!choice.all && choice.values.empty()) throw Error(fmt::format("no values given for parameter '{}'", name));
  }
  for (const Kernel* k : kernels) resolve_output(spec.output, k->info().precision);
}

std::vector<SweepItem> plan_sweep(const SweepSpec& spec, const std::vector<const Kernel*>& kernels,
                                  const DeviceInfo& dev) {
  validate_sweep(spec, kernels);
  std::vector<SweepItem> items;
  for (const Shape& shape : spec.shapes) {
    std::vector<SweepItem> baselines, others;
    std::set<std::string> baseline_keys;
    auto add_baseline = [&](SweepItem b) {
      if (baseline_keys.insert(b.key).second) baselines.push_back(std::move(b));
    };
    for (const Kernel* k : kernels) {
      const DType output = resolve_output(spec.output, k->info().precision);
      for (const Params& params : param_combinations(*k, spec)) {
        SweepItem item = make_item(*k, params, output, shape, spec, dev);
        if (item.baseline) {
          add_baseline(std::move(item));
          continue;
        }
        const Kernel& base = Registry::instance().baseline_for(item.precision);
        SweepItem b = make_item(base, resolve_params(base, {}), output, shape, spec, dev);
        if (spec.compare_cublas) {
          item.baseline_key = b.key;
          if (!item.skip_reason) add_baseline(std::move(b));
        }
        others.push_back(std::move(item));
      }
    }
    for (auto& b : baselines) items.push_back(std::move(b));
    for (auto& o : others) items.push_back(std::move(o));
  }
  return items;
}

nlohmann::json item_record(const SweepItem& item, const SweepSpec& spec) {
  const KernelInfo& info = item.kernel->info();
  nlohmann::json j;
  // The same fields and spellings as to_json (results/record.cpp), so measured, skipped and
  // failed records sit in one table.
  j["kernel"] = info.id;
  j["family"] = info.family;
  j["title"] = info.title;
  j["params"] = params_to_string(item.params);
  for (const auto& [name, value] : item.params) j["param_" + name] = value;
  j["precision"] = std::string(precision_name(item.precision));
  j["output"] = std::string(dtype_name(item.output));
  j["m"] = item.shape.m;
  j["n"] = item.shape.n;
  j["k"] = item.shape.k;
  j["alpha"] = 1.0f;
  j["beta"] = 0.0f;
  j["l2"] = spec.timing.flush_l2 ? "cold" : "hot";
  j["warmup"] = spec.timing.warmup;
  j["init"] = spec.init == Init::uniform ? "uniform" : "linear";
  j["seed"] = spec.seed;
  j["flops"] = item.shape.flops();
  return j;
}

RunSpec item_run_spec(const SweepItem& item, const SweepSpec& spec) {
  RunSpec s;
  s.kernel = item.kernel->info().id;
  s.params = item.params;
  s.shape = item.shape;
  s.output = item.output;
  s.timing = spec.timing;
  s.inputs.init = spec.init;
  s.inputs.seed = spec.seed;
  s.verify = true;
  s.compare_cublas = false;  // cuBLAS is its own item, measured once per shape
  return s;
}

}  // namespace gemmlab
