#!/usr/bin/env bash
# Round 2: round 1 with the kernel filter fixed (round 1's "xmma" caught the float64 reference GEMM):
# stall reasons and SASS source counters of fp32.tuned's whole-tile kernel and of cuBLAS's SGEMM.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
m=sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.sum,sm__inst_executed_pipe_fmalite.sum,sm__inst_executed_pipe_fma.sum
for r in barrier branch_resolving dispatch_stall long_scoreboard math_pipe_throttle mio_throttle no_instruction not_selected selected short_scoreboard wait; do
  m=$m,smsp__warp_issue_stalled_${r}_per_warp_active.pct; done
k='regex:^(pipelined_gemm|sm80_xmma_gemm_f32f32)'
ncu --clock-control none -k "$k" -c 2 --metrics $m $g run --kernel fp32.tuned --size 4096 --warmup 0 --iters 1 >"$out/ncu-stalls-4096.txt" 2>&1
grep -E "pipelined_gemm|xmma|elapsed|issue_active|inst_executed|fma_cycles|stalled" "$out/ncu-stalls-4096.txt" | sed -E 's/ +/ /g' | cut -c1-150
ncu --clock-control none -k "$k" -c 2 --section SourceCounters --page source --print-source sass --csv \
  $g run --kernel fp32.tuned --size 4096 --warmup 0 --iters 1 2>&1 | gzip >"$out/source-4096.csv.gz"
zcat "$out/source-4096.csv.gz" | grep '"Kernel Name"' | cut -c1-200
ls -la "$out"
