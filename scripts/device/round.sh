#!/usr/bin/env bash
# Development round on the GPU: build, all GPU tests (each capped), then quick benchmarks of the
# FP32 and tensor-core ladders with cuBLAS. Logs under $OUT. Usage: scripts/device/round.sh [bench...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}
mkdir -p "$out"
t0=$SECONDS
scripts/build >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
t0=$SECONDS
if [ "${TESTS:-1}" = 1 ]; then
  (cd build && timeout 420 ctest -L gpu --timeout 120 -j 3 --output-on-failure ${TEST_FILTER:+-R "$TEST_FILTER"} >"$out/tests.log" 2>&1)
  echo "gpu tests: rc=$? $((SECONDS - t0)) s: $(grep -E 'tests passed|tests failed' "$out/tests.log")"
  grep -E "\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)\)" "$out/tests.log" | head -40
fi
for b in "$@"; do
  echo "== $b"
  timeout 150 build/gemmlab $b 2>&1 | tail -40
done | tee "$out/bench.txt"
