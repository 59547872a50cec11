#!/usr/bin/env bash
# Round 3 (round 6 with PHASES=sustained6): round 2's power measurement again, keeping nvidia-smi's samples this time (round 2's
# were lost to the limit on returned files): each of the kernel and cuBLAS alone for a few seconds
# of back-to-back runs, 8 s apart, in both orders, while nvidia-smi samples SM clock, power and the
# clock-event reasons every 50 ms. TF32 at 8192 (1500 runs each) and BF16 at 4096 (10000 runs).
# Then round3-power.py lines the samples up with the runs. Everything lands in one tarball.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"; work=$(mktemp -d)
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-1), $NF}'; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee "$work/gpu.txt"
reasons=$(nvidia-smi --help-query-gpu | grep -o 'clocks_event_reasons.active\|clocks_throttle_reasons.active' | head -1)
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,$reasons --format=csv,noheader,nounits -lms 50 >"$work/smi.csv" &
smi=$!
mark() { echo "$(date '+%Y/%m/%d %H:%M:%S.%3N') $*" >>"$work/marks.txt"; }
phase() {  # label kernel size iters
  sleep 8
  echo "== $1: $2 alone, $3, $4 runs"
  mark "start $1 $2"
  $g run --kernel $2 --size $3 --iters $4 --max-seconds 30 --no-cublas --json "$work/$1-$2.json" | row
  mark "end $1 $2"
}
{
  if [ "${PHASES:-}" = sustained6 ]; then  # round 6: the other headline comparisons
    phase bf16-8192-kernel-first tc.tma_epilogue.bf16 8192 3000
    phase bf16-8192-kernel-first cublas.bf16 8192 3000
    phase bf16-8192-cublas-first cublas.bf16 8192 3000
    phase bf16-8192-cublas-first tc.tma_epilogue.bf16 8192 3000
    phase fp16-4096-kernel-first tc.tma_epilogue.fp16 4096 10000
    phase fp16-4096-kernel-first cublas.fp16 4096 10000
    phase tf32-4096-kernel-first tc.swapped.tf32 4096 6000
    phase tf32-4096-kernel-first cublas.tf32 4096 6000
    phase fp32-4096-kernel-first fp32.tuned 4096 1000
    phase fp32-4096-kernel-first cublas.fp32 4096 1000
    phase fp32-4096-cublas-first cublas.fp32 4096 1000
    phase fp32-4096-cublas-first fp32.tuned 4096 1000
  else
    phase tf32-kernel-first tc.swapped.tf32 8192 1500
    phase tf32-kernel-first cublas.tf32 8192 1500
    phase tf32-cublas-first cublas.tf32 8192 1500
    phase tf32-cublas-first tc.swapped.tf32 8192 1500
    phase bf16-kernel-first tc.tma_epilogue.bf16 4096 10000
    phase bf16-kernel-first cublas.bf16 4096 10000
    phase bf16-cublas-first cublas.bf16 4096 10000
    phase bf16-cublas-first tc.tma_epilogue.bf16 4096 10000
  fi
} 2>&1 | tee "$work/runs.txt"
sleep 1; kill $smi
python3 "$(dirname "$0")/round3-power.py" "$work" | tee "$work/summary.txt"
cp "$work/runs.txt" "$work/summary.txt" "$out/"
tar -C "$work" -czf "$out/${PHASES:-3}-power.tar.gz" .
