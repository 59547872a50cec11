// Profiler metrics from Nsight Compute (ncu): seed 000's Table 1 and seed 003's GIPS and CGMA,
// measured with today's counters.
//
// The seeds used the NVIDIA Visual Profiler (nvprof era): "global memory load efficiency",
// "requested global load throughput", "multiprocessor activity", "achieved occupancy". Those
// metrics no longer exist on sm_70+; ncu_metric_names() lists the Nsight Compute metrics gemmlab
// asks for instead and derive_profile() turns them into the seeds' quantities (see
// docs/analysis.md for every definition).
//
// ncu's CSV comes in two layouts, both understood:
//   --page raw:     a header row of column names (ID, Kernel Name, ..., then one column per
//                   metric), a row of units, one row per profiled kernel launch;
//   --page details: one row per (launch, metric) with "Metric Name", "Metric Unit", "Metric Value".
// Values may carry thousands separators ("1,234,567"), units may be scaled ("Kbyte", "usecond"):
// both are normalised to base units (bytes, nanoseconds, counts, percent).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gemmlab {

// One profiled kernel launch: its name and its metrics in base units.
struct NcuLaunch {
  std::string id;           // ncu's launch ID
  std::string kernel_name;  // as ncu prints it (demangled, NVIDIA style)
  std::string block_size, grid_size;
  std::map<std::string, double> metrics;  // missing or "n/a" values are absent

  std::optional<double> get(const std::string& metric) const;
};

// Parses ncu's CSV output (either layout; any lines before the header, such as "==PROF==" lines,
// are skipped). Throws Error on input that holds no CSV table or a malformed one.
std::vector<NcuLaunch> parse_ncu_csv(const std::string& text);

// The metrics `gemmlab profile` collects (all exist in Nsight Compute 2023-2025 on sm_70..sm_90).
const std::vector<std::string>& ncu_metric_names();

// Seed 000 Table 1, seed 003's GIPS and CGMA, and the roofline inputs, for one kernel (the sum
// over its launches when it launched more than once, e.g. a library call).
struct ProfileMetrics {
  int launches = 0;
  std::vector<std::string> kernel_names;
  double duration_ns = 0;
  double static_smem_bytes = 0;   // per block
  double dynamic_smem_bytes = 0;  // per block
  double registers_per_thread = 0;
  // Global memory, LSU path (ld.global / st.global; cp.async and TMA traffic are not in these).
  double load_efficiency_pct = 0;   // requested bytes / (sectors x 32 bytes), ncu's smsp__sass_average_data_bytes_per_sector_*
  double store_efficiency_pct = 0;
  double load_sectors = 0, store_sectors = 0;    // 32-byte sectors moved between L1 and L2 for them
  double load_requests = 0, store_requests = 0;  // warp-level global load / store requests
  double requested_load_bytes = 0;  // what the threads asked for: efficiency x sectors x 32
  double requested_store_bytes = 0;
  double requested_load_gbs = 0;    // requested bytes / duration (the seeds' RGLT / RGST)
  double requested_store_gbs = 0;
  double sm_activity_pct = 0;       // SM cycles with at least one warp resident / elapsed cycles
  double achieved_occupancy_pct = 0;  // average active warps / maximum warps per SM
  double warp_instructions = 0;
  double gips = 0;                  // warp instructions per second / 1e9 (seed 003)
  double ffma = 0, fadd = 0, fmul = 0;  // thread-level FP32 instructions
  double flops = 0;                 // 2 x FFMA + FADD + FMUL
  double dram_read_bytes = 0, dram_write_bytes = 0;
  std::vector<std::string> missing;  // metrics the CSV did not have (derived values then 0)

  double dram_bytes() const { return dram_read_bytes + dram_write_bytes; }
  // flops / (requested load + store bytes / element_bytes): operations per element a thread
  // loads or stores, the quantity the seeds' CGMA formulas count.
  double measured_cgma(double element_bytes = 4) const;
  // flops / warp-level global requests: the per-request ratio (closer to what seed 003's profiler counted).
  double flops_per_request() const;
};

// Combines the launches (counts and bytes summed, percentages weighted by duration).
// Throws Error when `launches` is empty.
ProfileMetrics derive_profile(const std::vector<NcuLaunch>& launches);

// The launches whose kernel name contains `function` (a bare identifier such as "naive_gemm");
// all of them when `function` is empty. Throws Error naming the kernels present when none matches.
std::vector<NcuLaunch> select_launches(const std::vector<NcuLaunch>& all, const std::string& function);

// Looks at ncu's combined output for the ways it fails without producing a table (no access to
// the performance counters, no CUDA device or driver, nothing profiled) and throws Error with the
// reason and what to do. Returns normally when none is found.
void check_ncu_output(const std::string& text, int exit_status);

}  // namespace gemmlab
