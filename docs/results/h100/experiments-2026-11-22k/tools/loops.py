# Usage: python3 loops.py FILE.cubin [NAME_PART]: every backward branch (loop) of each kernel whose name
# contains NAME_PART, with its FFMAs and extra register-file read cycles (as ffma_banks.py counts them).
import sys
from cubin import kernels, loops, extra_read_cycles

for name, raw in kernels(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else 'pipelined'):
    print(name[:94], len(raw))
    for first, last in loops(raw):
        ffmas, extra = extra_read_cycles(raw[first:last + 1])
        print(f'  loop [{first},{last}] len {last - first + 1} FFMA {ffmas} extra {extra}')
