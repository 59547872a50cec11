#!/usr/bin/env bash
# (Ran before c61d85a: that working tree also had 256 x 128 tiles without clusters, since removed, and the producer spills.)
# Round 1: cuBLAS's tile shape for tc.tma_epilogue (256 x 128, each consumer warpgroup 128 x 128 as
# two wgmma.m64n128 row blocks; clusters of 2 pair along N and multicast A). Builds the working tree
# on the device, then: register use and stack of the sm_90a kernels, float64 checks of the new
# configurations on awkward shapes, the sanitizer on small ones, and the new tiles against the
# default (128 x 256, clusters sharing B), each timed alternately with cuBLAS.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
scripts/build >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
g=build/gemmlab
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
{
  echo "== resource usage of the sm_90a kernels (REG, STACK, LOCAL)"
  cuobjdump --dump-resource-usage build/libgemmlab.a 2>&1 | grep -A1 "hopper_gemm" | paste - - - 2>/dev/null |
    sed -E 's/.*HopperConfigILNS_9PrecisionE([23])E([a-zA-Z0-9_]+)Li([0-9]+)ELi([0-9]+)ELi([0-9]+)E(Lb[01])E(Lb[01])ELi([12])E(Lb[01]).*(REG:[0-9]+ STACK:[0-9]+).*(LOCAL:[0-9]+).*/prec\1 \2 \3x\4 st\5 ws\6 pers\7 cl\8 epi\9 \10 \11/' | sort | uniq
  echo "== highest register index in the SASS of each sm_90a kernel"
  cuobjdump -sass build/libgemmlab.a 2>/dev/null | awk '/Function :/ {if (name) print max, name; name=$3; max=0} {while (match($0, /R[0-9]+/)) {r=substr($0, RSTART+1, RLENGTH-1)+0; if (r>max && r<255) max=r; $0=substr($0, RSTART+RLENGTH)}} END {print max, name}' | grep -E "hopper|swapped" | sort -n | uniq -c | tail -40
} 2>&1 | tee "$out/1-resources.txt"
row() { grep -E "^(tc|cublas)\.[a-z0-9_.]+ " | awk '{printf "  %-22s median %s ms  stddev %s  %s %s\n", $1, $(NF-8), $(NF-4), $(NF-1), $NF}'; }
{
  echo "== float64 checks of the 256 x 128 configurations (status, relative error)"
  for shape in "-s 4096" "-m 300 -n 100 -k 36" "-m 4097 -n 4092 -k 4096" "-m 129 -n 260 -k 4100" "-m 1 -n 4 -k 4" \
               "-m 3328 -n 2560 -k 200" "-m 513 -n 8 -k 64" "-m 1000 -n 1000 -k 1000" "-m 2048 -n 1920 -k 512"; do
    for p in "tile_m=256 cluster=1 stream_k=0" "tile_m=256 cluster=1 stream_k=2" "tile_m=256 cluster=2 stream_k=0" "tile_m=256 cluster=2 stream_k=2"; do
      for o in f32 same; do
        echo " $shape $p output=$o"
        $g run --kernel tc.tma_epilogue.bf16 $shape $(printf -- '--param %s ' $p) --output $o --iters 2 --warmup 1 --no-cublas | row
      done
    done
    echo " $shape tile_m=256 cluster=2 beta=0.5 fp16"
    $g run --kernel tc.tma_epilogue.fp16 $shape --param tile_m=256 --param cluster=2 --beta 0.5 --alpha 1.5 --iters 2 --warmup 1 --no-cublas | row
  done
} 2>&1 | tee "$out/1-checks.txt"
{
  echo "== sanitizer, 256 x 128 tiles"
  for tool in memcheck racecheck synccheck initcheck; do
    for p in "--param tile_m=256 --param cluster=2 --param stream_k=2" "--param tile_m=256 --param cluster=1 --param stream_k=2"; do
      echo " $tool $p"
      compute-sanitizer --tool $tool --error-exitcode 9 $g run --kernel tc.tma_epilogue.bf16 -m 1100 -n 650 -k 520 $p --iters 1 --warmup 0 --no-cublas 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^tc\." | head -3
    done
  done
} 2>&1 | tee "$out/1-sanitizer.txt"
{
  for rnd in 1 2 3; do
    for s in 4096 8192; do
      [ $s = 8192 ] && [ $rnd = 3 ] && continue
      it=40; [ $s = 8192 ] && it=20
      for prec in bf16 fp16; do
        echo "== round $rnd, $prec $s, alternating with cuBLAS"
        echo " 128x256 cluster 2 (default)"; $g run --kernel tc.tma_epilogue.$prec --size $s --iters $it --interleave | row
        echo " 256x128 cluster 2";           $g run --kernel tc.tma_epilogue.$prec --size $s --iters $it --interleave --param tile_m=256 | row
        [ $prec = bf16 ] && { echo " 256x128 cluster 1"; $g run --kernel tc.tma_epilogue.$prec --size $s --iters $it --interleave --param tile_m=256 --param cluster=1 | row; }
      done
    done
  done
} 2>&1 | tee "$out/1-timing.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
