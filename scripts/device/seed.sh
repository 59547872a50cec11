#!/usr/bin/env bash
# The seed ladder end to end on a GPU (gemmlab issue 3): the seed and broken-kernel GPU tests,
# compute-sanitizer on every seed kernel at an awkward size, and the four seed studies with their
# JSON/CSV records. Everything under $OUT/seed (default build/out/seed).
#
# Expected time on an H100, build excluded: about 3.5 minutes
#   GPU tests (ctest -L gpu -R "Seed|Broken|seed_")  ~90 s  (~500 verified runs; 13 sizes up to 3200)
#   compute-sanitizer memcheck + racecheck          ~60 s  (11 configurations x 2 tools, one run each)
#   study seed000                                    ~5 s  (39 cells at 64..256)
#   study seed003                                   ~20 s  (65 cells; seed.single_block at 528 ~0.1 s a run)
#   study seed004                                   ~30 s  (36 cells up to 3200, LinearInit)
#   study seed002                                    ~2 s
# A fresh build (scripts/build) comes first when build/gemmlab is missing: a few minutes more.
# SANITIZE_TOOLS="memcheck racecheck synccheck initcheck" runs all four tools (~60 s more);
# SANITIZE_TOOLS="" skips the sanitizer. STUDY_ARGS overrides "--iters 20 --max-seconds 0.5".
#
# What to look at (summary.txt collects it):
#   tests.log          every test passed (BrokenKernels.*: the verifier rejects each
#                      class of seed error; SeedKernels.*: every seed kernel x block x study size)
#   sanitizer-*.log    "ERROR SUMMARY: 0 errors" for every kernel
#   seed000.txt ...    the seed-style tables; the last lines: "check: N of N measurements verified",
#                      no "NOT OK" line. The JSON/CSV files are what docs/kernels/seed-ladder.md's
#                      H100 table is filled from.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}/seed
mkdir -p "$out"
out=$(cd "$out" && pwd)
exe=build/gemmlab
if [ ! -x "$exe" ] || [ ! -d build/tests ]; then
  scripts/build >"$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; tail -30 "$out/build.log"; exit 1; }
fi
status=0
t_all=$SECONDS
: >"$out/summary.txt"
note() { printf '%s\n' "$*" | tee -a "$out/summary.txt"; }

# 1. GPU tests of the seed ladder, its studies and the broken kernels.
t0=$SECONDS
(cd build && ctest -L gpu -R "Seed|Broken|seed_" --output-on-failure -j 1 >"$out/tests.log" 2>&1)
rc=$?
[ $rc -eq 0 ] || status=1
note "$(printf '%-26s rc=%d %4d s  %s' "gpu tests" $rc $((SECONDS - t0)) \
  "$(grep -E "tests passed|tests failed" "$out/tests.log" | tail -1)")"
grep -E "^\s*[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Exception)" "$out/tests.log" | tee -a "$out/summary.txt"

# 2. compute-sanitizer: every seed kernel with its default parameters, plus the other output counts
# and the largest blocks, at a shape no tile divides (edges exercised).
t0=$SECONDS
configs=()
for id in $("$exe" list --ids | grep '^seed\.'); do configs+=("--kernel $id"); done
configs+=("--kernel seed.double_buffer --block 32 -p outputs=2" "--kernel seed.prefetch_2x2 --block 32"
          "--kernel seed.quadrant --block 32 -p outputs=8" "--kernel seed.quadrant --block 32 -p outputs=16")
for tool in ${SANITIZE_TOOLS-memcheck racecheck}; do
  bad=()
  for c in "${configs[@]}"; do
    read -r -a kargs <<<"$c"
    log=$(compute-sanitizer --tool "$tool" --error-exitcode 99 "$exe" run "${kargs[@]}" -m 100 -n 70 -k 45 \
          --warmup 0 --iters 1 --no-cublas 2>&1)
    rc=$?
    { echo "== $c: rc=$rc"; echo "$log" | tail -4; } >>"$out/sanitizer-$tool.log"
    [ $rc -eq 0 ] || bad+=("[$c]")
  done
  if [ ${#bad[@]} -eq 0 ]; then note "$(printf '%-26s clean (%d runs)' "sanitizer $tool" ${#configs[@]})"; else
    note "$(printf '%-26s ERRORS: %s' "sanitizer $tool" "${bad[*]}")"; status=1; fi
done
note "$(printf '%-26s %4d s' "sanitizer time" $((SECONDS - t0)))"

# 3. The four studies, with their records.
read -r -a study_args <<<"${STUDY_ARGS:---iters 20 --max-seconds 0.5}"
for s in seed000 seed003 seed004 seed002; do
  t0=$SECONDS
  "$exe" study "$s" "${study_args[@]}" --json "$out/$s.json" --csv "$out/$s.csv" >"$out/$s.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  note "$(printf '%-26s rc=%d %4d s  %s' "study $s" $rc $((SECONDS - t0)) "$(grep -E '^check:' "$out/$s.txt" | cut -c1-90)")"
  grep -E "NOT OK|gemmlab: error" "$out/$s.txt" | head -5 | tee -a "$out/summary.txt"
done

note "total $((SECONDS - t_all)) s, status $status (0 = all passed); outputs in $out"
exit $status
