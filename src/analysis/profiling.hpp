// `gemmlab profile`: one launch of one kernel under Nsight Compute.
//
// gemmlab runs itself under ncu: the child (the hidden `gemmlab profile-launch` command) prepares
// random inputs, launches the kernel once outside the profiled range (module loading, one-time
// attribute calls) and once more between cudaProfilerStart and cudaProfilerStop; ncu is started
// with --profile-from-start off, so it profiles exactly that launch and none of the fill,
// conversion or verification kernels. The parent parses ncu's CSV (analysis/ncu.hpp).
#pragma once

#include <string>
#include <vector>

#include "analysis/ncu.hpp"
#include "harness/lab.hpp"
#include "kernels/kernel.hpp"

namespace gemmlab {

struct ProfileOutcome {
  std::string command;            // the ncu command line that ran
  std::string raw;                // ncu's complete output
  std::vector<NcuLaunch> launches;  // the profiled kernel's launches
  ProfileMetrics metrics;
};

// Finds ncu ($GEMMLAB_NCU, PATH, $CUDA_HOME/bin), runs the profile and parses it; extra ncu
// arguments may come from $GEMMLAB_NCU_ARGS. `gemmlab_exe` is the gemmlab executable ncu starts
// (empty: the running one, which must then be gemmlab). Throws Error when ncu is missing, cannot
// read the counters, fails, or did not profile the kernel.
ProfileOutcome profile_with_ncu(const Kernel& k, const Shape& shape, const Params& params,
                                const std::string& gemmlab_exe = "");

// The ncu command line profile_with_ncu runs (without the output redirection), for messages and docs.
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& self, const Kernel& k,
                                     const Shape& shape, const Params& params);

// The bare name of the kernel's __global__ function ("naive_gemm"), found through gemmlab's own
// symbol table; empty for library calls or a stripped binary.
std::string kernel_function_identifier(const Kernel& k, const Shape& shape, const Params& params);

// The child's side: inputs, one unprofiled launch, one launch between cudaProfilerStart/Stop.
void launch_for_profiler(Lab& lab, const Kernel& k, const Shape& shape, const Params& params);

}  // namespace gemmlab
