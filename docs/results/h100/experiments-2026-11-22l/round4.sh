#!/usr/bin/env bash
# Twelfth session, round 4: clusters of 1 against 2, shapes between 4 and 16 waves of 128 x 256 tiles,
# over square and short-K shapes, each alternating with cuBLAS (run --interleave), two rounds.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
g=build/gemmlab
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  for r in 1 2; do
    for s in "-m 5120 -n 5120 -k 5120" "-m 6144 -n 4096 -k 4096" "-m 8192 -n 4096 -k 4096" "-m 8192 -n 4096 -k 2048" \
             "-m 4096 -n 4096 -k 8192" "-m 6144 -n 6144 -k 2048" "-m 8192 -n 8192 -k 4096" "-m 8192 -n 8192 -k 8192"; do
      for p in bf16 fp16; do
        for c in 2 1; do
          [ $p = fp16 ] && continue
          it=40; case "$s" in *8192*8192*8192*|*16384*) it=20;; esac
          line=$($g run --kernel tc.tma_epilogue.$p $s --param cluster=$c --iters $it --interleave 2>&1 | grep -E "^tc|rror" | head -1)
          echo "#$r | $s | $p cluster=$c | $line"
        done
      done
    done
  done
} 2>&1 | tee "$out/4-clusters.txt"
