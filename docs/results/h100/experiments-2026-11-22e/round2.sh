#!/usr/bin/env bash
# (Ran before c61d85a: that working tree also registered cluster=4 (2 x 2 clusters), since removed.)
# Round 2, with binaries built on the workstation and carried over: build/gemmlab-head = commit
# 4589cb9, build/gemmlab = the working tree (256 x 128 option; descriptors advanced by adds;
# 32-bit shared addresses and 32-bit stream-K ranges in the producer, which removed its spills;
# clusters of 2 x 2).
# (a) The default tc.tma_epilogue and tc.swapped.tf32 of both builds, alternating with cuBLAS; the
#     new 2 x 2 clusters (cluster=4) against the default; float64 checks and the sanitizer for them.
# (b) TF32 at 8192: long blocked runs of the kernel and of cuBLAS alone (1500 runs each, 8 s
#     apart, in both orders) while nvidia-smi samples clock, power and the clock-event reasons
#     every 50 ms: does the kernel send the GPU into its slow state more than cuBLAS does? The same
#     for BF16 at 4096 (10000 runs each, twice).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab; h=build/gemmlab-head
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-1), $NF}'; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
{
  for rnd in 1 2 3; do
    for prec in bf16 fp16; do
      echo "== round $rnd, tc.tma_epilogue.$prec 4096 (default parameters), alternating with cuBLAS"
      echo " head"; $h run --kernel tc.tma_epilogue.$prec --size 4096 --iters 40 --interleave | row
      echo " new";  $g run --kernel tc.tma_epilogue.$prec --size 4096 --iters 40 --interleave | row
    done
    echo "== round $rnd, tc.swapped.tf32 4096, alternating with cuBLAS"
    echo " head"; $h run --kernel tc.swapped.tf32 --size 4096 --iters 40 --interleave | row
    echo " new";  $g run --kernel tc.swapped.tf32 --size 4096 --iters 40 --interleave | row
  done
  echo "== new build: 2 x 2 clusters (cluster=4, sharing A and B) against the default, alternating with cuBLAS"
  for rnd in 1 2 3; do
    for sz in 4096 8192; do
      it=40; [ $sz = 8192 ] && it=20
      echo " round $rnd $sz default";   $g run --kernel tc.tma_epilogue.bf16 --size $sz --iters $it --interleave | row
      echo " round $rnd $sz cluster=4"; $g run --kernel tc.tma_epilogue.bf16 --size $sz --iters $it --interleave --param cluster=4 | row
    done
  done
  echo "== new build, 16-bit C and forced stream-K tail, 4096"
  $g run --kernel tc.tma_epilogue.bf16 --size 4096 --iters 40 --interleave --output same | row
  $g run --kernel tc.tma_epilogue.bf16 --size 4096 --iters 40 --interleave --param stream_k=2 | row
} 2>&1 | tee "$out/2-ab.txt"
{
  echo "== float64 checks of cluster=4 (2 x 2) and of tile_m=256 (status, relative error)"
  for shape in "-m 300 -n 100 -k 36" "-m 4097 -n 4092 -k 4096" "-m 129 -n 260 -k 4100" "-m 1 -n 4 -k 4" \
               "-m 3328 -n 2560 -k 200" "-m 513 -n 8 -k 64" "-m 2176 -n 2048 -k 1000" "-m 2063 -n 2056 -k 520"; do
    for p in "cluster=4" "tile_m=256"; do
      for o in f32 same; do
        echo " $shape $p output=$o"
        $g run --kernel tc.tma_epilogue.bf16 $shape --param $p --output $o --iters 2 --warmup 1 --no-cublas | row
      done
      echo " $shape $p beta=0.5 fp16"
      $g run --kernel tc.tma_epilogue.fp16 $shape --param $p --beta 0.5 --alpha 1.5 --iters 2 --warmup 1 --no-cublas | row
    done
  done
  echo "== sanitizer, cluster=4"
  for tool in memcheck racecheck synccheck initcheck; do
    echo " $tool"
    compute-sanitizer --tool $tool --error-exitcode 9 $g run --kernel tc.tma_epilogue.bf16 -m 1100 -n 650 -k 520 --param cluster=4 --iters 1 --warmup 0 --no-cublas 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^tc\." | head -3
  done
} 2>&1 | tee "$out/2-checks.txt"

reasons=$(nvidia-smi --help-query-gpu | grep -o 'clocks_event_reasons.active\|clocks_throttle_reasons.active' | head -1)
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,$reasons --format=csv,noheader,nounits -lms 50 >"$out/2-smi.csv" &
smi=$!
mark() { echo "$(date '+%Y/%m/%d %H:%M:%S.%3N') $*" >>"$out/2-marks.txt"; }
{
  for order in kernel-first cublas-first; do
    if [ $order = kernel-first ]; then seq="tc.swapped.tf32 cublas.tf32"; else seq="cublas.tf32 tc.swapped.tf32"; fi
    for k in $seq; do
      sleep 8
      echo "== $order: $k alone, 8192, 1500 runs"
      mark "start $order $k"
      $g run --kernel $k --size 8192 --iters 1500 --max-seconds 30 --no-cublas --json "$out/2-$order-$k.json" | row
      mark "end $order $k"
    done
  done
  for k in tc.tma_epilogue.bf16 cublas.bf16 tc.tma_epilogue.bf16 cublas.bf16; do
    sleep 8
    echo "== $k alone, 4096, 10000 runs"
    mark "start bf16 $k"
    $g run --kernel $k --size 4096 --iters 10000 --max-seconds 30 --no-cublas | row
    mark "end bf16 $k"
  done
} 2>&1 | tee "$out/2-power.txt"
sleep 1; kill $smi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
