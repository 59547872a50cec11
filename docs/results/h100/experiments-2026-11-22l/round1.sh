#!/usr/bin/env bash
# Twelfth session, round 1: the borrowed stage (tc.tma_epilogue borrow=1: the epilogue's first two
# boxes per warpgroup go into the last pipeline stage's B tile) against borrow=0, each alternating
# with cuBLAS in the same call; then correctness of both on awkward shapes, and compute-sanitizer
# on a multi-tile shape with and without the stream-K tail. Needs build/gemmlab.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
g=build/gemmlab
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  for p in bf16 fp16; do
    for r in 1 2 3; do
      for b in 0 1; do
        echo "== $p 4096 borrow=$b #$r"; $g run --kernel tc.tma_epilogue.$p --size 4096 --param borrow=$b --iters 40 --interleave 2>&1 | grep -E "^tc|^cublas|rror"
      done
    done
  done
  for r in 1 2; do
    for b in 0 1; do
      echo "== bf16 8192 borrow=$b #$r"; $g run --kernel tc.tma_epilogue.bf16 --size 8192 --param borrow=$b --iters 20 --interleave 2>&1 | grep -E "^tc|^cublas|rror"
    done
  done
  for b in 0 1; do
    echo "== bf16 2048 / 4096x4096x1024 / 8192x1024x8192 borrow=$b"
    for s in "--size 2048" "-m 4096 -n 4096 -k 1024" "-m 8192 -n 1024 -k 8192"; do
      $g run --kernel tc.tma_epilogue.bf16 $s --param borrow=$b --iters 40 --interleave 2>&1 | grep -E "^tc|^cublas|rror"
    done
  done
} 2>&1 | tee "$out/1-timing.txt"
{
  # correctness: several tiles per CTA, 1 to 33 k-tiles, ragged edges, the tail forced
  for sk in 0 2; do for c in 1 2; do
    for s in "-m 2176 -n 2048 -k 8" "-m 2176 -n 2048 -k 192" "-m 2063 -n 4104 -k 520" "-m 4097 -n 4096 -k 2056" "-m 3328 -n 2560 -k 200"; do
      echo "== borrow=1 cluster=$c stream_k=$sk $s"
      $g run --kernel tc.tma_epilogue.bf16 $s --param borrow=1 --param cluster=$c --param stream_k=$sk --iters 3 --no-cublas 2>&1 | grep -E "^tc|rror|FAIL"
    done
  done; done
  for tool in memcheck racecheck synccheck initcheck; do
    for sk in 0 2; do
      echo "== $tool borrow=1 stream_k=$sk 3328x2560x200"
      compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel tc.tma_epilogue.bf16 -m 3328 -n 2560 -k 200 \
        --param borrow=1 --param stream_k=$sk --warmup 0 --iters 1 --no-cublas 2>&1 | grep -E "ERROR SUMMARY|rror|^tc" | head -5
      echo "rc=${PIPESTATUS[0]}"
    done
  done
} 2>&1 | tee "$out/1-checks.txt"
