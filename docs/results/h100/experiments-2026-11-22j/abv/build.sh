#!/usr/bin/env bash
# Builds build/abv from main.cu and one object of variant.cu per entry of VARIANTS (run from the
# repository root). Each entry is the #define lines (pipelined_var.cuh's V_ macros) of one variant.
# Round 1 (EXTRA = extra register-file cycles per k-tile loop, /tmp/cubinstat.py; see README.md):
#   v0 as src (415), v1 o4 j1 i1 (355), v2 i2 (362), v3 o4 (370), v4 p2 (552), v5 no cross (477),
#   v6 o1 (453), v7 j3 (365).
set -euo pipefail
d=docs/results/h100/experiments-2026-11-22j/abv
VARIANTS=(
  ""                                                                                         # v0: as src (EXTRA 415)
  "#define V_IPERM 2"                                                                         # v1: round 1's v2 (362)
  $'#define V_IPLIST {13,12,15,14,5,4,7,6,9,8,11,10,1,0,3,2}\n#define V_JPLIST {1,0,3,2,5,4,7,6}'  # v2 (352)
  $'#define V_IPLIST {4,5,6,7,8,9,10,11,12,13,14,15,0,1,2,3}\n#define V_JPLIST {1,0,3,2,5,4,7,6}'  # v3 (353)
  $'#define V_ORDER 4\n#define V_IPLIST {0,1,2,3,4,5,6,7,12,13,14,15,8,9,10,11}'                  # v4 (356)
  $'#define V_IPLIST {12,14,13,15,4,6,5,7,8,10,9,11,0,2,1,3}'                                      # v5 (365)
  ""                                                                                         # v6: v0 again (noise)
  "#define V_ORDER 4"                                                                         # v7: round 1's v3 (370)
)
mkdir -p build/abv.o
flags="-O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -I src -I $d"
for i in "${!VARIANTS[@]}"; do
  printf '%s\n#include "variant.cu"\n' "${VARIANTS[$i]}" >build/abv.o/v$i.cu
  nvcc $flags -DGLNS=gl_v$i -DLAUNCH=launch_v$i -c build/abv.o/v$i.cu -o build/abv.o/v$i.o &
  [ -n "${CUBIN:-}" ] && nvcc $flags -DGLNS=gl_v$i -DLAUNCH=launch_v$i -cubin build/abv.o/v$i.cu -o build/abv.o/v$i.cubin &
done
wait
nvcc $flags $d/main.cu build/abv.o/v*.o -lcublas -o build/abv
