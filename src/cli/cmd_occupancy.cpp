// gemmlab occupancy: theoretical SM occupancy in the layout of seed 003's Table 2, for a
// registered kernel (its real resources on this GPU, checked against the driver's answer) or,
// with --gpu, for any GPU in gemmlab's database without one (resources from the compiled
// kernel via cuobjdump, or given with --regs/--smem/--threads).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "analysis/device_occupancy.hpp"
#include "analysis/gpu_specs.hpp"
#include "analysis/kernel_binary.hpp"
#include "analysis/occupancy.hpp"
#include "analysis/process.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

namespace {

struct OccupancyOptions {
  std::string kernel, gpu, function, resources_file;
  ShapeOptions shape;
  ParamOptions params;
  std::vector<int> threads;
  int regs = -1;
  long long smem = -1, dynamic_smem = -1;
  int carveout = -1;
  bool list_gpus = false;
};

// One column of the table: a block size (or a thread count) and what was computed for it.
struct Column {
  std::string title;
  KernelResources res;
  Occupancy occ;
  std::optional<int> driver_blocks;  // on a real GPU
  std::string note;                  // why a kernel cannot run this configuration, where it cannot
  std::optional<double> cgma;        // the kernel's model, when a kernel is given
};

std::string limit_cell(int v) { return v == kUnlimited ? "-" : std::to_string(v); }
std::string pct(double r) { return fmt::format("{:.0f}%", 100 * r); }

void print_table(const std::string& heading, const std::vector<Column>& cols, const ArchLimits& gpu,
                 const std::string& resources_from) {
  std::cout << heading << "\n";
  if (!resources_from.empty()) std::cout << resources_from << "\n";
  std::cout << "\n";
  std::vector<std::string> header = {"criterion", "item"};
  for (const auto& c : cols) header.push_back(c.title);
  header.push_back("GPU limit");
  Table t(header);
  auto row = [&](const std::string& crit, const std::string& item, auto cell, const std::string& limit) {
    std::vector<std::string> r = {crit, item};
    for (const auto& c : cols) r.push_back(cell(c));
    r.push_back(limit);
    t.add(r);
  };
  const std::string blocks = std::to_string(gpu.max_blocks_per_sm);
  row("SM occupancy", "active blocks", [](const Column& c) { return std::to_string(c.occ.active_blocks); }, blocks);
  row("", "active warps", [](const Column& c) { return std::to_string(c.occ.active_warps); },
      std::to_string(gpu.max_warps_per_sm()));
  row("", "active threads", [](const Column& c) { return std::to_string(c.occ.active_threads); },
      std::to_string(gpu.max_threads_per_sm));
  row("", "occupancy", [](const Column& c) { return pct(c.occ.occupancy); }, "100%");
  if (!cols.empty() && cols.front().driver_blocks)
    row("", "active blocks (driver)",
        [](const Column& c) { return c.driver_blocks ? std::to_string(*c.driver_blocks) : std::string("-"); }, blocks);
  t.add_separator();
  row("warps", "threads / block", [](const Column& c) { return std::to_string(c.res.threads_per_block); },
      std::to_string(gpu.max_threads_per_block));
  row("", "warps / block", [](const Column& c) { return std::to_string(c.occ.warps_per_block); },
      std::to_string(gpu.max_threads_per_block / gpu.warp_size));
  row("", "block limit", [](const Column& c) { return limit_cell(c.occ.limit_warps); }, blocks);
  t.add_separator();
  row("registers", "registers / thread", [](const Column& c) { return std::to_string(c.res.regs_per_thread); },
      std::to_string(gpu.max_regs_per_thread));
  row("", "registers / block", [](const Column& c) { return std::to_string(c.occ.regs_per_block); },
      std::to_string(gpu.max_regs_per_block));
  row("", "block limit", [](const Column& c) { return limit_cell(c.occ.limit_regs); }, blocks);
  t.add_separator();
  std::string smem_limit = std::to_string(gpu.smem_per_block);
  if (gpu.smem_per_block_optin > gpu.smem_per_block) smem_limit += fmt::format(" (opt-in {})", gpu.smem_per_block_optin);
  row("shared memory", "shared memory / block (B)",
      [](const Column& c) { return std::to_string(c.res.static_smem + c.res.dynamic_smem); }, smem_limit);
  row("", "allocated / block (B)", [](const Column& c) { return std::to_string(c.occ.smem_per_block); },
      std::to_string(gpu.smem_per_sm) + " / SM");
  row("", "block limit", [](const Column& c) { return limit_cell(c.occ.limit_smem); }, blocks);
  if (!cols.empty() && cols.front().cgma) {
    t.add_separator();
    row("kernel model", "CGMA (flops / global access)",
        [](const Column& c) { return c.cgma ? fmt::format("{:.3g}", *c.cgma) : std::string("-"); }, "");
  }
  t.print(std::cout);
  for (const auto& c : cols) {
    std::string line = fmt::format("{}: ", c.title);
    if (c.occ.active_blocks == 0)
      line += "no block fits: " + c.occ.why_zero;
    else
      line += fmt::format("limited by {}", fmt::join(c.occ.limited_by, ", "));
    if (c.occ.needs_smem_optin) line += "; needs the shared-memory opt-in (over 48 KB per block)";
    if (c.driver_blocks && *c.driver_blocks != c.occ.active_blocks)
      line += fmt::format("; MODEL DISAGREES with the driver ({} blocks)", *c.driver_blocks);
    if (!c.note.empty() && c.occ.active_blocks > 0) line += "; note: " + c.note;
    std::cout << line << "\n";
  }
}

void list_gpus() {
  Table t({"--gpu", "name", "CC", "SMs", "FP32 lanes/SM", "clock MHz", "FP32 TFLOPS", "memory GB/s", "BF16 TFLOPS",
           "source"});
  for (const GpuSpec& g : gpu_database())
    t.add({g.key, g.name, fmt::format("{}.{}", g.cc_major, g.cc_minor), std::to_string(g.sm_count),
           std::to_string(g.fp32_lanes_per_sm), fmt::format("{:.0f}", g.clock_mhz),
           fmt::format("{:.3g}", g.peak_fp32_tflops()), fmt::format("{:.4g}", g.dram_gbs),
           g.bf16_dense_tflops > 0 ? fmt::format("{:.0f}", g.bf16_dense_tflops) : "-", g.source});
  t.print(std::cout);
}

// The parameter sets to show: the one given, or one per allowed block size when the kernel has a
// "block" parameter and none was given (seed 003's table has a column per block size).
std::vector<Params> parameter_columns(const Kernel& k, const Params& given) {
  std::vector<Params> out;
  const auto& specs = k.info().params;
  auto block = std::find_if(specs.begin(), specs.end(), [](const ParamSpec& p) { return p.name == "block"; });
  if (block == specs.end() || given.count("block")) {
    out.push_back(resolve_params(k, given));
    return out;
  }
  for (int b : block->allowed) {
    Params p = given;
    p["block"] = b;
    out.push_back(resolve_params(k, p));
  }
  return out;
}

std::string column_title(const Kernel& k, const Params& p, const LaunchPlan& plan) {
  if (p.count("block") && k.info().params.size() == 1) return fmt::format("{}x{}", plan.block.x, plan.block.y);
  return params_to_string(p);
}

// Registers and static shared memory of the kernel behind `plan` from the compiled binary.
struct BinaryResources {
  int regs = 0;
  std::size_t smem = 0;
  std::string from;
};
BinaryResources resources_from_binary(const std::vector<FunctionResources>& all, const LaunchPlan& plan,
                                      const std::string& regex, int cc) {
  std::string demangled;
  if (regex.empty()) {
    const std::string mangled = host_symbol_at(plan.function);
    if (mangled.empty())
      throw Error("cannot find the kernel's name in gemmlab's symbol table (stripped binary?): give --function REGEX "
                  "or --regs/--smem");
    demangled = demangle(mangled);
  }
  const FunctionResources& f = select_function(all, demangled, regex, cc);
  return {f.registers, f.shared_bytes, fmt::format("{} ({} build)", f.demangled, f.arch)};
}

void run(const OccupancyOptions& o) {
  if (o.list_gpus) {
    list_gpus();
    return;
  }
  if (o.kernel.empty() && o.threads.empty())
    throw Error("give --kernel ID, or --threads with --regs and --smem for a kernel described by hand");
  if (!o.kernel.empty() && !o.threads.empty())
    throw Error("--threads describes a kernel by hand: the threads of --kernel come from its launch plan (use --block)");
  if (o.gpu.empty() && (!o.function.empty() || !o.resources_file.empty()))
    throw Error("--function and --resources choose a compiled kernel for the offline model: use them with --gpu NAME");
  if (o.carveout < -1 || o.carveout > 100) throw Error("--carveout is a percentage (0..100), or -1 for no preference");
  for (int t : o.threads)
    if (t <= 0) throw Error(fmt::format("--threads {}: a block needs at least one thread", t));
  if (o.regs < -1 || o.regs > 255 * 4) throw Error(fmt::format("--regs {} is not a register count", o.regs));
  if (o.smem < -1 || o.dynamic_smem < -1) throw Error("--smem and --dynamic-smem are byte counts (>= 0)");
  const Kernel* kernel = o.kernel.empty() ? nullptr : &Registry::instance().get(o.kernel);
  const Shape shape = o.shape.given() ? o.shape.resolve() : Shape{1024, 1024, 1024};
  const Params given = o.params.resolve();
  if (kernel) resolve_params(*kernel, given);  // bad parameters fail before anything else

  // Where the limits come from: the database, or this machine's GPU.
  const GpuSpec* spec = o.gpu.empty() ? nullptr : &find_gpu(o.gpu);
  std::optional<DeviceInfo> dev;
  ArchLimits limits;
  if (spec) {
    limits = spec->limits();
    dev = device_info_of(*spec);
  } else {
    try {
      require_gpu();
    } catch (const Error& e) {
      throw Error(fmt::format("{} (or model a GPU without one: --gpu NAME, see --list-gpus)", e.what()));
    }
    dev = query_device(0);
    limits = limits_of(*dev, reserved_smem_per_block(0));
  }
  const std::string gpu_name = spec ? spec->name : dev->name;
  const std::string cc = fmt::format("{}.{}", dev->cc_major, dev->cc_minor);

  std::vector<Column> cols;
  std::string resources_from;
  auto apply_overrides = [&](KernelResources& r) {
    if (o.regs >= 0) r.regs_per_thread = o.regs;
    if (o.smem >= 0) r.static_smem = std::size_t(o.smem);
    if (o.dynamic_smem >= 0) r.dynamic_smem = std::size_t(o.dynamic_smem);
    if (o.carveout >= 0) r.carveout_percent = o.carveout;
  };

  if (!kernel) {
    // A kernel described by hand: one column per thread count.
    if (o.regs < 0) throw Error("give --regs N (registers per thread) with --threads");
    for (int threads : o.threads) {
      Column c;
      c.title = fmt::format("{} threads", threads);
      c.res.threads_per_block = threads;
      c.res.static_smem = 0;
      apply_overrides(c.res);
      c.occ = theoretical_occupancy(limits, c.res);
      cols.push_back(c);
    }
    resources_from = fmt::format("resources given: {} registers per thread, {} bytes of shared memory per block",
                                 o.regs, (o.smem < 0 ? 0 : o.smem) + (o.dynamic_smem < 0 ? 0 : o.dynamic_smem));
  } else if (spec) {
    // Offline: the kernel's plan for threads and dynamic shared memory, the binary (or the
    // command line) for registers and static shared memory.
    std::vector<FunctionResources> binary;
    const bool need_binary = o.regs < 0 || o.smem < 0;
    if (need_binary) {
      if (!o.resources_file.empty()) {
        std::ifstream f(o.resources_file);
        if (!f) throw Error(fmt::format("cannot open {}", o.resources_file));
        std::stringstream ss;
        ss << f.rdbuf();
        binary = parse_resource_usage(ss.str());
      } else {
        binary = read_resource_usage(self_executable());
      }
    }
    std::vector<std::string> sources;
    for (const Params& p : parameter_columns(*kernel, given)) {
      const LaunchPlan plan = kernel->plan(shape, p);
      if (!plan.function) throw Error(fmt::format("kernel {} is a library call: it has no launch to analyse", o.kernel));
      Column c;
      c.title = column_title(*kernel, p, plan);
      c.res.threads_per_block = int(plan.block.x * plan.block.y * plan.block.z);
      c.res.dynamic_smem = plan.dynamic_smem;
      if (need_binary) {
        const BinaryResources b = resources_from_binary(binary, plan, o.function, spec->cc());
        c.res.regs_per_thread = b.regs;
        c.res.static_smem = b.smem;
        if (std::find(sources.begin(), sources.end(), b.from) == sources.end()) sources.push_back(b.from);
      }
      apply_overrides(c.res);
      if (auto why = kernel->reject(shape, p, *dev)) c.note = *why;
      c.cgma = kernel->traffic(shape, p).cgma();
      c.occ = theoretical_occupancy(limits, c.res);
      cols.push_back(c);
    }
    resources_from = fmt::format("threads and dynamic shared memory from the kernel's launch plan; registers and static "
                                 "shared memory {}",
                                 need_binary ? "from cuobjdump: " + fmt::format("{}", fmt::join(sources, "; "))
                                             : std::string("given on the command line"));
  } else {
    // This machine's GPU: the real attributes, and the driver's answer beside the model's.
    for (const Params& p : parameter_columns(*kernel, given)) {
      if (auto why = kernel->reject(shape, p, *dev)) {
        std::cout << fmt::format("{} ({}): cannot run {} on {}: {}\n", o.kernel, params_to_string(p), to_string(shape),
                                 dev->name, *why);
        continue;
      }
      KernelOccupancy ko = occupancy_on_device(*kernel, shape, p, *dev);
      Column c;
      c.title = column_title(*kernel, p, ko.plan);
      c.res = ko.resources;
      if (o.regs >= 0 || o.smem >= 0 || o.dynamic_smem >= 0 || o.carveout >= 0) {
        apply_overrides(c.res);  // a what-if: the driver's answer no longer applies
        c.occ = theoretical_occupancy(ko.limits, c.res);
      } else {
        c.occ = ko.model;
        c.driver_blocks = ko.driver_blocks;
      }
      if (ko.local_bytes > 0) c.note = fmt::format("{} bytes of local memory per thread (spills?)", ko.local_bytes);
      c.cgma = kernel->traffic(shape, p).cgma();
      cols.push_back(c);
      limits = ko.limits;
    }
    if (cols.empty()) throw Error(fmt::format("kernel {} cannot run {} with any block size here", o.kernel, to_string(shape)));
    resources_from = "resources from cudaFuncGetAttributes and the kernel's launch plan";
  }
  const std::string what = kernel ? fmt::format("{} at {}", o.kernel, to_string(shape)) : std::string("a kernel");
  print_table(fmt::format("Theoretical occupancy of {} on {} (CC {}, {} SMs){}", what, gpu_name, cc, dev->sm_count,
                          spec ? ", model" : ""),
              cols, limits, resources_from);
  if (!spec && kernel) {
    bool agree = true;
    for (const auto& c : cols)
      if (c.driver_blocks && *c.driver_blocks != c.occ.active_blocks) agree = false;
    std::cout << (agree ? "model agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor\n"
                        : "the model DISAGREES with cudaOccupancyMaxActiveBlocksPerMultiprocessor: please report\n");
  }
}

}  // namespace

