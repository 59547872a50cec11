#!/usr/bin/env bash
# The library's GPU run, in one device call: build (if needed), the GPU tests, the examples,
# `gemmlab explain` on a few shapes, the benchmarks (`gemmlab bench`, cuBLAS/cuBLASLt in the same
# process, and torch's figures for the same cases), compute-sanitizer on the API tests' library
# paths, and the dispatch table (`gemmlab tune --table`). Ends with a compact summary. Everything
# under $OUT. Steps run in that order of importance, each under its own time cap, so that a run
# cut short still returns what matters most.
#   STEPS="build tests retests examples explain bench torch flush shapes coldtune tunes sanitize race tune lab"
#   (default: all but retests, flush, shapes, coldtune, tunes, race, tune, lab)
#   BENCH_ARGS="--suite layouts --layout-size 4096" (passed to gemmlab bench)
#   CAP_TESTS=240 CAP_BENCH=150 CAP_TORCH=60 CAP_FLUSH=240 CAP_SANITIZE=240 CAP_RACE=150 CAP_TUNE=600 (seconds)
#   RACE_CASES="--precision tf32 -s 1000;--precision bf16 -m 2000 -n 4000 -k 520" (the race step: racecheck on
#   one `gemmlab run --kernel auto` call each, without the lab's reference or cuBLAS)
#   FLUSH_PRECISIONS=bf16 FLUSH_ROUNDS=2 (the flush step: the shape suite with the L2 flushed by a write, then by
#   a read, FLUSH_ROUNDS times; src/harness/l2_flush.hpp)
#   SHAPES_PRECISIONS="bf16 fp16 tf32 fp32" SHAPES_SUITES=shapes (the shapes step: the shape suite of each, as
#   docs/results/<gpu>/shapes holds it, shapes-P.json and shapes-P.txt; "shapes heldout" adds the held-out shapes,
#   heldout-P.*; CAP_SHAPES=150 seconds each)
#   COLDTUNE_CASES="--kernel auto.bf16 -m 16 -n 8192 -k 28672;..." (the coldtune step: `gemmlab tune` with the L2
#   flushed, the 8 fastest candidates of each case, as the suite times memory-bound shapes; CAP_COLDTUNE=100 each)
#   TUNE_CASES="tf32:700x1000x1024;bf16:64x4096x4096:TN" (the tunes step: `gemmlab tune --kernel auto.P -m M -n N
#   -k K [--layout L] --iters 20`, hot L2, every candidate of each case; the rankings in tunes.tgz, a line each in
#   tunes.txt: the pick's rank and median, the fastest candidate's, cuBLAS's; CAP_TUNES=300 seconds in all)
#   SANITIZE_FILTER, SANITIZE_RACE_FILTER, SANITIZE_INIT_FILTER, SANITIZE_TOOLS (gtest filters, tools)
#
# Prebuilt: with PREBUILT=path/to/archive.tgz (made by scripts/device/pack-prebuilt on a machine
# without a GPU, so that the device's minutes go to running, not compiling) the build step
# unpacks it instead; `retests` then reruns the GPU tests that needed the CLI of a later archive. Its paths are those of the machine that built it; the archive records that
# root and this script links it to this checkout.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-build/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
steps=${STEPS:-build tests examples explain bench torch sanitize}
summary=()
status=0
note() { summary+=("$(printf '%-30s %s' "$1" "$2")"); }
want() { [[ " $steps " == *" $1 "* ]]; }
# The per-precision lines of the summary table that `gemmlab bench --suite shapes` (or heldout) prints.
suite_summary() {
  grep -A20 '^precision  shapes' "$1" | grep -E '^(bf16|fp16|tf32|fp32) ' |
    awk '{printf "%s geomean %s, worst %s, roof %s (cuBLAS %s); ", $1, $3, $4, $(NF-4), $NF}'
}
export GEMMLAB_COMMIT=${GEMMLAB_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}

