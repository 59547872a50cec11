// SYNTHETIC DATA for tests (see fixtures.hpp): invented times, fake kernels, no measurement.
#include "support/fixtures.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/stats.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"
#include "sweep/sweep.hpp"

namespace gemmlab::fixtures {

TrafficModel FakeKernel::traffic(const Shape& s, const Params&) const {
  TrafficModel t;
  t.flops = s.flops();
  t.global_loads = double(s.m) * s.k + double(s.k) * s.n;
  t.global_stores = double(s.m) * s.n;
  return t;
}

void FakeKernel::launch(const GemmArgs&, const Params&, const ExecContext&) const {
  throw Error(fmt::format("{} is a test fixture: it never runs", info_.id));
}

namespace {

KernelInfo describe(const std::string& id, Precision p, std::vector<ParamSpec> params, bool slow) {
  KernelInfo i;
  i.id = id;
  i.title = fmt::format("synthetic test kernel {} (never runs)", id);
  i.family = "fixture";
  i.origin = "tests/support/fixtures.cpp";
  i.summary = "A kernel description for tests; its results are invented.";
  i.precision = p;
  i.params = std::move(params);
  i.constraints = "see fixtures.cpp";
  i.slow = slow;
  if (p == Precision::bf16) i.outputs = {DType::f32, DType::bf16};
  return i;
}

}  // namespace

const std::vector<const Kernel*>& fake_kernels() {
  static const std::vector<std::unique_ptr<Kernel>> owned = [] {
    std::vector<std::unique_ptr<Kernel>> v;
    v.push_back(std::make_unique<FakeKernel>(
        describe("fixture.tiled", Precision::fp32,
                 {{"block", "tile edge", {16, 32}, 16}, {"outputs", "outputs per thread", {2, 4}, 2}}, false),
        [](const Shape& s, const Params& p) -> std::optional<std::string> {
          const std::int64_t tile = std::int64_t(p.at("block")) * p.at("outputs");
          if (s.m % tile || s.n % tile) return fmt::format("M and N must be multiples of block x outputs ({})", tile);
          return std::nullopt;
        }));
    v.push_back(std::make_unique<FakeKernel>(describe("fixture.tensor", Precision::bf16, {}, false)));
    v.push_back(std::make_unique<FakeKernel>(
        describe("fixture.slow", Precision::fp32, {{"block", "block edge", {8, 16}, 8}}, true)));
    return v;
  }();
  static const std::vector<const Kernel*> view = [] {
    std::vector<const Kernel*> v;
    for (const auto& k : owned) v.push_back(k.get());
    return v;
  }();
  return view;
}

const Kernel& kernel_by_id(const std::string& id) {
  for (const Kernel* k : fake_kernels())
    if (k->info().id == id) return *k;
  return Registry::instance().get(id);
}

DeviceInfo fake_device() {
  DeviceInfo d;
  d.name = "Synthetic fixture (not a measurement)";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.fp32_lanes_per_sm = 128;
  d.clock_khz = 1980000;
  d.memory_clock_khz = 2619000;
  d.memory_bus_bits = 5120;
  d.global_mem_bytes = std::size_t(80) << 30;
  d.l2_bytes = 50 << 20;
  d.smem_per_block = 48 << 10;
  d.smem_per_block_optin = 227 << 10;
  d.smem_per_sm = 228 << 10;
  d.regs_per_block = d.regs_per_sm = 65536;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.warp_size = 32;
  d.max_block_dim[0] = d.max_block_dim[1] = 1024;
  d.max_block_dim[2] = 64;
  d.max_grid_dim[0] = 2147483647;
  d.max_grid_dim[1] = d.max_grid_dim[2] = 65535;
  return d;
}

RunResult synthetic_result(const RunSpec& spec, double speed_factor) {
  const Kernel& k = kernel_by_id(spec.kernel);
  RunResult r;
  r.spec = spec;
  r.spec.params = resolve_params(k, spec.params);
  r.title = k.info().title;
  r.family = k.info().family;
  r.precision = k.info().precision;
  r.traffic = k.traffic(spec.shape, r.spec.params);
  // Invented speed: a plateau per kernel and parameters, reached as the size grows
  // (only + - * /, so the files are the same on every machine).
  double plateau = 1000;
  const std::string& id = spec.kernel;
  if (id == "cublas.fp32") plateau = 50000;
  if (id == "cublas.bf16") plateau = 600000;
  if (id == "fixture.tensor") plateau = 200000;
  if (id == "fixture.tiled") plateau = 3000.0 * r.spec.params.at("block") / 16 * (1 + r.spec.params.at("outputs"));
  if (id == "fixture.slow") plateau = 2.0 * r.spec.params.at("block");
  const double size = double(spec.shape.m + spec.shape.n + spec.shape.k) / 3;
  const double gflops = plateau * size / (size + 512) * speed_factor;
  const double ms = spec.shape.flops() / (gflops * 1e9) * 1e3;
  Timing t;
  for (int i = 0; i < 20; ++i) t.samples.push_back(ms * (1 + 0.02 * double((i * 7919) % 41 - 20) / 20));
  t.ms = summarize(t.samples);
  t.iters = int(t.samples.size());
  r.kernel.id = id;
  r.kernel.params = r.spec.params;
  r.kernel.timing = t;
  Verification v;
  v.checked = true;
  v.tolerance = tolerance_for(r.precision);
  v.rel_frobenius = r.precision == Precision::fp32 ? 2.5e-7 : 2.0e-3;
  v.max_abs_error = v.rel_frobenius * 10;
  v.max_elementwise = v.rel_frobenius * 4;
  v.passed = true;
  r.kernel.first = r.kernel.last = v;
  return r;
}

nlohmann::json fixture_context() {
  nlohmann::json c = run_context(fake_device(), "synthetic fixture written by tests/support/fixtures.cpp");
  c["driver"] = "fixture";
  c["cuda_runtime"] = "fixture";
  c["cublas"] = "fixture";
  c["gemmlab_commit"] = "fixture";
  c["date"] = "2000-01-01T00:00:00Z";
  return c;
}

SweepSpec fixture_sweep_spec(const std::string& variant) {
  SweepSpec spec;
  spec.params["block"] = ParamChoice{{8, 16, 32}, false};
  spec.params["outputs"] = ParamChoice{{2, 4}, false};
  std::vector<std::int64_t> sizes = {256, 512, 1000, 1024, 2048};
  if (variant == "b") sizes.push_back(4096);
  for (auto n : sizes) spec.shapes.push_back(Shape{n, n, n});
  spec.timing = TimingPlan{3, 20, 2.0, false};
  spec.slow_limit = 512;
  return spec;
}

namespace {

SweepRunner fixture_runner(const std::string& variant) {
  return [variant](const RunSpec& s) {
    const Params p = resolve_params(kernel_by_id(s.kernel), s.params);
    if (s.kernel == "fixture.tensor" && s.shape.m == 2048)
      throw Error("synthetic error: the fixture runner refuses fixture.tensor at 2048 (to exercise status error)");
    double factor = 1.0;
    if (variant == "b") {
      factor = 1 / 1.005;  // within the +-2% spread
      if (s.kernel == "fixture.tiled" && p.at("block") == 16 && p.at("outputs") == 4) factor = 1 / 1.25;
      if (s.kernel == "fixture.tensor") factor = 1.2;
    }
    RunResult r = synthetic_result(s, factor);
    if (variant == "a" && s.kernel == "fixture.tiled" && p.at("block") == 32 && p.at("outputs") == 4 &&
        s.shape.m == 2048) {
      r.kernel.last.passed = false;  // a failure after timing, as a race would show
      r.kernel.last.rel_frobenius = 0.31;
    }
    return r;
  };
}

std::vector<nlohmann::json> run_fixture_sweep(const std::string& variant, const std::string& json_path,
                                              const std::string& csv_path) {
  const SweepSpec spec = fixture_sweep_spec(variant);
  const auto plan = plan_sweep(spec, fake_kernels(), fake_device());
  SweepOutput out(json_path, csv_path, fixture_context());
  out.open(false, true);
  std::ostringstream quiet;
  SweepProgress progress(quiet, false, [] { return 0.0; });
  run_sweep(plan, spec, fixture_runner(variant), out, progress);
  return out.records();
}

}  // namespace

std::vector<nlohmann::json> fixture_sweep_records(const std::string& variant) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("gemmlab_fixture_{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto records = run_fixture_sweep(variant, (dir / "s.json").string(), "");
  std::filesystem::remove_all(dir);
  return records;
}

void write_fixture_files(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  run_fixture_sweep("a", (fs::path(dir) / "sweep_a.json").string(), (fs::path(dir) / "sweep_a.csv").string());
  run_fixture_sweep("b", (fs::path(dir) / "sweep_b.json").string(), "");

  // A transfer study's records: the usual fields plus phase_<name>_median_ms, the phase order
  // and a label per bar (docs/reports.md, "Time breakdown").
  std::vector<nlohmann::json> transfer;
  for (std::int64_t n : {1024, 2048})
    for (const char* memory : {"pageable", "pinned"}) {
      RunSpec s;
      s.kernel = "fixture.tiled";
      s.shape = Shape{n, n, n};
      s.timing = TimingPlan{3, 20, 2.0, false};
      nlohmann::json j = to_json(synthetic_result(s));
      const double bytes = 3.0 * double(n) * double(n) * 4;
      const double gbs = std::string(memory) == "pinned" ? 25.0 : 10.0;  // invented transfer rates
      const double kernel_ms = j["time_median_ms"].get<double>();
      j["label"] = memory;
      j["phases"] = "alloc,h2d,kernel,d2h,free";
      j["phase_alloc_median_ms"] = std::string(memory) == "pinned" ? 2.0 : 0.5;
      j["phase_h2d_median_ms"] = bytes * 2 / 3 / (gbs * 1e6);
      j["phase_kernel_median_ms"] = kernel_ms;
      j["phase_d2h_median_ms"] = bytes / 3 / (gbs * 1e6);
      j["phase_free_median_ms"] = std::string(memory) == "pinned" ? 1.0 : 0.2;
      transfer.push_back(j);
    }
  write_json_file((fs::path(dir) / "transfer.json").string(), fixture_context(), transfer);
}

}  // namespace gemmlab::fixtures
