// The interface every GEMM implementation in gemmlab provides.
//
// A kernel is described by data (KernelInfo: what it is, where it comes from, which parameters
// it takes) and answers four questions: can you run this shape with these parameters on this
// device (reject), how much work and global-memory traffic does that take (traffic), what do
// you launch (plan), and run it (launch). The harness, the analysis and the reports know kernels
// only through this interface and the registry; nothing outside src/kernels/ names a kernel.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "core/device.hpp"
#include "core/types.hpp"

namespace gemmlab {

class Context;  // the library's per-device state (include/gemmlab/context.hpp)

// One tunable of a kernel (block size, outputs per thread, tile shape, ...).
struct ParamSpec {
  std::string name;          // as on the command line: --param name=value, or --block for "block"
  std::string help;
  std::vector<int> allowed;  // the values the kernel is compiled for
  int default_value = 0;
};

using Params = std::map<std::string, int>;

struct KernelInfo {
  std::string id;       // stable identifier, e.g. "seed.naive"
  std::string title;    // one line
  std::string family;   // "seed", "fp32", "tensor", "baseline": groups for list / sweep
  int step = 0;         // position in its family's optimisation ladder
  std::string origin;   // the seed documents and sections, or the technique it introduces
  std::string summary;  // a paragraph: what it does and why it is faster than the step before
  Precision precision = Precision::fp32;
  std::vector<DType> outputs = {DType::f32};  // element types C may have
  std::vector<ParamSpec> params;
  std::string constraints;  // shape rules in words ("any M, N, K >= 1", "N divisible by the block")
  int min_cc = 0;           // lowest compute capability (x10) it runs on; 0 = any
  bool slow = false;        // far off the roof by design (single block, ...): quick runs use small sizes
};

// The kernel's own model of one launch: floating-point operations and global-memory accesses
// as its code issues them (elements requested by threads, not DRAM bytes; caches are ignored).
// CGMA (compute to global memory access) is the seeds' ratio flops / (loads + stores).
struct TrafficModel {
  double flops = 0;
  double global_loads = 0;   // elements read from global memory by all threads
  double global_stores = 0;  // elements written
  double element_bytes = 4;
  double cgma() const { return flops / (global_loads + global_stores); }
  double bytes() const { return (global_loads + global_stores) * element_bytes; }
};

// What a launch looks like: for occupancy analysis and the profiler.
struct LaunchPlan {
  const void* function = nullptr;  // the __global__ function, or null for library calls
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  std::size_t dynamic_smem = 0;
};

// One GEMM call: C = alpha * A * B + beta * C, row-major, packed (lda = k, ldb = n, ldc = n).
// A and B have the kernel's operand type, C one of its output types. When beta == 0, C is
// write-only: a kernel must not read it (the harness fills it with NaN to prove that).
struct GemmArgs {
  Shape shape;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  DType c_type = DType::f32;
  float alpha = 1.0f, beta = 0.0f;
};

// What the harness lends a launch: its stream, a cuBLAS handle, scratch memory.
struct ExecContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  const DeviceInfo* device = nullptr;
  const Context* library = nullptr;  // for kernels that run through the library's launchers
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const KernelInfo& info() const = 0;

  // Why this kernel cannot run `shape` with `params` on `dev`, in one sentence; nullopt if it can.
  // Parameters have already been checked against ParamSpec::allowed.
  virtual std::optional<std::string> reject(const Shape& shape, const Params& params,
                                            const DeviceInfo& dev) const = 0;
  virtual TrafficModel traffic(const Shape& shape, const Params& params) const = 0;
  virtual LaunchPlan plan(const Shape& shape, const Params& params) const = 0;
  virtual void launch(const GemmArgs& args, const Params& params, const ExecContext& ctx) const = 0;
  // Scratch memory a launch needs (split-K partial sums, ...); the harness allocates it.
  virtual std::size_t workspace_bytes(const Shape&, const Params&) const { return 0; }
};

}  // namespace gemmlab
