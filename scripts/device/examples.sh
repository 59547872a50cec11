#!/usr/bin/env bash
# The examples (examples/) on a GPU, as a user would build them: the library built in build/ and
# installed into a prefix, the examples configured and built against the installed package (linked
# to libgemmlab.so, and again to libgemmlab.a), then each run. The output of the shared builds is
# printed in full (docs/api.md's worked example comes from it); the static builds' only on failure.
# Exits non-zero if anything fails to build or any example fails its float64 check.
#
# Expected time on an H100: under a minute once build/ is up to date (each example < 1 s; the CPU
# checks dominate). build/ comes from scripts/build; it is made by it when missing (minutes).
#
# Everything under $OUT/examples (default build/out/examples):
#   build.log, install.log, configure-*.log, build-*.log   the steps' output
#   prefix/                                                the installed library
#   <example>.txt, <example>-static.txt                    what each example printed
#   summary.txt                                            one line per step and example
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-build/out}/examples
mkdir -p "$out"
out=$(cd "$out" && pwd)
prefix=$out/prefix
: >"$out/summary.txt"
note() { printf '%s\n' "$*" | tee -a "$out/summary.txt"; }
fail() {  # fail STEP LOG: the step's output, then stop
  note "FAILED: $1 (log: $2)"
  tail -n 60 "$2"
  exit 1
}

if [ ! -f build/CMakeCache.txt ]; then
  scripts/build >"$out/build.log" 2>&1 || fail "scripts/build" "$out/build.log"
else
  cmake --build build --target gemmlab_shared gemmlab_static -j "$(nproc)" >"$out/build.log" 2>&1 ||
    fail "building the library in build/" "$out/build.log"
fi
rm -rf "$prefix"
cmake --install build --prefix "$prefix" >"$out/install.log" 2>&1 || fail "cmake --install build" "$out/install.log"
note "installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"

for kind in shared static; do
  static=OFF
  [ "$kind" = static ] && static=ON
  cmake -S examples -B "$out/build-$kind" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DGEMMLAB_EXAMPLES_STATIC=$static >"$out/configure-$kind.log" 2>&1 ||
    fail "configuring examples ($kind)" "$out/configure-$kind.log"
  cmake --build "$out/build-$kind" -j "$(nproc)" >"$out/build-$kind.log" 2>&1 ||
    fail "building examples ($kind)" "$out/build-$kind.log"
done

status=0
for kind in shared static; do
  for example in multiply batched grouped epilogue; do
    suffix=""
    [ "$kind" = static ] && suffix=-static
    log=$out/$example$suffix.txt
    t0=$SECONDS
    "$out/build-$kind/$example" >"$log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    if [ "$kind" = shared ] || [ $rc -ne 0 ]; then
      echo "== examples/$example.cpp ($kind): $ build-$kind/$example"
      cat "$log"
      echo
    fi
    note "$(printf '%-10s %-7s rc=%d %3d s' "$example" "$kind" $rc $((SECONDS - t0)))"
  done
done
if [ $status -eq 0 ]; then note "all examples passed"; else note "FAILED: some examples failed (see above)"; fi
exit $status
