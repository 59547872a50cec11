#!/usr/bin/env bash
# Temporary development round (not committed): epilogue by st.global instead of TMA stores.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}; mkdir -p "$out"
g=build/gemmlab
export PATH=$PATH:/usr/local/cuda/bin
{
echo "== correctness (direct)"
for k in tc.tma_epilogue.bf16 tc.tma_epilogue.fp16; do for o in f32 same; do
  for shp in "4096 2048 128" "3328 2560 1000" "200 264 72" "1 8 8" "2000 4104 72" "1000 1000 1000"; do
    set -- $shp
    r=$(GEMMLAB_EXP_DIRECT=1 timeout 60 $g run --kernel $k -m $1 -n $2 -k $3 --output $o --warmup 1 --iters 3 --no-cublas 2>&1)
    echo "rc=$? $k $o $shp $(echo "$r" | grep -E '^verification' | cut -c1-60)"
  done
done; done
for tool in memcheck racecheck; do
  r=$(GEMMLAB_EXP_DIRECT=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel tc.tma_epilogue.bf16 -m 520 -n 776 -k 264 --warmup 0 --iters 1 --no-cublas 2>&1)
  echo "$tool rc=$? $(echo "$r" | grep "ERROR SUMMARY")"
done
echo "== bench"
for n in 4096 8192; do for o in f32 same; do
  for k in tc.tma_epilogue.bf16 tc.tma_epilogue.fp16; do for d in 0 1 0 1; do
    echo "direct=$d"; GEMMLAB_EXP_DIRECT=$d timeout 100 $g run --kernel $k --size $n --output $o --iters 30 2>&1 | grep -E "^(tc|cublas)"
  done; done
done; done
} 2>&1 | tee "$out/direct.txt"
