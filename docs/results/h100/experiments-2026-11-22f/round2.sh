#!/usr/bin/env bash
# Round 2: the deferred epilogue (round2-defer.patch on ca2c22a): a tile's last boxes (half of them
# with FP32 C, all with 16-bit C) wait in registers and are stored during the next tile's first
# k-tiles, while its wgmmas run. Binaries built on the workstation and carried: build/gemmlab-base =
# ca2c22a, build/gemmlab-defer = with the patch, build/gemmlab-defer-trace = with the patch and the
# round-1 trace (round2-defer-trace.patch).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
b=build/gemmlab-base; g=build/gemmlab-defer
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s %s\n", $1, $(NF-8), $(NF-4), $(NF-2), $(NF-1), $NF}'; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
{
  echo "== float64 checks of the deferred build (status, relative error)"
  for shape in "-m 300 -n 100 -k 36" "-m 4097 -n 4092 -k 4096" "-m 129 -n 260 -k 4100" "-m 1 -n 8 -k 8" \
               "-m 3328 -n 2560 -k 200" "-m 513 -n 8 -k 64" "-m 2176 -n 2048 -k 520" "-m 2063 -n 2056 -k 64" "-m 4096 -n 4096 -k 128"; do
    for p in "cluster=1" "cluster=2" "tile_m=256" "tile_n=128" "stream_k=2"; do
      for o in f32 same; do
        echo " $shape $p output=$o: $($g run --kernel tc.tma_epilogue.bf16 $shape --param $p --output $o --iters 2 --warmup 1 --no-cublas | row)"
      done
    done
    echo " $shape fp16 alpha 1.5: $($g run --kernel tc.tma_epilogue.fp16 $shape --alpha 1.5 --iters 2 --warmup 1 --no-cublas | row)"
    echo " $shape fp16 beta 0.5: $($g run --kernel tc.tma_epilogue.fp16 $shape --beta 0.5 --iters 2 --warmup 1 --no-cublas | row)"
  done
} 2>&1 | tee "$out/2-checks.txt"
{
  for rnd in 1 2 3; do
    for cfg in "bf16 f32 4096" "fp16 f32 4096" "bf16 same 4096" "fp16 same 4096" "bf16 f32 8192"; do
      set -- $cfg; it=40; [ $3 = 8192 ] && it=20
      echo "== round $rnd tc.tma_epilogue.$1 output=$2 size=$3, alternating with cuBLAS"
      echo " base";  $b run --kernel tc.tma_epilogue.$1 --size $3 --output $2 --iters $it --interleave | row
      echo " defer"; $g run --kernel tc.tma_epilogue.$1 --size $3 --output $2 --iters $it --interleave | row
    done
  done
  echo "== blocked (not alternating), bf16 4096 and 8192"
  for s in 4096 8192; do
    echo " base";  $b run --kernel tc.tma_epilogue.bf16 --size $s --iters 20 | row
    echo " defer"; $g run --kernel tc.tma_epilogue.bf16 --size $s --iters 20 | row
  done
} 2>&1 | tee "$out/2-timing.txt"
for cfg in "f32 4096" "same 4096"; do
  set -- $cfg
  GEMMLAB_TRACE=20 GEMMLAB_TRACE_FILE="$out/2-trace-bf16-$1-$2.txt" build/gemmlab-defer-trace run --kernel tc.tma_epilogue.bf16 --size $2 --output $1 --iters 40 --interleave | row
done 2>&1 | tee -a "$out/2-timing.txt"
{
  for tool in memcheck racecheck synccheck initcheck; do
    for p in "cluster=2" "cluster=1 --output same" "tile_m=256" "stream_k=2"; do
      echo " $tool $p: $(compute-sanitizer --tool $tool --error-exitcode 9 $g run --kernel tc.tma_epilogue.bf16 -m 1100 -n 650 -k 520 --param $p --iters 1 --warmup 0 --no-cublas 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | head -2 | tr '\n' ' ')"
    done
  done
} 2>&1 | tee "$out/2-sanitizer.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
