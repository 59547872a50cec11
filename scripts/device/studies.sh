#!/usr/bin/env bash
# The seed studies, the transfer study and targets, and a sweep of every kernel drawn as a report.
# Logs and results under $OUT (default build/out). About 6 minutes on an H100 after a build.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}
mkdir -p "$out"
[ -x build/gemmlab ] || scripts/build >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
g=build/gemmlab
run() { echo "\$ gemmlab $*"; timeout ${LIMIT:-400} $g "$@"; echo "(exit $?)"; echo; }
{
  run peak --json "$out/peaks.json"
  for s in seed000 seed002 seed003 seed004; do
    run study $s --iters 20 --max-seconds 0.5 --json "$out/$s.json"
  done
  run link --json "$out/link.json"
  run transfer --kernel cublas.fp32 --size 16384 --host overlapped --json "$out/overlap.json"
  run study seed001 --warmup 1 --max-seconds 0.25 --json "$out/seed001.json"
  run sweep --kernels '*' --sizes 256:4096:x2 --iters 5 --json "$out/sweep.json"
  run report "$out/sweep.json" -o "$out/report" --baseline seed.shared --peaks "$out/peaks.json"
} 2>&1 | tee "$out/studies.txt"
