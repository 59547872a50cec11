#!/usr/bin/env bash
# Round 6: the deferred boxes stored between short loops of k-tiles instead of from inside the main
# loop (round6-segments.patch on 23b65b4: the steady-state loop has no store code in it). Is the
# slowdown of the 128 x 128 configuration (round 5) the larger loop body? build/gemmlab-base =
# ca2c22a, build/gemmlab-new = 23b65b4, build/gemmlab-seg = with the patch; alternating with
# cuBLAS; float64 checks of the new build.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
b=build/gemmlab-base; n=build/gemmlab-new; g=build/gemmlab-seg
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s %s\n", $1, $(NF-8), $(NF-4), $(NF-2), $(NF-1), $NF}'; }
{
  for shape in "-m 4097 -n 4092 -k 4096" "-m 129 -n 260 -k 4100" "-m 2176 -n 2048 -k 520" "-m 2063 -n 2056 -k 64" "-m 1000 -n 1000 -k 1000" "-m 2176 -n 2048 -k 192"; do
    for p in "cluster=2" "cluster=1" "tile_n=128 --param cluster=1" "tile_m=256"; do
      for o in f32 same; do
        echo " $shape $p output=$o: $($g run --kernel tc.tma_epilogue.bf16 $shape --param $p --output $o --iters 2 --warmup 1 --no-cublas | row)"
      done
    done
  done
} 2>&1 | tee "$out/6-checks.txt"
{
  for rnd in 1 2 3; do
    for s in 1000 1024 2048 "4096" "4096 --output same" "8192"; do
      it=100; [ "$s" = 4096 ] && it=40; [ "$s" = 8192 ] && it=20
      echo "== round $rnd size $s"
      echo " base"; $b run --kernel tc.tma_epilogue.bf16 --size $s --iters $it --interleave | row
      echo " new";  $n run --kernel tc.tma_epilogue.bf16 --size $s --iters $it --interleave | row
      echo " seg";  $g run --kernel tc.tma_epilogue.bf16 --size $s --iters $it --interleave | row
    done
  done
} 2>&1 | tee "$out/6-timing.txt"
