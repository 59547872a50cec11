#!/usr/bin/env bash
# Round 1 (tenth session): where fp32.tuned's issue slots go now (commit 309ebab's inner loop),
# against cuBLAS's SGEMM at 4096^3: stall reasons and per-instruction source counters (SASS).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
m=sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
for r in barrier branch_resolving dispatch_stall long_scoreboard math_pipe_throttle mio_throttle no_instruction not_selected selected short_scoreboard wait; do
  m=$m,smsp__warp_issue_stalled_${r}_per_warp_active.pct; done
for k in fp32.tuned; do
  ncu --clock-control none -k regex:"pipelined_gemm|xmma" -c 4 --metrics $m $g run --kernel $k --size 4096 --warmup 0 --iters 1 >"$out/ncu-stalls-4096.txt" 2>&1
done
grep -E "pipelined_gemm|xmma|elapsed|issue_active|inst_executed|fma_cycles|stalled" "$out/ncu-stalls-4096.txt" | sed -E 's/ +/ /g' | cut -c1-150
ncu --clock-control none -k regex:"pipelined_gemm|xmma" -c 2 --section SourceCounters --page source --print-source sass --csv \
  $g run --kernel fp32.tuned --size 4096 --warmup 0 --iters 1 2>&1 | gzip >"$out/source-4096.csv.gz"
zcat "$out/source-4096.csv.gz" | head -3 | cut -c1-600
ls -la "$out"
