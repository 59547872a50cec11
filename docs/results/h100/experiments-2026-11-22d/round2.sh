#!/usr/bin/env bash
# Round 2: is the TF32 gain of round 1 the kernel (epilogue and fragment offsets precomputed) or
# the interleaved timing? build/gemmlab-head: the kernels of 14f35d8 with the interleave option;
# build/gemmlab: the working tree (GEMMLAB_TF32_VARIANT 0 = offsets only, 1 = + fragments ahead).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s\n", $1, $(NF-8), $(NF-4), $(NF-2)}'; }
{
  for rnd in 1 2 3; do
    for mode in blocked interleave; do
      flag=; [ $mode = interleave ] && flag=--interleave
      echo "== round $rnd $mode tf32 4096"
      echo " head";  build/gemmlab-head run --kernel tc.swapped.tf32 --size 4096 --iters 40 $flag | row
      echo " new v0"; GEMMLAB_TF32_VARIANT=0 build/gemmlab run --kernel tc.swapped.tf32 --size 4096 --iters 40 $flag | row
      echo " new v1"; GEMMLAB_TF32_VARIANT=1 build/gemmlab run --kernel tc.swapped.tf32 --size 4096 --iters 40 $flag | row
      echo "== round $rnd $mode bf16 4096 (kernel unchanged)"
      build/gemmlab run --kernel tc.tma_epilogue.bf16 --size 4096 --iters 40 $flag | row
    done
  done
  for mode in blocked interleave blocked interleave; do
    flag=; [ $mode = interleave ] && flag=--interleave
    echo "== $mode 8192"
    echo " head tf32";  build/gemmlab-head run --kernel tc.swapped.tf32 --size 8192 --iters 20 $flag | row
    echo " new v1 tf32"; GEMMLAB_TF32_VARIANT=1 build/gemmlab run --kernel tc.swapped.tf32 --size 8192 --iters 20 $flag | row
    echo " bf16"; build/gemmlab run --kernel tc.tma_epilogue.bf16 --size 8192 --iters 20 $flag | row
  done
} 2>&1 | tee "$out/round2.txt"
m=gpu__time_duration.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
ncu --clock-control none -k regex:"hopper|nvjet|tf32f32" -c 4 --metrics $m build/gemmlab-head run --kernel tc.swapped.tf32 --size 4096 --warmup 0 --iters 1 >"$out/ncu-tf32-head.txt" 2>&1
GEMMLAB_TF32_VARIANT=1 ncu --clock-control none -k regex:"hopper" -c 2 --metrics $m build/gemmlab run --kernel tc.swapped.tf32 --size 4096 --warmup 0 --iters 1 >"$out/ncu-tf32-new.txt" 2>&1
ncu --clock-control none -k regex:"hopper|nvjet" -c 4 --metrics $m build/gemmlab run --kernel tc.tma_epilogue.bf16 --size 4096 --warmup 0 --iters 1 >"$out/ncu-bf16.txt" 2>&1
for f in "$out"/ncu-*.txt; do echo "#### $f"; grep -E "^  [a-zA-Z_]|gpu__time|gmma|wavefronts|conflicts|hit_rate|dram__bytes|lts__t_bytes|sm__throughput|inst_executed.sum|warps_active" "$f"; done
