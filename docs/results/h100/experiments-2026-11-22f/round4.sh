#!/usr/bin/env bash
# Round 4: round 3's spreading with round 2's way of picking the box (round4-defer-select.patch on
# ca2c22a: held[b] chosen by a compare per unrolled box, not moved down as in round 3; held cleared
# after the flush so that its registers are free in the stream-K fix-up). A box every
# GEMMLAB_DEFER_STRIDE k-tiles (1 = every k-tile from the first; s > 1: k-tiles 1, s+1, ...), 4
# boxes deferred with FP32 and 16-bit C. Base (ca2c22a) and the round-2 build in the same call,
# alternating with cuBLAS; float64 checks of each stride.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
b=build/gemmlab-base; g=build/gemmlab-defer3
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s %s\n", $1, $(NF-8), $(NF-4), $(NF-2), $(NF-1), $NF}'; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
{
  for st in 1 2 4 8 16; do
    for shape in "-m 4097 -n 4092 -k 4096" "-m 129 -n 260 -k 4100" "-m 2176 -n 2048 -k 520" "-m 2063 -n 2056 -k 64"; do
      for o in f32 same; do
        echo " stride $st $shape output=$o: $(GEMMLAB_DEFER_STRIDE=$st $g run --kernel tc.tma_epilogue.bf16 $shape --output $o --iters 2 --warmup 1 --no-cublas | row)"
      done
    done
  done
} 2>&1 | tee "$out/4-checks.txt"
{
  for rnd in 1 2; do
    for cfg in "bf16 f32" "bf16 same" "fp16 f32"; do
      set -- $cfg
      echo "== round $rnd tc.tma_epilogue.$1 output=$2 4096, alternating with cuBLAS"
      echo " base"; $b run --kernel tc.tma_epilogue.$1 --size 4096 --output $2 --iters 40 --interleave | row
      echo " round 2 build"; build/gemmlab-defer run --kernel tc.tma_epilogue.$1 --size 4096 --output $2 --iters 40 --interleave | row
      for st in 1 4 8 16; do
        echo " stride $st"; GEMMLAB_DEFER_STRIDE=$st $g run --kernel tc.tma_epilogue.$1 --size 4096 --output $2 --iters 40 --interleave | row
      done
    done
  done
  echo "== 8192 bf16 f32"
  echo " base"; $b run --kernel tc.tma_epilogue.bf16 --size 8192 --iters 20 --interleave | row
  for st in 1 4 8; do
    echo " stride $st"; GEMMLAB_DEFER_STRIDE=$st $g run --kernel tc.tma_epilogue.bf16 --size 8192 --iters 20 --interleave | row
  done
} 2>&1 | tee "$out/4-timing.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
