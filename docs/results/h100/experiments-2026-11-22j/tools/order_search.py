import random, itertools, subprocess, sys, re
from concurrent.futures import ThreadPoolExecutor
random.seed(int(sys.argv[1])); n=int(sys.argv[2])
quads=list(itertools.permutations(range(4))); inner=list(itertools.permutations(range(4)))
jps=[list(range(8)),[1,0,3,2,5,4,7,6],[4,5,6,7,0,1,2,3],[0,4,1,5,2,6,3,7],[7,6,5,4,3,2,1,0],[0,2,4,6,1,3,5,7]]
def one(idx):
    q=random.choice(quads); w=random.choice(inner); jp=random.choice(jps); o=random.choice([0,4])
    ip=[q[x//4]*4+w[x%4] for x in range(16)]
    tag=f'r{sys.argv[1]}_{idx}'
    open(f'/tmp/var/src_{tag}.cu','w').write(f'#define V_ORDER {o}\n#define V_IPLIST {{{",".join(map(str,ip))}}}\n#define V_JPLIST {{{",".join(map(str,jp))}}}\n'+open('/tmp/var/one.cu').read())
    out=subprocess.run(['./cub8.sh',tag],capture_output=True,text=True,env=dict(__import__('os').environ,SRC=f'/tmp/var/src_{tag}.cu')).stdout
    m=re.search(r"Used (\d+) registers.*loop (\d+) stall sum (\d+) LDS s1/s4: (\d+) (\d+).*extra RF cycles (\d+)",out)
    return (int(m.group(6)) if m else 9999, o, ip, jp, m.groups() if m else out[:200])
with ThreadPoolExecutor(2) as ex:
    for r in ex.map(one, range(n)): print(r, flush=True)
