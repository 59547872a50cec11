#!/usr/bin/env bash
# Round 4: the 16-bit kernels' epilogue with st.shared and per-lane offsets computed once, against
# the kernels of 14f35d8 (build/gemmlab-head), interleaved with cuBLAS, alternating binaries.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-2), $(NF-1), $NF}'; }
{
  for k in tc.tma_epilogue.bf16 tc.tma_epilogue.fp16 tc.cluster.bf16 tc.wgmma.fp16; do
    for o in f32 same; do for shp in "-m 300 -n 100 -k 40" "-m 1 -n 8 -k 8" "-m 4097 -n 4095 -k 4093" "-m 3328 -n 2560 -k 200"; do
      for c in 1 2; do
        echo "$k out $o cluster $c $shp: $($g run --kernel $k $shp --output $o --param cluster=$c --warmup 0 --iters 2 --no-cublas 2>&1 | grep -oE 'ok [0-9.e+-]+|FAIL[^|]*|error.*|cannot.*' | head -1)"
      done
    done; done
  done 2>&1 | sort | uniq -c | sort -rn | head -80
  for rnd in 1 2 3; do for s in 4096 8192; do for o in f32 same; do
    echo "== round $rnd bf16 $s output $o"
    echo " head"; build/gemmlab-head run --kernel tc.tma_epilogue.bf16 --size $s --output $o --iters 30 --interleave | row
    echo " new";  $g run --kernel tc.tma_epilogue.bf16 --size $s --output $o --iters 30 --interleave | row
  done; done; done
  for s in 4096 8192; do
    echo "== fp16 $s"
    echo " head"; build/gemmlab-head run --kernel tc.tma_epilogue.fp16 --size $s --iters 30 --interleave | row
    echo " new";  $g run --kernel tc.tma_epilogue.fp16 --size $s --iters 30 --interleave | row
  done
  echo "== tf32 4096 (st.shared epilogue)"; $g run --kernel tc.swapped.tf32 --size 4096 --iters 30 --interleave | row
} 2>&1 | tee "$out/bf16-epilogue.txt"
for tool in memcheck racecheck synccheck initcheck; do
  for k in tc.tma_epilogue.bf16 tc.swapped.tf32; do
  compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel $k -m 3328 -n 2560 -k 200 \
      --param stream_k=2 --warmup 0 --iters 1 --no-cublas >/dev/null 2>&1; echo "$tool $k rc=$?"
  compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel $k --size 97 --output same --warmup 0 --iters 1 --no-cublas >/dev/null 2>&1; echo "$tool $k 97 same rc=$?"
  done
done 2>&1 | tee "$out/sanitizer.txt"
