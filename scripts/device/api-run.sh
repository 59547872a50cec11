#!/usr/bin/env bash
# The library's GPU run, in one device call: build (if needed), the GPU tests, compute-sanitizer on
# the API tests' library paths, the examples against the installed package, `gemmlab explain` on a
# few shapes, and the benchmarks: `gemmlab bench` (every suite, cuBLAS/cuBLASLt in the same process)
# and torch's figures for the same cases. Ends with a compact summary. Everything under $OUT.
#   STEPS="build tests sanitize examples explain tune bench torch lab" (default: all but tune)
#   BENCH_ARGS="--suite layouts --layout-size 4096" (passed to gemmlab bench)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-build/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
steps=${STEPS:-build tests sanitize examples explain bench torch lab}
summary=()
status=0
note() { summary+=("$(printf '%-30s %s' "$1" "$2")"); }
want() { [[ " $steps " == *" $1 "* ]]; }
export GEMMLAB_COMMIT=${GEMMLAB_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}

if want build; then
  t0=$SECONDS
  if scripts/build >"$out/build.log" 2>&1; then note build "ok ($((SECONDS - t0)) s)"; else
    note build "FAILED"; tail -40 "$out/build.log"; printf '%s\n' "${summary[@]}"; exit 1; fi
  for lib in build/libgemmlab.a build/libgemmlab_lab.a; do cuobjdump --dump-resource-usage "$lib"; done >"$out/resources.txt" 2>&1
  spills=$(grep -cE "STACK:[1-9]|LOCAL:[1-9]" "$out/resources.txt")
  if [ "$spills" -eq 0 ]; then note "register spills" "none ($(grep -c Function "$out/resources.txt") kernels)"; else
    note "register spills" "$spills kernels use a stack frame"; status=1
    grep -B1 -E "STACK:[1-9]|LOCAL:[1-9]" "$out/resources.txt" | grep Function | cut -c1-200 | head; fi
fi

if want tests; then
  t0=$SECONDS
  (cd build && ctest -L gpu --output-on-failure --timeout 600 -j 4 >"$out/gpu-tests.log" 2>&1)
  rc=$?
  note "GPU tests" "$(grep -E "tests passed|tests failed" "$out/gpu-tests.log" | tail -1) ($((SECONDS - t0)) s)"
  if [ $rc -ne 0 ]; then status=1; grep -E "^\s+[0-9]+ - |Failure|Expected|Which is|error" "$out/gpu-tests.log" | head -40; fi
fi

if want sanitize; then
  # The four tools at once (one process each on the one GPU), each capped so that one slow tool
  # cannot eat the device budget; a timeout is reported as such, not as clean.
  t0=$SECONDS
  filter=${SANITIZE_FILTER:-*ApiTyped.EveryLayout*:*ApiTyped.AwkwardShapes*:*ApiTyped.Epilogues*:*ApiTyped.StridedBatches*:*ApiGroupedTyped.GroupPatterns*:*ApiGraph*}
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    ( timeout "${SANITIZE_TIMEOUT:-240}" compute-sanitizer --tool "$tool" --error-exitcode 99 build/tests/gemmlab_gpu_tests \
        --gtest_filter="$filter" >"$out/sanitize-$tool.log" 2>&1; echo $? >"$out/sanitize-$tool.rc" ) &
  done
  wait
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    rc=$(cat "$out/sanitize-$tool.rc")
    ran=$(grep -c "^\[       OK \]" "$out/sanitize-$tool.log")
    if [ "$rc" -eq 0 ]; then note "sanitizer $tool (API)" "clean ($ran tests)"; elif [ "$rc" -eq 124 ]; then
      note "sanitizer $tool (API)" "timed out after $ran tests passed"; else
      note "sanitizer $tool (API)" "rc $rc"; status=1
      grep -E "ERROR SUMMARY|Invalid|Race|Barrier|Uninitialized|FAILED" "$out/sanitize-$tool.log" | head -8; fi
  done
  note "sanitizer time" "$((SECONDS - t0)) s"
fi

if want examples; then
  if OUT=$out scripts/device/examples.sh >"$out/examples.log" 2>&1; then note examples "ok"; else
    note examples "FAILED"; status=1; tail -30 "$out/examples.log"; fi
fi

if want explain; then
  {
    for args in "-s 4096 --precision bf16" "-s 8192 --precision bf16" "-m 16 -n 8192 -k 8192 --precision bf16" \
                "-s 4096 --precision tf32 --layout TN" "-s 4096 --precision fp32" "-m 4097 -n 4095 -k 4093 --precision fp16" \
                "-s 4096 --precision bf16 --bias col --activation gelu --output same" \
                "-m 16384 -n 4096 -k 7168 --precision bf16 --groups 8" "-s 4096 --precision bf16 --determinism batch_invariant"; do
      echo "\$ gemmlab explain $args"
      build/gemmlab explain $args
    done
  } >"$out/explain.txt" 2>&1
  note explain "$(grep -c kernel "$out/explain.txt") plans"
fi

if want tune; then
  # The dispatch table of this GPU: data/dispatch/<gpu>.json once copied into the repository.
  t0=$SECONDS
  build/gemmlab tune --table "$out/table.json" ${TUNE_ARGS:-} >"$out/tune.txt" 2>"$out/tune.err"
  rc=$?
  note "gemmlab tune --table" "rc $rc ($((SECONDS - t0)) s)"
  [ $rc -eq 0 ] || { status=1; tail -20 "$out/tune.err"; }
fi

if want bench; then
  t0=$SECONDS
  build/gemmlab bench ${BENCH_ARGS:-} --json "$out/bench.json" >"$out/bench.txt" 2>"$out/bench.err"
  rc=$?
  note "gemmlab bench" "rc $rc ($((SECONDS - t0)) s)"
  [ $rc -eq 0 ] || { status=1; tail -20 "$out/bench.err"; }
fi

if want torch; then
  python3 scripts/device/torch_anchors.py "$out/torch.json" >"$out/torch.txt" 2>&1 && note "torch anchors" ok ||
    { note "torch anchors" FAILED; tail -20 "$out/torch.txt"; }
fi

if want lab; then
  build/gemmlab lab --kernels 'auto.*' --sizes 256,1024,4096 --iters 20 --json "$out/lab-auto.json" >"$out/lab-auto.txt" 2>&1 ||
    status=1
  note "lab auto" "done"
fi

echo
for f in tune.txt bench.txt torch.txt explain.txt; do [ -f "$out/$f" ] && { echo "== $f"; cat "$out/$f"; }; done
[ -f "$out/lab-auto.txt" ] && { echo "== lab-auto.txt"; tail -30 "$out/lab-auto.txt"; }
echo
echo "== api-run summary ($GEMMLAB_COMMIT) =="
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null
printf '%s\n' "${summary[@]}"
exit $status
