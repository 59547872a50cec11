#!/usr/bin/env bash
# Temporary development round for tc.pingpong (not committed): correctness on awkward TMA shapes,
# sanitizer on small runs, then 4096/8192 against tc.tma_epilogue and cuBLAS in the same process.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}; mkdir -p "$out"
g=build/gemmlab
export PATH=$PATH:/usr/local/cuda/bin
{
echo "== correctness"
for k in tc.pingpong.bf16 tc.pingpong.fp16; do
  for c in 1 2 4; do for s in 4 5; do for o in f32 same; do
    for shp in "1 8 8" "200 264 72" "64 256 64" "1000 1000 1000" "3328 2560 200" "520 776 4096"; do
      set -- $shp
      r=$(timeout 60 $g run --kernel $k -m $1 -n $2 -k $3 --param cluster=$c --param stages=$s --output $o --warmup 0 --iters 1 --no-cublas 2>&1)
      rc=$?
      [ $rc -eq 0 ] || echo "FAIL rc=$rc $k c=$c s=$s $o $shp: $(echo "$r" | tail -3)"
      n_ok=$((${n_ok:-0} + (rc == 0)))
    done
  done; done; done
done
echo "correctness done: $n_ok ok"
echo "== sanitizer"
for tool in memcheck racecheck synccheck; do for c in 1 4; do
  r=$(timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel tc.pingpong.bf16 -m 520 -n 776 -k 264 --param cluster=$c --warmup 0 --iters 1 --no-cublas 2>&1)
  echo "$tool c=$c rc=$? $(echo "$r" | grep "ERROR SUMMARY")"
done; done
echo "== bench"
for n in 4096 8192; do
  timeout 100 $g run --kernel tc.tma_epilogue.bf16 --size $n --iters 30 2>&1 | grep -E "^(tc|cublas)"
  for c in 1 2 4; do for s in 4 5; do
    timeout 100 $g run --kernel tc.pingpong.bf16 --size $n --param cluster=$c --param stages=$s --iters 30 2>&1 | grep -E "^(tc|cublas)"
  done; done
done
} 2>&1 | tee "$out/pingpong.txt"
