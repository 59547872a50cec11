#!/usr/bin/env bash
# Round 4: where tc.tma_epilogue.bf16's extra L2 traffic at 4096^3 comes from (Nsight Compute put
# it at 1.36 GB against cuBLAS's 1.16 GB in the previous session, for the same operand and C bytes):
# L2 sectors by source unit (SM/TMA vs the fabric between the two L2 partitions) and by operation,
# for the default kernel, the 256 x 128 tiles and cluster=1; and the instruction count of the new build.
# (cuBLAS's kernel was meant to be the third and fourth profiled kernel, but -c 2 stopped before it:
# round 5 adds it.)
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
ncu --query-metrics 2>/dev/null | grep -E "^lts__t_(sectors|requests)_srcunit" | awk '{print $1}' >"$out/4-available.txt"
want="gpu__time_duration.sum smsp__inst_executed.sum lts__t_bytes.sum lts__t_sectors.sum lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_sectors_op_red.sum lts__t_sectors_op_atom.sum dram__bytes_read.sum dram__bytes_write.sum"
for m in lts__t_sectors_srcunit_tex lts__t_sectors_srcunit_ltcfabric lts__t_sectors_srcunit_tex_op_read lts__t_sectors_srcunit_tex_op_write lts__t_sectors_srcunit_ltcfabric_op_read lts__t_sectors_srcunit_ltcfabric_op_write; do
  grep -qx "$m" "$out/4-available.txt" && want="$want $m.sum"
done
metrics=$(echo $want | tr ' ' ',')
echo "metrics: $metrics"
{
  ncu --clock-control none -k regex:"hopper|nvjet" -c 2 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --warmup 0 --iters 1
  ncu --clock-control none -k regex:"hopper" -c 1 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --param tile_m=256 --warmup 0 --iters 1 --no-cublas
  ncu --clock-control none -k regex:"hopper" -c 1 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --param cluster=1 --warmup 0 --iters 1 --no-cublas
} >"$out/4-ncu-raw.txt" 2>&1
grep -E "^  [a-zA-Z_]|^    [a-z]" "$out/4-ncu-raw.txt" | sed -E 's/\(CUtensorMap_st.*//' | tee "$out/4-ncu-l2.txt"
