#!/usr/bin/env bash
# Twelfth session, round 5 (after scripts/gpu-check and scripts/device/ladders.sh in the same call):
# the automatic cluster (cluster=0: 1 below 8 waves of 128 x 256 tiles) against clusters of 2, three
# alternating pairs at 4096^3 in BF16 and FP16, and 4096 x 4096 x 1024 and 8192^3 in BF16.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
g=build/gemmlab
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  for r in 1 2 3; do
    for s in "-m 4096 -n 4096 -k 4096 --kernel tc.tma_epilogue.bf16" "-m 4096 -n 4096 -k 4096 --kernel tc.tma_epilogue.fp16" \
             "-m 4096 -n 4096 -k 1024 --kernel tc.tma_epilogue.bf16" "-m 8192 -n 8192 -k 8192 --kernel tc.tma_epilogue.bf16"; do
      [ $r = 3 ] && case "$s" in *8192*) continue;; esac
      for c in 0 2; do
        it=40; case "$s" in *8192*) it=20;; esac
        line=$($g run $s --param cluster=$c --iters $it --interleave 2>&1 | grep -E "^tc|rror" | head -1)
        echo "#$r | $s | cluster=$c | $line"
      done
    done
  done
} 2>&1 | tee "$out/5-auto-cluster.txt"
