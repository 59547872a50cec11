#!/usr/bin/env bash
# The figures the FP32 and tensor-core issues ask for, from one run on the GPU, plus the analysis
# tables: ladder tables at 2048/4096/8192, the shape suite (FP32 and BF16), peaks, occupancy and
# profiler tables. Logs under $OUT (default build/out). About 5 minutes on an H100 after a build.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}
mkdir -p "$out"
[ -x build/gemmlab ] || scripts/build >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
SUITE=1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,16384x16384x16384,4096x4096x1024,8192x1024x8192,1000x1000x1000,4097x4095x4093,16384x16384x512
run() { echo "\$ gemmlab $*"; timeout 300 $g "$@"; echo; }
{
  run lab --kernels 'fp32.*' --sizes 4096,8192 --iters 20 --json "$out/fp32-ladder.json"
  run lab --kernels 'fp32.tuned' --shapes "$SUITE" --iters 10 --json "$out/fp32-suite.json"
  run lab --kernels 'tc.*' --sizes 2048,4096,8192 --iters 20 --json "$out/tc-ladder.json"
  # the same ladder with every kernel timed alternately with cuBLAS runs of its own: the blocked
  # table's cuBLAS medians come from after all the kernels, at whatever power state they left
  run lab --kernels 'tc.*' --sizes 2048,4096,8192 --iters 20 --interleave --json "$out/tc-ladder-interleaved.json"
  run lab --kernels 'tc.tma_epilogue.*' --sizes 4096,8192 --output same --iters 20
  run lab --kernels 'tc.tma_epilogue.bf16' --shapes "$SUITE" --iters 10 --json "$out/bf16-suite.json"
  for s in 4096 8192; do  # whole tiles only, and the stream-K tail forced on (default: where the model predicts a gain)
    for k in tc.tma_epilogue.bf16 tc.swapped.tf32; do
      for m in 0 2; do run run --kernel $k --size $s --param stream_k=$m --iters 20; done
    done
  done
  # the best kernel of each precision timed alternately with cuBLAS (run --interleave): both medians
  # from the same stretch of clocks and power
  for s in 4096 8192; do
    for k in fp32.tuned tc.tma_epilogue.bf16 tc.tma_epilogue.fp16 tc.swapped.tf32; do
      run run --kernel $k --size $s --iters 20 --interleave
    done
  done
  run peak --json "$out/peaks.json"
  for k in seed.naive seed.shared fp32.tuned tc.tma_epilogue.bf16; do run occupancy --kernel "$k"; done
  for n in 256 4096; do
    for k in "seed.single_block --block 16" "seed.naive --block 16" "seed.double_buffer --block 16 --param outputs=2" \
             "seed.double_buffer --block 16 --param outputs=4"; do
      run profile --kernel $k --size $n
    done
  done
} 2>&1 | tee "$out/ladders.txt"
