#!/usr/bin/env bash
# Transfers end to end on a GPU (gemmlab issue 4): the link benchmark, `gemmlab transfer` in all four
# host-memory modes, the overlapped pipeline at 16384 with cuBLAS and at 4096 with the seed
# kernels, and the seed001 study with a reduced run count. Every result as JSON under $OUT.
#
# Estimated time on an H100: about 3.5 minutes (link ~15 s, 1024 x 4 modes ~10 s, 16384 cuBLAS
# pinned + overlapped ~35 s, 4096 seed kernels ~15 s, study ~2.5 min, dominated by 16384 where the
# seed kernels take ~1.7 s per run). QUICK_STUDY=1 runs the study at 512..2048 only (~20 s).
#
# What to look at (summary.txt collects the key lines):
#   link.txt           pinned 1 GiB H2D and D2H at >= 90% of the peak line; pageable well below
#   naive-1024.txt     4 modes, all "check ... ok"; Memcpy C gain of pinned-c/pinned over pageable
#   overlap-16384-cublas.txt   the "overlap at" line: pipeline / max <= 1.15 is the target
#   overlap-4096-*.txt overlapped pipeline with slow kernels (kernel-bound: ratio near 1)
#   seed001.txt        the seed's tables per size, the relative-gain tables, the summary table
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}/transfer
mkdir -p "$out"
out=$(cd "$out" && pwd)
exe=build/gemmlab
if [ ! -x "$exe" ]; then scripts/build >"$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }; fi
status=0
t_all=$SECONDS

run() {  # run NAME ARGS...: output to NAME.txt, JSON to NAME.json, time and status to the summary
  local name=$1
  shift
  local t0=$SECONDS
  "$exe" "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || status=1
  printf '%-28s rc=%d %4d s   gemmlab %s\n' "$name" $rc $((SECONDS - t0)) "$*" | tee -a "$out/summary.txt"
}
: >"$out/summary.txt"

run link link
run naive-1024 transfer --kernel seed.naive --size 1024 --host all --max-seconds 2
run overlap-16384-cublas transfer --kernel cublas.fp32 --size 16384 --host pinned,overlapped \
    --warmup 1 --runs 5 --max-seconds 8
for k in seed.naive seed.shared; do
  if "$exe" list --ids 2>/dev/null | grep -qx "$k"; then
    block=(); [ "$k" = seed.naive ] && block=(--block 32)  # the seed's 32 x 32 blocks; seed.shared: its default
    run "overlap-4096-$k" transfer --kernel "$k" "${block[@]}" --size 4096 --host pinned,overlapped --warmup 1 --max-seconds 3
  else
    echo "overlap-4096-$k: kernel $k not registered in this build, skipped" | tee -a "$out/summary.txt"
  fi
done
if [ "${QUICK_STUDY:-0}" = 1 ]; then
  run seed001 study seed001 --quick --warmup 1 --max-seconds 0.5
else
  run seed001 study seed001 --warmup 1 --max-seconds 0.25
fi

{
  echo
  echo "== key lines =="
  grep -E "^link peak|^ *1 GiB" "$out/link.txt"
  grep -hE "^overlap at|check against float64|skipped" "$out"/naive-1024.txt "$out"/overlap-*.txt 2>/dev/null
  grep -A20 "^summary:" "$out/seed001.txt" 2>/dev/null
  echo "total $((SECONDS - t_all)) s, status $status"
} | tee -a "$out/summary.txt"
exit $status
