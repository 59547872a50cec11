#!/usr/bin/env bash
# The command outputs in the docs that need a GPU, made again on one: every block under a
# `<!-- gemmlab-gpu-output: ARGS | COMMIT, DEVICE -->` marker (scripts/docs_outputs.py --gpu),
# with the marker's commit and device rewritten. The changed docs come back as a patch to apply
# here: $OUT/docs-gpu-outputs.patch (`git apply` it in the checkout the run was made from).
#   OUT=dir scripts/device/docs-gpu-outputs.sh      (after a build, or a prebuilt CLI unpacked)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}
mkdir -p "$out"
[ -x build/gemmlab ] || scripts/build >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
files=(README.md CONTRIBUTING.md docs/*.md docs/kernels/*.md)
tmp=$(mktemp -d)
cp --parents "${files[@]}" "$tmp/"
scripts/python scripts/docs_outputs.py --update --gpu --gemmlab build/gemmlab --root . || exit 1
for f in "${files[@]}"; do diff -u "$tmp/$f" "$f" --label "a/$f" --label "b/$f"; done >"$out/docs-gpu-outputs.patch"
echo "patch: $(grep -c '^@@' "$out/docs-gpu-outputs.patch") hunks in $out/docs-gpu-outputs.patch"
