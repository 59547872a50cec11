#!/usr/bin/env bash
# fp32.streamk with raster groups 8, 16 and 32, alternating with cuBLAS, on the large shapes of the suite
g=build/gemmlab
for s in "-s 2048" "-s 4096" "-s 8192" "-s 16384" "-m 16384 -n 16384 -k 512" "-m 8192 -n 1024 -k 8192" "-m 4097 -n 4095 -k 4093" "-m 4096 -n 4096 -k 1024"; do
  for gr in 8 16 32; do
    echo "== $s group=$gr"; $g run --kernel fp32.streamk $s --param group=$gr --iters 20 --interleave | grep -E "^fp32|^cublas"
  done
done
