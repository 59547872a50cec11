// One measured GEMM: prepare inputs, compute the reference, run the kernel once and verify it,
// time it, verify again, and do the same for cuBLAS in the same precision. Every command that
// reports a kernel's speed (run, lab, study, sweep) goes through run_gemm.
#pragma once

#include <optional>
#include <string>

#include "core/fill.hpp"
#include "core/stats.hpp"
#include "harness/lab.hpp"
#include "harness/timing.hpp"
#include "kernels/kernel.hpp"
#include "reference/verify.hpp"

namespace gemmlab {

struct InputSpec {
  Init init = Init::uniform;  // uniform in [-1, 1), or seed 004's LinearInit (B reversed)
  std::uint64_t seed = 1;
  std::string a_npy, b_npy;   // when set, A / B come from these files
};

struct RunSpec {
  std::string kernel;
  Params params;          // as given; resolved (defaults added) in the result
  Shape shape;
  DType output = DType::f32;
  float alpha = 1.0f, beta = 0.0f;
  TimingPlan timing;      // iters == 0: verify only, no timing
  InputSpec inputs;
  std::string save_c;     // write the kernel's C to this .npy file
  bool verify = true;
  bool compare_cublas = true;
};

struct KernelRun {
  std::string id;
  Params params;
  std::optional<Timing> timing;
  Verification first, last;  // after the first run, and after the last timed run
  bool passed() const { return (!first.checked || first.passed) && (!last.checked || last.passed); }
};

struct RunResult {
  RunSpec spec;
  std::string title, family;
  Precision precision = Precision::fp32;
  TrafficModel traffic;
  KernelRun kernel;
  std::optional<KernelRun> cublas;
  std::optional<Stats> conversion_ms;  // converting FP32 A and B to the operand type, per GEMM

  double gflops() const;          // 2 M N K / median time
  double cublas_gflops() const;   // 0 when cuBLAS did not run
  double ratio_to_cublas() const; // cuBLAS median / kernel median (> 1: faster than cuBLAS); 0 if unknown
  bool passed() const { return kernel.passed() && (!cublas || cublas->passed()); }
};

// Throws Error for anything that prevents an honest measurement: unknown kernel, parameter not
// allowed, shape rejected, not enough device memory, bad .npy input, CUDA failure.
// A failed verification is not an exception: it is in the result (passed() == false).
RunResult run_gemm(Lab& lab, const RunSpec& spec);
// The same for a kernel object that need not be registered (the tests' deliberately broken kernels).
RunResult run_gemm(Lab& lab, const Kernel& kernel, const RunSpec& spec);

// Device memory run_gemm needs for this spec (inputs, outputs, reference, workspace).
std::size_t run_memory_bytes(const Kernel& k, const RunSpec& spec, const Params& params);

// Size and kernel checks that need no GPU (used by the CLI before opening a Lab, and by tests).
void validate_shape(const Shape& s);

}  // namespace gemmlab
