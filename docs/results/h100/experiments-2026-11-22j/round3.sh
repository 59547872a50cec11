#!/usr/bin/env bash
# Round 3: the SASS of fp32.tuned's 4096^3 kernel with reuse flags (ncu's listing drops them), and
# cuBLAS SGEMM's stall reasons and source counters at 4096^3.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
cuobjdump -sass -fun '_ZN7gemmlab4fp3214pipelined_gemmINS0_15PipelinedConfigILi2ELi4ELi16ELi3ELb1ELi16EEEEEvNS0_13PipelinedArgsE' $g \
  | gzip >"$out/tuned-4096.sass.gz"
zcat "$out/tuned-4096.sass.gz" | grep -c FFMA
m=sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.sum,sm__inst_executed_pipe_fmalite.sum
for r in barrier dispatch_stall long_scoreboard math_pipe_throttle no_instruction not_selected selected short_scoreboard wait; do
  m=$m,smsp__warp_issue_stalled_${r}_per_warp_active.pct; done
k='regex:^sm80_xmma_gemm_f32f32'
ncu --clock-control none -k "$k" -c 1 --metrics $m $g run --kernel cublas.fp32 --size 4096 --warmup 0 --iters 1 >"$out/ncu-cublas-stalls-4096.txt" 2>&1
grep -E "xmma|elapsed|issue_active|inst_executed|fma_cycles|stalled" "$out/ncu-cublas-stalls-4096.txt" | sed -E 's/ +/ /g' | cut -c1-150
ncu --clock-control none -k "$k" -c 1 --section SourceCounters --page source --print-source sass --csv \
  $g run --kernel cublas.fp32 --size 4096 --warmup 0 --iters 1 2>&1 | gzip >"$out/cublas-source-4096.csv.gz"
zcat "$out/cublas-source-4096.csv.gz" | grep '"Kernel Name"' | cut -c1-200
ls -la "$out"
