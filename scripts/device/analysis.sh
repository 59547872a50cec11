#!/usr/bin/env bash
# The analysis commands end to end on a GPU (issue 5): peaks and the roofline, occupancy (model vs
# driver, offline model via cuobjdump), Nsight Compute profiles of the seed-000 methods, and the
# analysis GPU tests. Writes everything under ${OUT:-build/out}/analysis; ends with a summary.
# Expected run time on an H100: about 2-3 minutes after the build (the profiles dominate).
#   scripts/device/analysis.sh                 everything
#   PROFILE_SIZES="256" scripts/device/analysis.sh   fewer profile sizes
# What to look at:
#   peak.txt             measured vs theoretical (FP32 ~ 60-67 TFLOPS, HBM3 ~ 2.9-3.2 TB/s on an H100 SXM)
#   occupancy_*.txt      "model agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor" in each
#   occupancy_offline_*  the --gpu h100 model from cuobjdump: same registers and blocks as the device table
#   profile_*.txt        seed 000 Table 1 per kernel/block/size; the FLOP count ~ 1.00 x 2MNK
#   ncu_raw_naive.csv    a real 'ncu --csv --page raw' capture: replace tests/fixtures/analysis/ncu_raw_naive.csv
#                        with it if the fixture's metric set differs (then re-run the CPU tests)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/out}/analysis
mkdir -p "$out"
out=$(cd "$out" && pwd)
summary=()
status=0
step() { summary+=("$(printf '%-44s %s' "$1" "$2")"); }

[ -x build/gemmlab ] || scripts/build >"$out/build.log" 2>&1 || { echo "build failed (see $out/build.log)"; exit 1; }
gl=build/gemmlab
# ncu and cuobjdump usually live in the CUDA toolkit's bin directory.
for d in "${CUDA_HOME:-}/bin" /usr/local/cuda/bin; do
  if [ -d "$d" ] && ! command -v ncu >/dev/null; then export PATH="$PATH:$d"; fi
done
command -v ncu >/dev/null && ncu --version | tail -1 >"$out/ncu_version.txt"

t0=$SECONDS
if $gl peak --json "$out/peaks.json" >"$out/peak.txt" 2>&1; then step "gemmlab peak" "ok ($((SECONDS - t0)) s)"; else
  step "gemmlab peak" "FAILED: $(tail -1 "$out/peak.txt")"; status=1; fi
cat "$out/peak.txt"

# Occupancy: seed.naive and two other kernels that exist (device: model vs driver).
ids=$($gl list --ids | grep -v '^cublas\.')
pick=(seed.naive $(echo "$ids" | grep -v '^seed\.naive$' | head -2))
for id in "${pick[@]}"; do
  f="$out/occupancy_${id}.txt"
  if $gl occupancy --kernel "$id" --size 4096 >"$f" 2>&1 && grep -q "model agrees" "$f"; then
    step "occupancy $id" "model == driver"
  else step "occupancy $id" "DISAGREES or failed (see $(basename "$f"))"; status=1; fi
  # The offline model of the same GPU from the compiled binary (cuobjdump): should match the table above.
  $gl occupancy --gpu h100 --kernel "$id" --size 4096 >"$out/occupancy_offline_${id}.txt" 2>&1 ||
    { step "occupancy --gpu h100 $id" "FAILED: $(tail -1 "$out/occupancy_offline_${id}.txt")"; status=1; }
done
$gl occupancy --gpu gt240 --threads 64,256,484 --regs 16 --smem 44 >"$out/occupancy_seed003_table2.txt" 2>&1

# Profiles of seed 000's methods (single block, naive, double-buffered with 2 and 4 outputs).
t0=$SECONDS
nprof=0
nfail=0
nskip=0
saved=0
profile() {  # id size block [param]
  local id=$1 n=$2 b=$3 extra=${4:-}
  local tag="${id}_b${b}_n${n}${extra:+_${extra//=/}}"
  local args=(--kernel "$id" --size "$n" --block "$b" --json "$out/profile_${tag}.json")
  [ -n "$extra" ] && args+=(--param "$extra")
  if [ "$saved" -eq 0 ] && [ "$id" = seed.naive ]; then args+=(--save-csv "$out/ncu_raw_naive.csv"); saved=1; fi
  nprof=$((nprof + 1))
  if ! $gl profile "${args[@]}" >"$out/profile_${tag}.txt" 2>&1; then
    if grep -qE "is not allowed|cannot run" "$out/profile_${tag}.txt"; then  # a configuration the kernel refuses
      nskip=$((nskip + 1))
      return
    fi
    nfail=$((nfail + 1))
    echo "profile $tag: $(tail -1 "$out/profile_${tag}.txt")" >>"$out/profile_failures.txt"
  fi
}
for n in ${PROFILE_SIZES:-256 4096}; do
  for b in 8 16 32; do
    if echo "$ids" | grep -qx seed.single_block; then
      # One block on one SM: 4096^3 would take minutes under ncu's replays.
      [ "$n" -le 1024 ] && profile seed.single_block "$n" "$b"
    fi
    echo "$ids" | grep -qx seed.naive && profile seed.naive "$n" "$b"
    if echo "$ids" | grep -qx seed.double_buffer; then
      profile seed.double_buffer "$n" "$b" outputs=2
      profile seed.double_buffer "$n" "$b" outputs=4
    fi
  done
done
if [ $nfail -eq 0 ]; then step "gemmlab profile (seed 000 methods)" "$((nprof - nskip)) ok, $nskip refused by the kernel ($((SECONDS - t0)) s)"; else
  step "gemmlab profile (seed 000 methods)" "$nfail of $nprof FAILED (profile_failures.txt)"; status=1; fi
[ -f "$out/profile_failures.txt" ] && head -5 "$out/profile_failures.txt"
[ -f "$out/profile_seed.naive_b16_n256.txt" ] && cat "$out/profile_seed.naive_b16_n256.txt"

# The roofline in `run`, with the measured peaks.
if $gl run --kernel seed.naive --size 4096 --iters 10 --peaks "$out/peaks.json" >"$out/run_roofline.txt" 2>&1; then
  step "run --roofline --peaks" "ok"; else step "run --roofline --peaks" "FAILED"; status=1; fi
cat "$out/run_roofline.txt"

# The analysis GPU tests.
t0=$SECONDS
if [ -x build/tests/gemmlab_gpu_tests ]; then
  build/tests/gemmlab_gpu_tests --gtest_filter='OccupancyOnGpu.*:PeakOnGpu.*:ProfileOnGpu.*' >"$out/gpu_tests.txt" 2>&1
  rc=$?
  step "GPU tests (analysis)" "$(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests.txt" | tr '\n' ' ') ($((SECONDS - t0)) s)"
  [ $rc -eq 0 ] || { status=1; grep -E "Failure|FAILED|Expected|Which is" "$out/gpu_tests.txt" | head -30; }
fi

echo
echo "== analysis summary =="
printf '%s\n' "${summary[@]}"
exit $status
