// Test support for sweeps, reports and compare without a GPU.
//
// SYNTHETIC DATA: nothing here is a measurement. The "fixture.*" kernels never run; the runner
// invents times from a formula; the device is named "Synthetic fixture (not a measurement)".
// The committed files under tests/fixtures/ are written by this code through the real writers
// (run_sweep, SweepOutput, to_json, write_json_file, write_csv_file), so they have exactly the
// shape gemmlab writes; the test FixturesAreCurrent fails when they drift from it, and
// `build/tests/gemmlab_make_fixtures tests/fixtures` writes them again.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device.hpp"
#include "harness/run.hpp"
#include "kernels/kernel.hpp"
#include "sweep/plan.hpp"

namespace gemmlab::fixtures {

// A kernel that describes itself like a real one but never launches (launch() throws).
class FakeKernel : public Kernel {
 public:
  using RejectFn = std::function<std::optional<std::string>(const Shape&, const Params&)>;
  FakeKernel(KernelInfo info, RejectFn reject = {}) : info_(std::move(info)), reject_(std::move(reject)) {}
  const KernelInfo& info() const override { return info_; }
  std::optional<std::string> reject(const Shape& s, const Params& p, const DeviceInfo&) const override {
    return reject_ ? reject_(s, p) : std::nullopt;
  }
  TrafficModel traffic(const Shape& s, const Params&) const override;
  LaunchPlan plan(const Shape&, const Params&) const override { return {}; }
  void launch(const GemmArgs&, const Params&, const ExecContext&) const override;

 private:
  KernelInfo info_;
  RejectFn reject_;
};

// fixture.tiled (fp32; block 16/32, outputs 2/4; M and N must be multiples of block*outputs),
// fixture.tensor (bf16, no parameters), fixture.slow (fp32, slow by design; block 8/16).
const std::vector<const Kernel*>& fake_kernels();
const Kernel& kernel_by_id(const std::string& id);  // a fake kernel or a registered one

// An H100-like device description (limits only; reject() and the memory check use it).
DeviceInfo fake_device();

// A RunResult with invented times: GFLOPS from a formula of the kernel, parameters and size,
// samples spread +-2% around it (deterministic), verification passed.
RunResult synthetic_result(const RunSpec& spec, double speed_factor = 1.0);

// The context of a fixture file: the keys run_context writes, with fixed values.
nlohmann::json fixture_context();

// A sweep over the fake kernels and cuBLAS, run with the synthetic runner. variant "a" or "b":
// b has one configuration 25% slower (fixture.tiled block=16 outputs=4), fixture.tensor 20%
// faster, one failure fixed, an extra size; everything else within the noise of a.
SweepSpec fixture_sweep_spec(const std::string& variant);
std::vector<nlohmann::json> fixture_sweep_records(const std::string& variant);

// Writes sweep_a.json, sweep_a.csv, sweep_b.json and transfer.json into dir.
void write_fixture_files(const std::string& dir);

}  // namespace gemmlab::fixtures
