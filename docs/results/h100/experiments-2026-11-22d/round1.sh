#!/usr/bin/env bash
# Round 1 (2026-11-22, fourth session): TF32 fragment prefetch and epilogue variants, interleaved
# timing, BF16 and cuBLAS under Nsight Compute, and the FP32 kernel's SASS. Uses a carried
# build/gemmlab built from the working tree (GEMMLAB_TF32_VARIANT selects the temporary variant).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
run() { echo "\$ $*"; timeout 300 "$@"; echo; }
{
  # correctness of each variant: awkward shapes, the tail forced, clusters 1 and 2
  for v in 0 1 2 3; do
    for shp in "-m 300 -n 100 -k 36" "-m 1 -n 4 -k 4" "-m 4097 -n 4092 -k 4096" "-m 3328 -n 2560 -k 200"; do
      for c in 1 2; do
        echo "variant $v cluster $c $shp: $(GEMMLAB_TF32_VARIANT=$v $g run --kernel tc.swapped.tf32 $shp --param cluster=$c --param stream_k=2 --warmup 0 --iters 1 --no-cublas 2>&1 | grep -oE 'ok [0-9.e+-]+|FAIL[^|]*|error.*' | head -1)"
      done
    done
  done
  # speed: two alternating rounds at 4096, one at 8192 (interleaved with cuBLAS)
  for rnd in 1 2; do
    for v in 0 1 2 3; do
      echo "== round $rnd variant $v"
      GEMMLAB_TF32_VARIANT=$v $g run --kernel tc.swapped.tf32 --size 4096 --iters 40 --interleave | grep -E "tc.swapped|cublas"
    done
  done
  for v in 0 1 3; do
    echo "== 8192 variant $v"
    GEMMLAB_TF32_VARIANT=$v $g run --kernel tc.swapped.tf32 --size 8192 --iters 20 --interleave | grep -E "tc.swapped|cublas"
  done
  echo "== interleaved against blocked, tf32 and bf16 at 8192"
  for k in tc.swapped.tf32 tc.tma_epilogue.bf16; do
    for mode in "" --interleave "" --interleave; do
      echo "-- $k ${mode:-blocked}"; $g run --kernel $k --size 8192 --iters 20 $mode | grep -E "^\| (tc|cublas)|alternating|timed runs"
    done
  done
} 2>&1 | tee "$out/tf32-variants.txt"
# sanitizer on the prefetch variant (changed synchronisation) with the tail forced
for tool in memcheck racecheck synccheck; do
  for v in 1 3; do
    GEMMLAB_TF32_VARIANT=$v compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel tc.swapped.tf32 -m 3328 -n 2560 -k 200 \
      --param stream_k=2 --warmup 0 --iters 1 --no-cublas 2>&1 | grep -E "ERROR SUMMARY|ok " | head -2 | sed "s/^/$tool v$v: /"
  done
done 2>&1 | tee "$out/sanitizer.txt"
# Nsight Compute: ours against cuBLAS, BF16 4096
ncu --clock-control none -k regex:"hopper_gemm|nvjet|xmma" -c 2 \
  --metrics gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,smsp__cycles_active.avg,sm__cycles_elapsed.avg \
  $g run --kernel tc.tma_epilogue.bf16 --size 4096 --warmup 0 --iters 1 >"$out/ncu-bf16.txt" 2>&1
tail -60 "$out/ncu-bf16.txt"
# the FP32 kernels' SASS, for offline reading
cuobjdump -sass $g 2>/dev/null | awk '/Function : .*pipelined_gemm/ {p=1} /Function : / && !/pipelined_gemm/ {p=0} p' | gzip >"$out/fp32-sass.txt.gz"
ls -la "$out"
