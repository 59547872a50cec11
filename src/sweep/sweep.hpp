// gemmlab's sweep: run a planned list of items (sweep/plan.hpp) one by one, record each result
// as it comes (sweep/output.hpp), attach the cuBLAS ratio, and show progress. The measuring
// itself is a function passed in (on a GPU: run_gemm on a Lab), so the logic runs and is tested
// without a GPU.
#pragma once

#include <functional>

#include "harness/run.hpp"
#include "sweep/output.hpp"
#include "sweep/plan.hpp"
#include "sweep/progress.hpp"

namespace gemmlab {

// Measures one configuration. Throws Error when it cannot (recorded as status "error", and the
// sweep goes on) or SweepAbort when nothing more can be measured (the sweep stops; what it
// recorded so far stays in the files).
using SweepRunner = std::function<RunResult(const RunSpec&)>;

class SweepAbort : public Error {
 public:
  using Error::Error;
};

struct SweepOutcome {
  std::size_t measured = 0;  // run in this session, verification passed
  std::size_t failed = 0;    // run in this session, verification failed
  std::size_t errors = 0;    // could not be measured (status "error")
  std::size_t skipped = 0;   // recorded as skipped (the kernel cannot run them)
  std::size_t resumed = 0;   // already in the files from an earlier run
  bool ok() const { return failed == 0 && errors == 0; }
};

// Runs every item of the plan not already in `output` (opened by the caller).
SweepOutcome run_sweep(const std::vector<SweepItem>& plan, const SweepSpec& spec, const SweepRunner& runner,
                       SweepOutput& output, SweepProgress& progress);

}  // namespace gemmlab