if want build; then
  t0=$SECONDS
  if [ -n "${PREBUILT:-}" ]; then
    root=$(tar xzf "$PREBUILT" -O prebuilt-root.txt)
    if [ "$(readlink -f "$root")" != "$(readlink -f "$PWD")" ]; then
      [ -e "$root" ] && { echo "the prebuilt tree's root $root exists and is not this checkout" >&2; exit 1; }
      mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
    fi
    tar xzf "$PREBUILT" --exclude prebuilt-root.txt || { note build "unpacking $PREBUILT FAILED"; printf '%s\n' "${summary[@]}"; exit 1; }
    [ -d build/prebuilt-lib ] && export LD_LIBRARY_PATH=$PWD/build/prebuilt-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    # The CLI links every kernel, the library's and the lab's.
    if [ -f build/gemmlab ] && [ ! -f build/resources-read ]; then
      cuobjdump --dump-resource-usage build/gemmlab >"$out/resources.txt" 2>&1 && touch build/resources-read
    fi
    note build "prebuilt ($(cat build/prebuilt-commit.txt 2>/dev/null), built at $root; $((SECONDS - t0)) s)"
  elif scripts/build >"$out/build.log" 2>&1; then
    note build "ok ($((SECONDS - t0)) s)"
    # ptxas's C7514: wgmma serialised because other instructions touch its accumulators inside the
    # pipeline (a float4 epilogue that shuffled them did, and slowed every TF32 main loop).
    if grep -q C7514 "$out/build.log"; then
      note "wgmma serialisation" "$(grep -c C7514 "$out/build.log") ptxas C7514 warnings"; status=1
      grep -o "in the function '[^']*'" "$out/build.log" | sort -u | head -5; fi
    for lib in build/libgemmlab.a build/libgemmlab_lab.a; do cuobjdump --dump-resource-usage "$lib"; done >"$out/resources.txt" 2>&1
  else
    note build "FAILED"; tail -40 "$out/build.log"; printf '%s\n' "${summary[@]}"; exit 1
  fi
  if [ -s "$out/resources.txt" ]; then
    spills=$(grep -cE "STACK:[1-9]|LOCAL:[1-9]" "$out/resources.txt")
    if [ "$spills" -eq 0 ]; then note "register spills" "none ($(grep -c Function "$out/resources.txt") kernels)"; else
      note "register spills" "$spills kernels use a stack frame"; status=1
      grep -B1 -E "STACK:[1-9]|LOCAL:[1-9]" "$out/resources.txt" | grep Function | cut -c1-200 | head; fi
  fi
fi

if want tests; then
  t0=$SECONDS
  (cd build && timeout "${CAP_TESTS:-240}" ctest -L gpu --output-on-failure --timeout 600 -j 4 >"$out/gpu-tests.log" 2>&1)
  rc=$?
  res=$(grep -E "tests passed|tests failed" "$out/gpu-tests.log" | tail -1)
  [ $rc -eq 124 ] && res="time cap reached after $(grep -c "Passed" "$out/gpu-tests.log") passed"
  note "GPU tests" "$res ($((SECONDS - t0)) s)"
  if [ $rc -ne 0 ]; then status=1; grep -E "^\s+[0-9]+ - |Failure|Expected|Which is|error" "$out/gpu-tests.log" | head -40; fi
fi

if want retests; then
  # With PREBUILT archives the GPU tests ran before the CLI was unpacked: the tests that run the CLI
  # failed then, and run again now (all of those tests when this machine kept no record).
  t0=$SECONDS
  if [ -s build/Testing/Temporary/LastTestsFailed.log ]; then sel=(--rerun-failed); else
    sel=(-R "LabCli|SweepGpu|Transfer|OccupancyOnGpu|PeakOnGpu|ProfileOnGpu"); fi
  (cd build && timeout "${CAP_TESTS:-240}" ctest -L gpu "${sel[@]}" --output-on-failure --timeout 300 -j 4 >"$out/gpu-retests.log" 2>&1)
  rc=$?
  note "GPU tests needing the CLI" "$(grep -E "tests passed|tests failed|No tests were found" "$out/gpu-retests.log" | tail -1) ($((SECONDS - t0)) s)"
  if [ $rc -ne 0 ]; then status=1; grep -E "^\s+[0-9]+ - |Failure|Expected|Which is|error" "$out/gpu-retests.log" | head -30; fi
fi

