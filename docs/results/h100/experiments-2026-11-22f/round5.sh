#!/usr/bin/env bash
# Round 5: the small shapes of the BF16 suite, which run 128 x 128 tiles (6 stages, no cluster) with
# at most two tiles per CTA: 1000^3 and 2048^3 measured slower in the 23b65b4 ladder than before.
# build/gemmlab-base = ca2c22a, build/gemmlab-new = 23b65b4 (the deferred epilogue), built on the
# workstation; alternating with cuBLAS, 3 rounds of 100 runs.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
b=build/gemmlab-base; g=build/gemmlab-new
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s %s\n", $1, $(NF-8), $(NF-4), $(NF-2), $(NF-1), $NF}'; }
{
  for rnd in 1 2 3; do
    for s in 1000 1024 2048 "2048 --param tile_n=256"; do
      echo "== round $rnd size $s"
      echo " base"; $b run --kernel tc.tma_epilogue.bf16 --size $s --iters 100 --interleave | row
      echo " new";  $g run --kernel tc.tma_epilogue.bf16 --size $s --iters 100 --interleave | row
    done
  done
} 2>&1 | tee "$out/5-timing.txt"
