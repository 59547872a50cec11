#!/usr/bin/env bash
# Retunes this GPU's dispatch table for some precisions and measures the shape suite with the
# table before and after, in one device call (everything into $OUT/retune.tgz):
#   PREBUILT=.devcarry/cli.tgz TUNE_PRECISIONS=bf16,fp16 scripts/device/retune.sh
# 1. `gemmlab tune --table tune.json --precisions TUNE_PRECISIONS` (tune.txt);
# 2. new.json: those classes from the tune, every other class from data/dispatch/<gpu>.json;
# 3. `gemmlab bench --suite shapes` for each precision of SUITE_PRECISIONS (default all four) with
#    GEMMLAB_TABLE=new.json (new-P.*), and for the retuned precisions with the built-in table
#    first (old-P.*); with SUITES="shapes heldout" also the held-out shapes, which the table's grid
#    was not chosen from (new-heldout-P.*, old-heldout-P.*); then a summary: geometric means and
#    every shape whose share moved by more than 5 points or whose plan changed.
# new.json is what data/dispatch/<gpu>.json becomes if the new table is kept.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-build/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
case "$dev" in *H200*) gpu=h200 ;; *H100*) gpu=h100 ;; *) gpu="" ;; esac
if [ -n "${PREBUILT:-}" ]; then
  PREBUILT=$PREBUILT STEPS=build OUT=$out/build scripts/device/api-run.sh >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
  export LD_LIBRARY_PATH=$PWD/build/prebuilt-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
tune_precisions=${TUNE_PRECISIONS:-bf16,fp16}
t0=$SECONDS
build/gemmlab tune --table "$out/tune.json" --precisions "$tune_precisions" >"$out/tune.txt" 2>"$out/tune.err"
echo "tune rc $? ($((SECONDS - t0)) s)"
python3 - "$out/tune.json" "data/dispatch/$gpu.json" "$out/new.json" <<'PY'
import json, os, sys
tuned, old_path, out = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
classes = {e['types'] for e in tuned['entries']}
old = json.load(open(old_path))['entries'] if os.path.isfile(old_path) else []
tuned['entries'] += [e for e in old if e['types'] not in classes]
json.dump(tuned, open(out, 'w'), indent=1)
print(f"new.json: {len(tuned['entries'])} entries ({len(old)} in {old_path or 'no built-in table'})")
PY
for suite in ${SUITES:-shapes}; do
  for p in ${SUITE_PRECISIONS:-bf16 fp16 tf32 fp32}; do
    sides=new
    [[ ",$tune_precisions," == *",$p,"* ]] && sides="old new"
    for side in $sides; do
      table=""; [ "$side" = new ] && table="GEMMLAB_TABLE=$out/new.json"
      name=$side-$p; [ "$suite" = shapes ] || name=$side-$suite-$p
      t0=$SECONDS
      env $table build/gemmlab bench --suite "$suite" --precisions "$p" --shape-seconds 0.2 --iters 20 \
        --json "$out/$name.json" >"$out/$name.txt" 2>&1
      echo "bench $suite $p, $side table: rc $? ($((SECONDS - t0)) s)"
    done
  done
done
python3 - "$out" <<'PY'
import json, math, os, sys
out = sys.argv[1]
def load(path):
    return {r['case']: r for r in json.load(open(path))['results']}
def geomean(rows):
    return math.exp(sum(math.log(r['ratio_to_anchor']) for r in rows) / len(rows))
for suite in ('', 'heldout-'):
    for p in ('bf16', 'fp16', 'tf32', 'fp32'):
        if not os.path.exists(f'{out}/new-{suite}{p}.json'):
            continue
        name = f"{suite or 'shapes-'}{p}"
        n = load(f'{out}/new-{suite}{p}.json')
        if not os.path.exists(f'{out}/old-{suite}{p}.json'):
            print(f'{name}: geomean {geomean(n.values())*100:.1f}% (table unchanged for it)')
            continue
        o = load(f'{out}/old-{suite}{p}.json')
        print(f'{name}: geomean {geomean(o.values())*100:.1f}% with the built-in table, '
              f'{geomean(n.values())*100:.1f}% with new.json')
        for c in o:
            if o[c]['plan'] != n[c]['plan'] or abs(o[c]['ratio_to_anchor'] - n[c]['ratio_to_anchor']) > 0.05:
                print(f"  {c:34s} {o[c]['ratio_to_anchor']*100:6.1f} -> {n[c]['ratio_to_anchor']*100:6.1f}%  "
                      f"{n[c]['plan'].split(' ', 1)[1][:60]}")
PY
# The device returns a few loose files only: everything in one archive.
cd "$out" && tar czf /tmp/retune.tgz . && rm -rf ./* && mv /tmp/retune.tgz retune.tgz
