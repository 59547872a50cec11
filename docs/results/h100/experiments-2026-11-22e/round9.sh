#!/usr/bin/env bash
# (Needs the build of round9-gpc-numbering.patch, applied to c61d85a; not in the repository.)
# Round 9: the clusters numbered by GPC as a kernel parameter (`order`, 1 = by GPC, the new default;
# the numbering is probed once per device: cluster_order.cu). Float64 checks on shapes with a full
# persistent grid (where the numbering applies), with and without the stream-K tail; the sanitizer;
# L2 sectors read by the SMs; order=0 against order=1 alternating with cuBLAS; and the sustained
# BF16 run at 4096 of round 3 with order=1.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
g=build/gemmlab
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-1), $NF}'; }
{
  echo "== float64 checks, order=1"
  for shape in "-s 4096" "-s 8192" "-m 4097 -n 4092 -k 4096" "-m 3328 -n 2560 -k 1000" "-m 2176 -n 2048 -k 1000" "-m 2063 -n 2056 -k 520"; do
    for p in "stream_k=1" "stream_k=2" "stream_k=0"; do
      echo " $shape $p"; $g run --kernel tc.tma_epilogue.bf16 $shape --param order=1 --param $p --iters 2 --warmup 1 --no-cublas | row
    done
    echo " $shape fp16 output=same"; $g run --kernel tc.tma_epilogue.fp16 $shape --param order=1 --output same --iters 2 --warmup 1 --no-cublas | row
    echo " $shape fp16 beta=0.5"; $g run --kernel tc.tma_epilogue.fp16 $shape --param order=1 --beta 0.5 --iters 2 --warmup 1 --no-cublas | row
  done
  echo "== sanitizer, order=1, a full persistent grid with the stream-K tail"
  for tool in memcheck racecheck synccheck initcheck; do
    echo " $tool"; compute-sanitizer --tool $tool --error-exitcode 99 $g run --kernel tc.tma_epilogue.bf16 -m 2176 -n 2048 -k 520 --param order=1 --param stream_k=2 --iters 1 --warmup 0 --no-cublas 2>&1 | grep -E "SUMMARY|^tc\."
  done
} 2>&1 | tee "$out/9-checks.txt"
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,dram__bytes_read.sum
{
  for o in 0 1; do ncu --clock-control none -k regex:"hopper" -c 1 --metrics "$metrics" $g run --kernel tc.tma_epilogue.bf16 --size 4096 --param order=$o --warmup 1 --iters 1 --no-cublas; done
} >"$out/9-ncu-raw.txt" 2>&1
grep -E "^  [a-zA-Z_]|^    [a-z]" "$out/9-ncu-raw.txt" | sed -E 's/\(CUtensorMap_st.*//' | tee "$out/9-ncu-l2.txt"
{
  for rnd in 1 2 3; do
    for sz in 4096 8192; do
      [ $sz = 8192 ] && [ $rnd = 3 ] && continue
      it=40; [ $sz = 8192 ] && it=20
      for prec in bf16 fp16; do
        echo "== round $rnd, $prec $sz, alternating with cuBLAS"
        echo " order=0"; $g run --kernel tc.tma_epilogue.$prec --size $sz --iters $it --interleave --param order=0 | row
        echo " order=1"; $g run --kernel tc.tma_epilogue.$prec --size $sz --iters $it --interleave --param order=1 | row
      done
    done
  done
  for o in 0 1; do
    sleep 8; echo "== sustained: order=$o alone, bf16 4096, 10000 runs"; $g run --kernel tc.tma_epilogue.bf16 --size 4096 --param order=$o --iters 10000 --max-seconds 30 --no-cublas | row
    sleep 8; echo "== sustained: cublas.bf16 alone, 4096, 10000 runs"; $g run --kernel cublas.bf16 --size 4096 --iters 10000 --max-seconds 30 --no-cublas | row
  done
} 2>&1 | tee "$out/9-timing.txt"
