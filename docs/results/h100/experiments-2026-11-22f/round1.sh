#!/usr/bin/env bash
# Round 1: where a persistent CTA of tc.tma_epilogue.bf16 spends its time per tile at 4096^3.
# build/gemmlab-trace = HEAD (ca2c22a) + round1-trace.patch (clock64/globaltimer per CTA, consumer
# warpgroup and tile: tile start, first full stage, main-loop end, epilogue end), built on the
# workstation and carried. The trace is taken from launch 20 of the kernel (warm, queue running ahead).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
t=build/gemmlab-trace
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
for cfg in "bf16 f32 4096" "bf16 same 4096" "bf16 f32 8192" "bf16 f32 2048"; do
  set -- $cfg
  it=40; [ $3 = 8192 ] && it=20
  echo "== tc.tma_epilogue.$1 output=$2 size=$3 (trace of launch 20)"
  GEMMLAB_TRACE=20 GEMMLAB_TRACE_FILE="$out/1-trace-$1-$2-$3.txt" $t run --kernel tc.tma_epilogue.$1 --size $3 --output $2 --iters $it --interleave | grep -E "^(tc|cublas)\."
done 2>&1 | tee "$out/1-timing.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
