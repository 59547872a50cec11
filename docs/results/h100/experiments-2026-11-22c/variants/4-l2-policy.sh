#!/usr/bin/env bash
# Temporary development round (not committed): L2 eviction hints on the TMA copies.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}; mkdir -p "$out"
g=build/gemmlab
{
for k in tc.tma_epilogue.bf16 tc.swapped.tf32; do for shp in "4096 2048 128" "3328 2560 1000" "2000 4104 72"; do
  set -- $shp
  r=$(GEMMLAB_EXP_POLICY=3 timeout 60 $g run --kernel $k -m $1 -n $2 -k $3 --warmup 1 --iters 3 --no-cublas 2>&1)
  echo "rc=$? $k $shp $(echo "$r" | grep -E '^verification' | cut -c1-60)"
done; done
for n in 4096 8192; do
  for k in tc.tma_epilogue.bf16 tc.swapped.tf32; do for pol in 0 1 2 3 0 1 2 3; do
    echo "policy=$pol"; GEMMLAB_EXP_POLICY=$pol timeout 100 $g run --kernel $k --size $n --iters 30 2>&1 | grep -E "^(tc|cublas)"
  done; done
done
} 2>&1 | tee "$out/policy.txt"