if want examples; then
  if [ -n "${PREBUILT:-}" ]; then
    # The examples as the local install test built them against the installed package.
    ok=0
    for example in multiply batched grouped epilogue; do
      bin=build/test-install/examples-shared/$example
      echo "== examples/$example.cpp: \$ ./$example" >>"$out/examples.txt"
      if timeout 60 "$bin" >>"$out/examples.txt" 2>&1; then ok=$((ok + 1)); else status=1; echo "rc $?" >>"$out/examples.txt"; fi
      echo >>"$out/examples.txt"
    done
    note examples "$ok of 4 passed"
  elif OUT=$out scripts/device/examples.sh >"$out/examples.log" 2>&1; then note examples "ok"; else
    note examples "FAILED"; status=1; tail -30 "$out/examples.log"; fi
fi

if want explain; then
  {
    for args in "-s 4096 --precision bf16" "-s 8192 --precision bf16" "-m 16 -n 8192 -k 8192 --precision bf16" \
                "-s 4096 --precision tf32 --layout TN" "-s 4096 --precision fp32" "-m 4097 -n 4095 -k 4093 --precision fp16" \
                "-s 4096 --precision bf16 --bias col --activation gelu --output same" \
                "-m 16384 -n 4096 -k 7168 --precision bf16 --groups 8" "-s 4096 --precision bf16 --determinism batch_invariant"; do
      echo "\$ gemmlab explain $args"
      timeout 30 build/gemmlab explain $args
    done
  } >"$out/explain.txt" 2>&1
  note explain "$(grep -c kernel "$out/explain.txt") plans"
fi

if want bench; then
  t0=$SECONDS
  timeout "${CAP_BENCH:-150}" build/gemmlab bench ${BENCH_ARGS:-} --json "$out/bench.json" >"$out/bench.txt" 2>"$out/bench.err"
  rc=$?
  note "gemmlab bench" "rc $rc ($((SECONDS - t0)) s)"
  [ $rc -eq 0 ] || { status=1; tail -20 "$out/bench.err"; }
fi

if want torch; then
  timeout "${CAP_TORCH:-60}" python3 scripts/device/torch_anchors.py "$out/torch.json" >"$out/torch.txt" 2>&1 &&
    note "torch anchors" ok || { note "torch anchors" FAILED; tail -20 "$out/torch.txt"; }
fi

if want flush; then
  # The same binary, the two ways of flushing L2 alternately (docs/shapes.md, "How the L2 is flushed").
  t0=$SECONDS
  for round in $(seq "${FLUSH_ROUNDS:-2}"); do
    for mode in write read; do
      f="$out/flush-$mode-$round"
      GEMMLAB_L2_FLUSH=$mode timeout "${CAP_FLUSH:-240}" build/gemmlab bench --suite shapes \
        --precisions "${FLUSH_PRECISIONS:-bf16}" --shape-seconds 0.15 --iters 20 --json "$f.json" >"$f.txt" 2>"$f.err" ||
        { status=1; tail -5 "$f.err"; }
      note "flush $mode, round $round" "$(suite_summary "$f.txt")"
    done
  done
  note "flush time" "$((SECONDS - t0)) s"
fi

if want shapes; then
  # The shape suite as docs/shapes.md's tables are measured, one precision at a time; with
  # SHAPES_SUITES="shapes heldout" also the held-out shapes (bench --suite heldout, seed 1).
  for suite in ${SHAPES_SUITES:-shapes}; do
    for p in ${SHAPES_PRECISIONS:-bf16 fp16 tf32 fp32}; do
      t0=$SECONDS
      f="$out/$suite-$p"
      timeout "${CAP_SHAPES:-150}" build/gemmlab bench --suite "$suite" --precisions "$p" --shape-seconds 0.15 --iters 20 \
        --json "$f.json" >"$f.txt" 2>"$f.err" || { status=1; tail -5 "$f.err"; }
      note "$suite ($((SECONDS - t0)) s)" "$(suite_summary "$f.txt")"
    done
  done
fi

