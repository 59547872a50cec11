#!/usr/bin/env bash
# Round 5: round 4's L2 breakdown for cuBLAS's kernel (which round 4 missed), and for the default
# kernel with raster groups of 4 and 16 tile-row units (default 8): does the tile order move the
# traffic between the two L2 partitions (the "ltcfabric" source unit)?
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_write.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum
{
  ncu --clock-control none -k regex:"nvjet" -c 1 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --warmup 0 --iters 1
  for grp in 4 16; do
    ncu --clock-control none -k regex:"hopper" -c 1 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --param group=$grp --warmup 0 --iters 1 --no-cublas
  done
} >"$out/5-ncu-raw.txt" 2>&1
grep -E "^  [a-zA-Z_]|^    [a-z]" "$out/5-ncu-raw.txt" | sed -E 's/\(CUtensorMap_st.*//' | tee "$out/5-ncu-l2.txt"
