#!/usr/bin/env bash
# After scripts/gpu-check in the same device session (it leaves build/), eleventh session: fp32.streamk
# with the tail off, on after the whole tiles (early_tail=0) and on early (early_tail=1); fp32.tuned at
# 4096 and 8192 alternating with cuBLAS (run --interleave); the FP32 ladder's step-6 default; and
# fp32.tuned over the shape suite.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
g=build/gemmlab
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  for s in 4096 8192; do
    for m in "stream_k=0" "stream_k=1 --param early_tail=0" "stream_k=1 --param early_tail=1"; do
      echo "== fp32.streamk $s $m"; $g run --kernel fp32.streamk --size $s --param $m --iters 20 --interleave
    done
    for r in 1 2; do echo "== fp32.tuned $s (#$r)"; $g run --kernel fp32.tuned --size $s --iters 20 --interleave; done
    echo "== fp32.raster $s"; $g run --kernel fp32.raster --size $s --iters 20 --interleave
  done
  SUITE=1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,16384x16384x16384,4096x4096x1024,8192x1024x8192,1000x1000x1000,4097x4095x4093,16384x16384x512
  $g lab --kernels fp32.tuned --shapes "$SUITE" --iters 10 --json "$out/fp32-suite.json"
} 2>&1 | tee "$out/runs.txt"