if want coldtune; then
  # Every candidate dispatch could take for a memory-bound shape, timed as the shape suite times it.
  IFS=';' read -r -a cases <<<"${COLDTUNE_CASES:---kernel auto.bf16 -m 16 -n 8192 -k 28672;--kernel auto.bf16 -m 16 -n 4096 -k 4096}"
  t0=$SECONDS
  for c in "${cases[@]}"; do
    echo "== gemmlab tune $c --cold --iters 30 --top 8"
    # shellcheck disable=SC2086
    timeout "${CAP_COLDTUNE:-100}" build/gemmlab tune $c --cold --iters 30 --top 8 2>&1 | tail -12 || status=1
  done >"$out/coldtune.txt"
  note "coldtune" "${#cases[@]} cases ($((SECONDS - t0)) s)"
fi

if want tunes; then
  # Every candidate dispatch could take for each case, ranked, with the library's pick marked: how
  # a dispatch rule is found and checked (docs/shapes.md cites these rankings).
  IFS=';' read -r -a cases <<<"${TUNE_CASES:-tf32:1000x1000x1000}"
  t0=$SECONDS
  mkdir -p "$out/tunes"
  for c in "${cases[@]}"; do
    IFS=':' read -r p shape layout <<<"$c"
    IFS='x' read -r m n k <<<"$shape"
    f="$out/tunes/$p-$shape${layout:+-$layout}.txt"
    left=$((${CAP_TUNES:-300} - (SECONDS - t0)))
    [ $left -gt 0 ] || { echo "$c: not run (CAP_TUNES)"; continue; }
    timeout "$left" build/gemmlab tune --kernel "auto.$p" -m "$m" -n "$n" -k "$k" ${layout:+--layout "$layout"} --iters 20 >"$f" 2>&1 ||
      { status=1; echo "$c: tune failed: $(tail -1 "$f")"; continue; }
    # Rank lines end "<median ms> <share>%" and the pick's "<- gemm()"; cuBLAS's line starts with its name.
    awk -v c="$c" '
      /^ +[0-9]+ / { for (i = NF; i > 0; i--) if ($i ~ /%$/) break; ms = $(i - 1)
                     if ($1 == 1) best = ms; if ($NF == "gemm()") { rank = $1; pick = ms } }
      /^ +cuBLAS / { cublas = $2 }
      END { printf "%-28s pick #%s %s ms, fastest %s ms, cuBLAS %s ms\n", c, rank, pick, best, cublas }' "$f"
  done >"$out/tunes.txt"
  (cd "$out" && tar czf tunes.tgz tunes && rm -rf tunes)
  note "tunes" "${#cases[@]} cases ($((SECONDS - t0)) s)"
fi

if want sanitize; then
  # The four tools at once (one process each on the one GPU), each capped so that one slow tool
  # cannot eat the device budget; a tool stopped by its cap reports how many tests it finished
  # clean, and any error it had found by then fails the run.
  t0=$SECONDS
  # racecheck is an order of magnitude slower than the others: it gets the 16-bit cases only.
  filter=${SANITIZE_FILTER:-*ApiTyped.AwkwardShapes*:*ApiTyped.EveryLayout*:*ApiGroupedTyped.GroupPatterns*:*ApiGraph*}
  race_filter=${SANITIZE_RACE_FILTER:-*ApiTyped.AwkwardShapes*/bf16_bf16:*ApiGroupedTyped.GroupPatterns*/bf16_f32}
  # initcheck does not count TMA stores as initialising memory, so split-K's partial sums stored
  # through the TMA read as uninitialised in its second pass (docs/verification.md): the awkward
  # shapes, which split K, are left to the other three tools.
  init_filter=${SANITIZE_INIT_FILTER:-*ApiTyped.EveryLayout*:*ApiGroupedTyped.GroupPatterns*:*ApiGraph*}
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    f=$filter; [ "$tool" = racecheck ] && f=$race_filter; [ "$tool" = initcheck ] && f=$init_filter
    ( timeout "${CAP_SANITIZE:-240}" compute-sanitizer --tool "$tool" --error-exitcode 99 build/tests/gemmlab_gpu_tests \
        --gtest_filter="$f" >"$out/sanitize-$tool.log" 2>&1; echo $? >"/tmp/sanitize-$tool.rc" ) &
  done
  wait
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    rc=$(cat "/tmp/sanitize-$tool.rc")
    ran=$(grep -c "^\[       OK \]" "$out/sanitize-$tool.log")
    if [ "$rc" -eq 0 ]; then note "sanitizer $tool (API)" "clean ($ran tests)"; elif [ "$rc" -eq 124 ]; then
      errs=$(grep -cE "^========= (Invalid|Race|Barrier|Uninitialized|Error)" "$out/sanitize-$tool.log")
      note "sanitizer $tool (API)" "$ran tests clean, then the time cap ($errs error reports)"; [ "$errs" -eq 0 ] || status=1; else
      note "sanitizer $tool (API)" "rc $rc"; status=1
      grep -E "ERROR SUMMARY|Invalid|Race|Barrier|Uninitialized|FAILED" "$out/sanitize-$tool.log" | head -8; fi
  done
  note "sanitizer time" "$((SECONDS - t0)) s"
