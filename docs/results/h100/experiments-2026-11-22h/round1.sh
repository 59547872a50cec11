#!/usr/bin/env bash
# The FP32 stream-K tail (fp32.streamk, step 8; fp32.tuned, step 9) on the H100: build, its GPU tests,
# the four sanitizer tools with the tail forced on, and timings alternating with cuBLAS (run
# --interleave): the tail off and on at 4096 and 8192, fp32.tuned at both, and fp32.tuned's suite.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
scripts/build >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
g=build/gemmlab
cuobjdump --dump-resource-usage build/libgemmlab.a 2>/dev/null | grep -A1 pipelined_gemm | grep -o "REG:[0-9]* STACK:[0-9]*" | sort | uniq -c
build/tests/gemmlab_gpu_tests --gtest_filter='*fp32*:*StreamK*' 2>&1 | tail -n 25 >"$out/gpu-tests.txt"
grep -E "PASSED|FAILED|SKIPPED" "$out/gpu-tests.txt"
for tool in memcheck racecheck synccheck initcheck; do
  for sh in "-m 3328 -n 2560 -k 200" "-m 333 -n 517 -k 1001" "-m 2176 -n 2048 -k 64"; do
    r=$(compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel fp32.streamk $sh --param stream_k=2 \
        --warmup 0 --iters 2 --no-cublas 2>&1)
    echo "$tool [$sh] rc=$? $(echo "$r" | grep -E 'ERROR SUMMARY' | head -1) $(echo "$r" | grep -oE 'check [a-z]+' | head -1)"
  done
done | tee "$out/sanitizer.txt"
row() { grep -E "^(fp32|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-16s median %s ms  stddev %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-1), $NF}'; }
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  for s in 4096 8192; do
    for m in 0 1 0 1; do
      echo "== fp32.streamk $s stream_k=$m"; $g run --kernel fp32.streamk --size $s --param stream_k=$m --iters 20 --interleave
    done
    echo "== fp32.tuned $s"; $g run --kernel fp32.tuned --size $s --iters 20 --interleave
  done
  SUITE=1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,16384x16384x16384,4096x4096x1024,8192x1024x8192,1000x1000x1000,4097x4095x4093,16384x16384x512
  $g lab --kernels fp32.tuned --shapes "$SUITE" --iters 10 --json "$out/fp32-suite.json"
} 2>&1 | tee "$out/runs.txt"
