#!/usr/bin/env bash
# Round 5: the 16-bit kernels' TMA epilogue without the alpha multiplies when alpha = 1 (build/gemmlab)
# against 13e5a2d (build/gemmlab-head), interleaved with cuBLAS, binaries alternating.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-2), $(NF-1), $NF}'; }
{
  for a in 1 0.5; do for o in f32 same; do
    echo "alpha $a output $o 300x100x40: $(build/gemmlab run --kernel tc.tma_epilogue.bf16 -m 300 -n 100 -k 40 --alpha $a --output $o --warmup 0 --iters 2 --no-cublas | grep -oE 'ok [0-9.e+-]+|FAIL[^|]*')"
    echo "alpha $a output $o 4097x4095x4096: $(build/gemmlab run --kernel tc.tma_epilogue.bf16 -m 4097 -n 4095 -k 4096 --alpha $a --output $o --warmup 0 --iters 2 --no-cublas | grep -oE 'ok [0-9.e+-]+|FAIL[^|]*')"
  done; done
  for rnd in 1 2 3 4; do for o in f32 same; do
    echo "== round $rnd bf16 4096 output $o"
    echo " head"; build/gemmlab-head run --kernel tc.tma_epilogue.bf16 --size 4096 --output $o --iters 40 --interleave | row
    echo " new";  build/gemmlab run --kernel tc.tma_epilogue.bf16 --size 4096 --output $o --iters 40 --interleave | row
  done; done
} 2>&1 | tee "$out/alpha.txt"
