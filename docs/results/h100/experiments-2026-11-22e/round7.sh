#!/usr/bin/env bash
# (Needs the build of round7-cluster-order.patch, applied to c61d85a; not in the repository.)
# Round 7: do CTAs that share an operand tile merge their L2 reads when they sit in the same GPC?
# smid_probe.cu / gpc_probe.cu showed that a launch of 66 clusters of 2 puts cluster c on SMs
# 2c+124, 2c+125 (mod 132), and that SM pairs are interleaved across GPCs (pair p and p + 8 share
# a GPC, p and p + 1 do not). So the default order (cluster c -> unit c, units of one tile column
# on consecutive clusters) spreads the clusters that share a B tile over different GPCs. With
# GEMMLAB_CLUSTER_ORDER=gpc (a temporary build) the clusters are numbered GPC by GPC from %smid, so
# those sharing B sit together. Round 8 (ORDER=gpcA): the clusters of one GPC get indices that are
# equal mod 8, so that (with raster groups of 8 unit rows) they take units of the same unit row and
# share A. Float64 checks, L2 sectors read by the SMs, and times alternating with cuBLAS.
set -uo pipefail
order=${ORDER:-gpc}; n=${ROUND:-7}  # round 8: ORDER=gpcA ROUND=8
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-1), $NF}'; }
{
  echo "== float64 checks with the GPC order"
  for shape in "-s 4096" "-s 8192" "-m 4097 -n 4092 -k 4096" "-m 3328 -n 2560 -k 1000" "-m 2176 -n 2048 -k 1000"; do
    for p in "stream_k=1" "stream_k=2"; do
      echo " $shape $p"; GEMMLAB_CLUSTER_ORDER=$order $g run --kernel tc.tma_epilogue.bf16 $shape --param $p --iters 2 --warmup 1 --no-cublas | row
    done
    echo " $shape output=same"; GEMMLAB_CLUSTER_ORDER=$order $g run --kernel tc.tma_epilogue.fp16 $shape --output same --iters 2 --warmup 1 --no-cublas | row
  done
} 2>&1 | tee "$out/$n-checks.txt"
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,dram__bytes_read.sum
{
  ncu --clock-control none -k regex:"hopper" -c 1 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --warmup 0 --iters 1 --no-cublas
  GEMMLAB_CLUSTER_ORDER=$order ncu --clock-control none -k regex:"hopper" -c 1 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --warmup 0 --iters 1 --no-cublas
} >"$out/$n-ncu-raw.txt" 2>&1
grep -E "^  [a-zA-Z_]|^    [a-z]" "$out/$n-ncu-raw.txt" | sed -E 's/\(CUtensorMap_st.*//' | tee "$out/$n-ncu-l2.txt"
{
  for rnd in 1 2 3; do
    for sz in 4096 8192; do
      [ $sz = 8192 ] && [ $rnd = 3 ] && continue
      it=40; [ $sz = 8192 ] && it=20
      for prec in bf16 fp16; do
        echo "== round $rnd, $prec $sz, alternating with cuBLAS"
        echo " default order"; $g run --kernel tc.tma_epilogue.$prec --size $sz --iters $it --interleave | row
        echo " $order order";     GEMMLAB_CLUSTER_ORDER=$order $g run --kernel tc.tma_epilogue.$prec --size $sz --iters $it --interleave | row
      done
    done
  done
} 2>&1 | tee "$out/$n-timing.txt"
