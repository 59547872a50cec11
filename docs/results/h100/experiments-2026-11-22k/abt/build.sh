#!/usr/bin/env bash
# Builds build/abt from main.cu and one object of variant.cu per entry of VARIANTS (run from the
# repository root). Round 1 (../abt-round1.txt) compared FMA orders of the tail kernel (rows / columns,
# scored by extra register-file read cycles per k-tile): v0 the whole-tile order (466), v1 plain with
# snake (425), v2 rows 3,1,2,0,11,9,10,8,7,5,6,4,15,13,14,12 columns 3,2,1,0,7,6,5,4 (359), v3 rows
# 14,15,13,12,6,7,5,4,10,11,9,8,2,3,1,0 columns 4,5,6,7,0,1,2,3 (364); no difference beyond noise.
# Round 2 (../abt-round2.txt) compared the order of the tail's pieces (V_REVERSE, now in src: last
# piece first) and found no difference in time, though the tail's DRAM reads fell from 611 to 93 MB.
# Round 3: tail-kernel FMA orders that ptxas schedules without bunching the shared loads (the number
# pairs: extra read cycles, and shared loads issued back to back with 4-cycle stalls, per k-tile loop).
set -euo pipefail
d=docs/results/h100/experiments-2026-11-22k/abt
VARIANTS=(
  $'#define V_SNAKE 1\n#define V_TI {13,12,15,14,5,4,7,6,9,8,11,10,1,0,3,2}\n#define V_TJ {1,0,3,2,5,4,7,6}'  # v0: as src (463, 31 LDS bunched)
  $'#define V_SNAKE 1\n#define V_TI {6,7,4,5,10,11,8,9,14,15,12,13,2,3,0,1}\n#define V_TJ {0,4,1,5,2,6,3,7}'  # v1: (481, 0)
  $'#define V_SNAKE 1\n#define V_TI {15,12,13,14,3,0,1,2,7,4,5,6,11,8,9,10}\n#define V_TJ {0,4,1,5,2,6,3,7}'  # v2: (453, 5)
  $'#define V_SNAKE 0\n#define V_TI {11,10,9,8,3,2,1,0,7,6,5,4,15,14,13,12}\n#define V_TJ {0,4,1,5,2,6,3,7}'  # v3: (502, 0)
)
mkdir -p build/abt.o
flags="-O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -I src -I $d"
for i in "${!VARIANTS[@]}"; do
  printf '%s\n#include "variant.cu"\n' "${VARIANTS[$i]}" >build/abt.o/v$i.cu
  nvcc $flags -DGLNS=gl_v$i -DLAUNCH=launch_v$i -c build/abt.o/v$i.cu -o build/abt.o/v$i.o &
  [ -n "${CUBIN:-}" ] && nvcc $flags -DGLNS=gl_v$i -DLAUNCH=launch_v$i -cubin build/abt.o/v$i.cu -o build/abt.o/v$i.cubin &
done
wait
nvcc $flags $d/main.cu build/abt.o/v*.o -lcublas -o build/abt
