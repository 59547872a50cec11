#!/usr/bin/env bash
# Round 3: the TF32 kernel as committed (fragments one k-tile ahead, precomputed offsets), and where
# the BF16 kernel's instructions go (SASS, Nsight Compute source counters).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-2), $(NF-1), $NF}'; }
{
  for shp in "-m 300 -n 100 -k 36" "-m 1 -n 4 -k 4" "-m 4097 -n 4092 -k 4096" "-m 3328 -n 2560 -k 200" "-m 129 -n 260 -k 4100"; do
    for c in 1 2; do for sk in 0 2; do
      echo "cluster $c stream_k $sk $shp: $($g run --kernel tc.swapped.tf32 $shp --param cluster=$c --param stream_k=$sk --warmup 0 --iters 2 --no-cublas 2>&1 | grep -oE 'ok [0-9.e+-]+|FAIL[^|]*|error.*' | head -1)"
    done; done
  done
  for rnd in 1 2; do for s in 2048 4096 8192; do
    echo "== round $rnd tf32 $s interleaved"; $g run --kernel tc.swapped.tf32 --size $s --iters 30 --interleave | row
  done; done
} 2>&1 | tee "$out/tf32-final.txt"
for tool in memcheck racecheck synccheck initcheck; do
  compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel tc.swapped.tf32 -m 3328 -n 2560 -k 200 \
      --param stream_k=2 --warmup 0 --iters 1 --no-cublas >/dev/null 2>&1; echo "$tool rc=$?"
  compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel tc.swapped.tf32 --size 97 --warmup 0 --iters 1 --no-cublas >/dev/null 2>&1; echo "$tool 97 rc=$?"
done 2>&1 | tee "$out/sanitizer.txt"
cuobjdump -sass $g 2>/dev/null | awk '/Function : .*hopper_gemm/ {p=1} /Function : / && !/hopper_gemm/ {p=0} p' | gzip >"$out/hopper-sass.txt.gz"
ncu --clock-control none -k regex:"hopper_gemm" -c 1 --section SourceCounters --page source --print-source sass --csv \
  $g run --kernel tc.tma_epilogue.bf16 --size 4096 --warmup 0 --iters 1 2>&1 | gzip >"$out/bf16-source.csv.gz"
zcat "$out/bf16-source.csv.gz" | head -5 | cut -c1-400
ls -la "$out"