fi

if want race; then
  # racecheck over the library's own kernels at shapes of their own (the sanitize step's racecheck
  # takes only the 16-bit API tests): one launch each, no reference, no cuBLAS, so that the tool's
  # time goes to gemmlab's kernels. Each case's log is written as it runs.
  IFS=';' read -r -a cases <<<"${RACE_CASES:---precision tf32 -s 1000;--precision bf16 -m 2000 -n 4000 -k 520}"
  for i in "${!cases[@]}"; do
    t0=$SECONDS
    # shellcheck disable=SC2086
    timeout "${CAP_RACE:-150}" compute-sanitizer --tool racecheck --error-exitcode 99 build/gemmlab run --kernel auto \
      ${cases[$i]} --warmup 0 --iters 1 --no-verify --no-cublas >"$out/race-$i.log" 2>&1
    rc=$?
    hazards=$(grep -cE "^========= (Race|Error)" "$out/race-$i.log")
    case $rc in
      0) note "racecheck ${cases[$i]}" "clean ($((SECONDS - t0)) s)" ;;
      124) note "racecheck ${cases[$i]}" "time cap, $hazards reports"; [ "$hazards" -eq 0 ] || status=1 ;;
      *) note "racecheck ${cases[$i]}" "rc $rc, $hazards reports"; status=1; grep -E "^=========" "$out/race-$i.log" | head -5 ;;
    esac
  done
fi

if want tune; then
  # The dispatch table of this GPU: data/dispatch/<gpu>.json once copied into the repository. It is
  # written after each class, so a run stopped by the cap keeps the classes it finished.
  t0=$SECONDS
  timeout "${CAP_TUNE:-600}" build/gemmlab tune --table "$out/table.json" ${TUNE_ARGS:-} >"$out/tune.txt" 2>"$out/tune.err"
  rc=$?
  note "gemmlab tune --table" "rc $rc ($((SECONDS - t0)) s)"
  [ $rc -eq 0 ] || { [ $rc -eq 124 ] || status=1; tail -5 "$out/tune.err"; }
fi

if want lab; then
  build/gemmlab lab --kernels 'auto.*' --sizes 256,1024,4096 --iters 20 --json "$out/lab-auto.json" >"$out/lab-auto.txt" 2>&1 ||
    status=1
  note "lab auto" "done"
fi

echo
for f in bench.txt torch.txt tunes.txt tune.txt; do [ -f "$out/$f" ] && { echo "== $f"; cat "$out/$f"; }; done
[ -f "$out/lab-auto.txt" ] && { echo "== lab-auto.txt"; tail -30 "$out/lab-auto.txt"; }
echo
# The commit the binaries were built at: a prebuilt archive records it (the device's copy of the
# tree may carry older git metadata than the machine that built it).
commit=$GEMMLAB_COMMIT
[ -n "${PREBUILT:-}" ] && [ -f build/prebuilt-commit.txt ] && commit=$(head -1 build/prebuilt-commit.txt)
echo "== api-run summary ($commit) =="
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null
printf '%s\n' "${summary[@]}"
# The device tool returns a limited number of loose files: past 16, everything goes back as one
# archive (extract it with tar xzf all.tgz).
if [ "$(find "$out" -type f | wc -l)" -gt 16 ]; then
  tar czf /tmp/api-run-all.tgz -C "$out" . && rm -rf "${out:?}"/* && mv /tmp/api-run-all.tgz "$out/all.tgz" &&
    echo "(the $out files are in $out/all.tgz)"
fi
exit $status