void add_occupancy_command(CLI::App& app) {
  static OccupancyOptions o;
  auto* cmd = app.add_subcommand("occupancy", "theoretical SM occupancy of a kernel (seed 003, Table 2)");
  cmd->add_option("--kernel", o.kernel, "kernel id (see 'gemmlab list')");
  o.shape.add_to(*cmd);
  o.params.add_to(*cmd);
  cmd->add_option("--gpu", o.gpu, "model a GPU from gemmlab's database instead of this machine's (see --list-gpus)");
  cmd->add_flag("--list-gpus", o.list_gpus, "list the GPUs --gpu knows");
  cmd->add_option("--threads", o.threads, "threads per block (comma-separated list: one column each), without --kernel")
      ->delimiter(',');
  cmd->add_option("--regs", o.regs, "registers per thread (instead of the compiled kernel's)");
  cmd->add_option("--smem", o.smem, "static shared memory per block, bytes (instead of the compiled kernel's)");
  cmd->add_option("--dynamic-smem", o.dynamic_smem, "dynamic shared memory per block, bytes (instead of the plan's)");
  cmd->add_option("--carveout", o.carveout, "preferred shared-memory carve-out, percent (CC 7.0+)");
  cmd->add_option("--function", o.function,
                  "with --gpu: take the resources of the first device function matching this regex");
  cmd->add_option("--resources", o.resources_file,
                  "with --gpu: read 'cuobjdump --dump-resource-usage' output from this file instead of running it");
  cmd->callback([] { run(o); });
}

}  // namespace gemmlab::cli
