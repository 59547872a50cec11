#!/usr/bin/env bash
# Twelfth session, round 2: tile width, cluster, tile rows and the stream-K tail of
# tc.tma_epilogue.bf16 on the shape suite's weakest shapes, each configuration alternating with
# cuBLAS (run --interleave, 40 runs), two rounds. Needs build/gemmlab.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
g=build/gemmlab
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  for r in 1 2; do
    for s in "-m 2048 -n 2048 -k 2048" "-m 1024 -n 1024 -k 1024" "-m 1000 -n 1000 -k 1000" "-m 4096 -n 4096 -k 1024" \
             "-m 8192 -n 1024 -k 8192" "-m 16384 -n 16384 -k 512"; do
      for p in "tile_n=0" "tile_n=128 --param cluster=1" "tile_n=256 --param cluster=1" "tile_n=256 --param cluster=2" \
               "tile_m=256 --param tile_n=128 --param cluster=2" "tile_n=0 --param stream_k=0" "tile_n=0 --param stream_k=2"; do
        line=$($g run --kernel tc.tma_epilogue.bf16 $s --param $p --iters 40 --interleave 2>&1 | grep -E "^tc|rror" | head -1)
        echo "#$r | $s | $p | $line"
      done
    done
  done
} 2>&1 | tee "$out/2-shapes.txt"
