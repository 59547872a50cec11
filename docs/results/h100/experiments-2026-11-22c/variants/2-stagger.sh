#!/usr/bin/env bash
# Temporary development round (not committed): stagger experiment.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}; mkdir -p "$out"
g=build/gemmlab
export PATH=$PATH:/usr/local/cuda/bin
{
echo "== correctness"
for k in tc.tma_epilogue.bf16 tc.tma_epilogue.fp16 tc.swapped.tf32; do
  for shp in "4096 2048 128" "3328 2560 1000" "4096 4096 4096" "2000 4104 72"; do
    set -- $shp
    r=$(timeout 60 $g run --kernel $k -m $1 -n $2 -k $3 --param stream_k=3 --warmup 1 --iters 3 --no-cublas 2>&1)
    echo "rc=$? $k $shp $(echo "$r" | grep -E '^verification' | cut -c1-60)"
  done
done
echo "== sanitizer"
for tool in memcheck racecheck synccheck initcheck; do for k in tc.tma_epilogue.bf16 tc.swapped.tf32; do
  r=$(timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel $k -m 4096 -n 2048 -k 128 --param stream_k=3 --warmup 0 --iters 1 --no-cublas 2>&1)
  echo "$tool $k rc=$? $(echo "$r" | grep "ERROR SUMMARY")"
done; done
echo "== bench"
for n in 4096 8192; do
  for k in tc.tma_epilogue.bf16 tc.swapped.tf32 tc.tma_epilogue.fp16; do for m in 1 3 0 3; do
    timeout 100 $g run --kernel $k --size $n --param stream_k=$m --iters 30 2>&1 | grep -E "^(tc|cublas)"
  done; done
done
} 2>&1 | tee "$out/stagger.txt"
