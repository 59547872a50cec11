# Random search over FMA orders of the stream-K tail kernel (128x256 tiles, 16x8 per thread), scored
# from the cubin without a GPU. Usage, from the repository root after a CMake configure of build/:
#   python3 docs/results/h100/experiments-2026-11-22k/tools/tail_order_search.py SEED COUNT > out.txt
# Each line: (static stall cycles of the k-tile loop, shared loads with 4-cycle stalls, extra
# register-file read cycles, snake, rows, columns). The source is src/kernels/fp32/pipelined.cuh with
# the tail order replaced by macros (written to a temporary directory).
import itertools, os, random, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
root = os.getcwd(); tools = os.path.dirname(os.path.abspath(__file__))
random.seed(int(sys.argv[1])); count = int(sys.argv[2])
tmp = tempfile.mkdtemp()
src = open(os.path.join(root, 'src/kernels/fp32/pipelined.cuh')).read()
src = re.sub(r'constexpr int tail_columns\[8\] = \{[^}]*\};', 'constexpr int tail_columns[8] = V_TJ;', src)
src = re.sub(r'constexpr int tail_rows\[16\] = \{[^}]*\};', 'constexpr int tail_rows[16] = V_TI;', src)
src = src.replace('const int i0 = Cfg::kSnakeOrder && n % 2', 'const int i0 = (kInTail ? V_SNAKE : Cfg::kSnakeOrder) && n % 2')
assert src.count('V_T') == 2 and 'V_SNAKE' in src
open(os.path.join(tmp, 'pipelined_t.cuh'), 'w').write(src)
unit = ('#include "pipelined_t.cuh"\nusing namespace gemmlab::fp32;\n'
        'const void* f() { return (const void*)&pipelined_tail_gemm<PipelinedConfig<2, 4, 16, 3, true, 16>>; }\n')
perm4 = list(itertools.permutations(range(4)))
columns = [[0, 4, 1, 5, 2, 6, 3, 7], [4, 0, 5, 1, 6, 2, 7, 3], [0, 4, 2, 6, 1, 5, 3, 7], [1, 5, 0, 4, 3, 7, 2, 6],
           [0, 4, 1, 5, 3, 7, 2, 6], [2, 6, 3, 7, 0, 4, 1, 5], [4, 0, 6, 2, 5, 1, 7, 3], [0, 4, 3, 7, 1, 5, 2, 6],
           list(range(8)), [1, 0, 3, 2, 5, 4, 7, 6], [4, 5, 6, 7, 0, 1, 2, 3], [7, 6, 5, 4, 3, 2, 1, 0]]
def one(idx):
    q, w, jp, sn = random.choice(perm4), random.choice(perm4), random.choice(columns), random.choice([0, 1, 1])
    ip = [q[x // 4] * 4 + w[x % 4] for x in range(16)]
    cu, cubin = os.path.join(tmp, f'v{idx}.cu'), os.path.join(tmp, f'v{idx}.cubin')
    open(cu, 'w').write(f'#define V_SNAKE {sn}\n#define V_TI {{{",".join(map(str, ip))}}}\n'
                        f'#define V_TJ {{{",".join(map(str, jp))}}}\n' + unit)
    subprocess.run(f'cd {root}/build && nvcc -DGEMMLAB_HAVE_SM90A=1 --options-file CMakeFiles/gemmlab_lib.dir/includes_CUDA.rsp '
                   f'-I{tmp} -O3 -DNDEBUG -arch=sm_90 --expt-relaxed-constexpr -std=c++20 -cubin -x cu {cu} -o {cubin}',
                   shell=True, capture_output=True)
    a = subprocess.run(['python3', os.path.join(tools, 'loopstall.py'), cubin], capture_output=True, text=True).stdout
    b = subprocess.run(['python3', os.path.join(tools, 'loops.py'), cubin], capture_output=True, text=True).stdout
    m, l4, x = re.search(r'stall sum (\d+)', a), re.search(r"\('LDS', 4\): (\d+)", a), re.search(r'FFMA 2048 extra (\d+)', b)
    return (int(m.group(1)) if m else None, int(l4.group(1)) if l4 else 0, int(x.group(1)) if x else None, sn, ip, jp)
with ThreadPoolExecutor(2) as ex:
    for r in ex.map(one, range(count)): print(r, flush=True)
