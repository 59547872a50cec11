#!/usr/bin/env bash
# Builds build/abt from main.cu and one object of variant.cu per entry of VARIANTS (run from the
# repository root). Round 1 (../abt-round1.txt) compared FMA orders of the tail kernel (rows / columns,
# scored by extra register-file read cycles per k-tile): v0 the whole-tile order (466), v1 plain with
# snake (425), v2 rows 3,1,2,0,11,9,10,8,7,5,6,4,15,13,14,12 columns 3,2,1,0,7,6,5,4 (359), v3 rows
# 14,15,13,12,6,7,5,4,10,11,9,8,2,3,1,0 columns 4,5,6,7,0,1,2,3 (364); no difference beyond noise.
# Round 2 (../abt-round2.txt) compared the order of the tail's pieces (V_REVERSE, now in src: last
# piece first) and found no difference in time, though the tail's DRAM reads fell from 611 to 93 MB.
# Round 3 (../abt-round3.txt): tail-kernel FMA orders that ptxas schedules without bunching the shared
# loads; v1 (rows 6,7,4,5,10,11,8,9,14,15,12,13,2,3,0,1, columns 0,4,1,5,2,6,3,7) went into src.
# Round 4 (../abt-round4.txt): unbunched orders with fewer extra read cycles (444 and 460 against 473:
# no difference), and one with a few bunched loads (696 us for the tail against 664).
# Round 5 (this list): the raster group of the launch (V_GROUP), src's code otherwise.
set -euo pipefail
d=docs/results/h100/experiments-2026-11-22k/abt
VARIANTS=(
  $'#define V_SNAKE 1\n#define V_TI {6,7,4,5,10,11,8,9,14,15,12,13,2,3,0,1}\n#define V_TJ {0,4,1,5,2,6,3,7}'  # v0: as src, group 8
  $'#define V_SNAKE 1\n#define V_TI {6,7,4,5,10,11,8,9,14,15,12,13,2,3,0,1}\n#define V_TJ {0,4,1,5,2,6,3,7}\n#define V_GROUP 16'  # v1
  $'#define V_SNAKE 1\n#define V_TI {6,7,4,5,10,11,8,9,14,15,12,13,2,3,0,1}\n#define V_TJ {0,4,1,5,2,6,3,7}\n#define V_GROUP 4'  # v2
  $'#define V_SNAKE 1\n#define V_TI {6,7,4,5,10,11,8,9,14,15,12,13,2,3,0,1}\n#define V_TJ {0,4,1,5,2,6,3,7}\n#define V_GROUP 32'  # v3
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
