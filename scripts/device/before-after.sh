#!/usr/bin/env bash
# Benchmark figures of two builds on one machine in one device call, for "the kernels' behaviour
# did not change": the same `gemmlab lab --interleave` runs (every kernel timed alternately with
# cuBLAS) of the build before and the build after, alternated round by round (before, after,
# before, after) so that the drift of clocks and power falls on both. Then one table per kernel and
# size (scripts/device/before_after.py): each round's share of cuBLAS, the medians, the change.
#   BEFORE=old/build/gemmlab AFTER=build/gemmlab ROUNDS=2 OUT=dir scripts/device/before-after.sh
#   RUNS="tc.*:2048,4096,8192 fp32.*:4096,8192" (kernels:sizes, the default)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}
mkdir -p "$out"
before=${BEFORE:?BEFORE=path to the gemmlab of the build before}
after=${AFTER:-build/gemmlab}
rounds=${ROUNDS:-2}
runs=${RUNS:-"tc.*:2048,4096,8192 fp32.*:4096,8192"}
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    exe=$before; [ "$side" = after ] && exe=$after
    i=0
    for run in $runs; do
      i=$((i + 1))
      timeout 300 "$exe" lab --kernels "${run%%:*}" --sizes "${run##*:}" --iters 20 --interleave \
        --json "$out/$side-r$r-$i.json" >"$out/$side-r$r-$i.txt" 2>&1 || echo "$side round $r run $i: exit $?"
    done
  done
done
python3 "$(dirname "$0")/before_after.py" "$out" | tee "$out/before-after.txt"
