#!/usr/bin/env bash
# Sustained load after the deferred epilogue (af52013's kernel code, unchanged at this commit): the
# fifth session's power measurement (experiments-2026-11-22e/round3.sh) again for BF16 and FP16 at
# 4096^3, FP32 C. Each of the kernel and cuBLAS alone for 10000 back-to-back runs (a few seconds,
# long enough to reach the power cap), 8 s apart, in both orders, while nvidia-smi samples SM
# clock, power and the clock-event reasons every 50 ms; then 3000 runs alternating with cuBLAS
# (run --interleave) under the same load. round3-power.py (from that folder) lines samples up with runs.
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
  phase bf16-4096-kernel-first tc.tma_epilogue.bf16 4096 10000
  phase bf16-4096-kernel-first cublas.bf16 4096 10000
  phase bf16-4096-cublas-first cublas.bf16 4096 10000
  phase bf16-4096-cublas-first tc.tma_epilogue.bf16 4096 10000
  phase fp16-4096-kernel-first tc.tma_epilogue.fp16 4096 10000
  phase fp16-4096-kernel-first cublas.fp16 4096 10000
  phase fp16-4096-cublas-first cublas.fp16 4096 10000
  phase fp16-4096-cublas-first tc.tma_epilogue.fp16 4096 10000
  for k in bf16 fp16; do
    sleep 8
    echo "== $k 4096, 3000 runs alternating with cuBLAS"
    $g run --kernel tc.tma_epilogue.$k --size 4096 --iters 3000 --max-seconds 30 --interleave | row
  done
} 2>&1 | tee "$work/runs.txt"
sleep 1; kill $smi
python3 docs/results/h100/experiments-2026-11-22e/round3-power.py "$work" | tee "$work/summary.txt"
cp "$work/runs.txt" "$work/summary.txt" "$out/"
tar -C "$work" -czf "$out/1-power.tar.gz" .
