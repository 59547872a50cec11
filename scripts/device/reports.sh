#!/usr/bin/env bash
# Sweeps, reports and compare on a real GPU, end to end. Expected run time: about 2-3 minutes
# after the build (most of it the first sweep; it grows with the number of kernels).
#
#   OUT=/some/dir scripts/device/reports.sh
#
# Writes to ${OUT:-build/out} (8 files at most, no subfolders):
#   sweep.json         all kernels (default parameters) and cuBLAS, sizes 256..4096 (x2)
#   blocks.json        seed.naive over blocks 8,16,32,64 (64 is not allowed: must be recorded as
#                      skipped with the reason), sizes 256..2048, plus a resumed interruption
#   report.html        gemmlab report sweep.json (self-contained: open it in a browser)
#   report_blocks.html gemmlab report blocks.json sweep.json --baseline seed.naive (+ --peaks when
#                      `gemmlab peak --json` exists)
#   compare.txt        gemmlab compare sweep.json blocks.json (the configurations both measured:
#                      expect "within noise" for nearly all; a few % on tiny sizes is plausible)
#   log.txt            every command, its exit status and its output, and the checks below
# What to look at: log.txt's CHECK lines (all must say ok); in report.html the per-kernel charts
# (GFLOPS against size, one line per block), cuBLAS on the overview, the roofline points under the
# roof, the per-size tables (verification column all "ok"); compare.txt's summary line.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$OUT/log.txt"
: >"$log"
status=0
G=build/gemmlab

run() {  # run CMD...: log the command, its output and exit status
  echo "\$ $*" >>"$log"
  "$@" >>"$log" 2>&1
  local rc=$?
  echo "-> exit $rc" >>"$log"
  return $rc
}
check() {  # check NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@" >>"$log" 2>&1; then echo "CHECK ok: $name" | tee -a "$log"; else
    echo "CHECK FAILED: $name" | tee -a "$log"
    status=1
  fi
}
py() { scripts/python -c "$@"; }

t0=$SECONDS
if ! run scripts/build; then echo "build failed (see $log)"; tail -30 "$log"; exit 1; fi
echo "build: $((SECONDS - t0)) s" | tee -a "$log"
check "python3 with matplotlib" scripts/python -c 'import matplotlib'
if ! run $G devices; then echo "no usable GPU (see $log)"; exit 1; fi

# 1. All kernels, default parameters, 5 sizes, few runs each.
t0=$SECONDS
run $G sweep --sizes 256:4096:x2 --iters 10 --warmup 2 --max-seconds 0.5 --json "$OUT/sweep.json" --overwrite
check "sweep exit status 0 (no verification failure)" test "$(tail -1 "$log")" = "-> exit 0"
echo "sweep: $((SECONDS - t0)) s" | tee -a "$log"
check "sweep.json: every record ok or skipped with a reason; every kernel has a ratio to cuBLAS" py "
import json, sys
r = json.load(open('$OUT/sweep.json'))['results']
bad = [x for x in r if x['status'] not in ('ok', 'skipped') or (x['status'] == 'skipped' and not x.get('reason'))]
noratio = [x['kernel'] for x in r if x['status'] == 'ok' and x['family'] != 'baseline' and 'ratio_to_cublas' not in x]
print(len(r), 'records;', sum(x['status'] == 'ok' for x in r), 'ok; bad:', bad[:3], 'no ratio:', noratio[:5])
sys.exit(1 if bad or noratio else 0)"

# 2. Blocks for seed.naive, interrupted (SIGINT once 3 records are written) and resumed:
#    nothing lost, nothing twice.
t0=$SECONDS
blocks=(sweep --kernels seed.naive --block 8,16,32,64 --sizes 256:2048:x2 --iters 10 --max-seconds 0.5
        --json "$OUT/blocks.json" --csv "$work/blocks.csv")
echo "\$ $G ${blocks[*]} --overwrite   (interrupted with SIGINT)" >>"$log"
$G "${blocks[@]}" --overwrite >>"$log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  sleep 0.1
  kill -0 $pid 2>/dev/null || break
  [ "$(grep -c '"kernel":' "$OUT/blocks.json" 2>/dev/null || echo 0)" -ge 3 ] && break
done
kill -INT $pid 2>/dev/null
wait $pid
echo "-> exit $? (interrupted)" >>"$log"
check "interrupted sweep left a valid JSON file" py "import json; print(len(json.load(open('$OUT/blocks.json'))['results']), 'records before resuming')"
run $G "${blocks[@]}" --resume
check "resumed sweep: 4 sizes x (cuBLAS + 4 blocks) records, each once, block=64 skipped with its reason" py "
import json, sys
r = json.load(open('$OUT/blocks.json'))['results']
keys = [(x['kernel'], x['params'], x['m']) for x in r]
skips = [x for x in r if x['params'] == 'block=64']
print(len(r), 'records', len(set(keys)), 'distinct;', [x.get('reason') for x in skips][:1])
sys.exit(0 if len(r) == 20 and len(set(keys)) == 20 and all(x['status'] == 'skipped' and 'not allowed' in x['reason'] for x in skips) else 1)"
check "CSV has the same records as the JSON" py "
import csv, json
assert len(list(csv.DictReader(open('$work/blocks.csv')))) == len(json.load(open('$OUT/blocks.json'))['results'])"
echo "blocks sweep: $((SECONDS - t0)) s" | tee -a "$log"

# 3. Reports.
peaks=()
if $G --help | grep -qE '^ +peak ' && run $G peak --json "$work/peaks.json" && [ -s "$work/peaks.json" ]; then
  peaks=(--peaks "$work/peaks.json")
fi
run $G report "$OUT/sweep.json" -o "$work/report"
check "report of sweep.json" test -s "$work/report/report.html"
if ! run $G report "$OUT/blocks.json" "$OUT/sweep.json" -o "$work/report_blocks" --baseline seed.naive "${peaks[@]}"; then
  if [ ${#peaks[@]} -gt 0 ]; then  # peak's JSON may not be the schema report reads (docs/reports.md)
    echo "report with --peaks failed: retrying without" | tee -a "$log"
    run $G report "$OUT/blocks.json" "$OUT/sweep.json" -o "$work/report_blocks" --baseline seed.naive
  fi
fi
check "report of blocks.json + sweep.json with speed-ups" test -s "$work/report_blocks/report.html"
check "report PNGs are 800 x 500" py "
import glob, struct, sys
bad = []
for f in glob.glob('$work/report*/*.png'):
    d = open(f, 'rb').read(24)
    if d[:8] != b'\x89PNG\r\n\x1a\n' or struct.unpack('>II', d[16:24]) != (800, 500): bad.append(f)
n = len(glob.glob('$work/report*/*.png'))
print(n, 'plots; wrong:', bad)
sys.exit(1 if bad or n == 0 else 0)"
cp "$work/report/report.html" "$OUT/report.html" 2>/dev/null
cp "$work/report_blocks/report.html" "$OUT/report_blocks.html" 2>/dev/null

# 4. Compare the two runs where they overlap (seed.naive default block and cuBLAS).
$G compare "$OUT/sweep.json" "$OUT/blocks.json" >"$OUT/compare.txt" 2>&1
echo "compare exit $?" >>"$OUT/compare.txt"
check "compare found common configurations" grep -q "configurations in both" "$OUT/compare.txt"
tail -3 "$OUT/compare.txt" | tee -a "$log"

echo "total: $SECONDS s; outputs in $OUT" | tee -a "$log"
exit $status
