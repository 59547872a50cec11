# Usage: python3 loopstall.py FILE.cubin: for the k-tile loop (2048 FFMAs) of each pipelined kernel, its shared
# loads, static stall cycles (control bits) and the instructions issued with stalls above 1, by opcode.
import struct, sys, json, os
from collections import Counter
T=os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../experiments-2026-11-22j/tools')  # opmap.json
opmap={int(k):v for k,v in json.load(open(os.path.join(T,'opmap.json'))).items()}
data=open(sys.argv[1],'rb').read()
e_shoff=struct.unpack_from('<Q',data,0x28)[0]; e_shentsize,e_shnum,e_shstrndx=struct.unpack_from('<HHH',data,0x3a)
secs=[struct.unpack_from('<IIQQQQIIQQ',data,e_shoff+i*e_shentsize) for i in range(e_shnum)]
so=secs[e_shstrndx][4]
def name(off): return data[so+off:data.index(b'\0',so+off)].decode()
for s in secs:
    n=name(s[0])
    if not n.startswith('.text.') or 'pipelined' not in n: continue
    off,size=s[4],s[5]
    raw=[struct.unpack_from('<QQ',data,off+i) for i in range(0,size,16)]
    for idx,(lo,hi) in enumerate(raw):
        if opmap.get(lo&0xfff)!='BRA': continue
        imm=((lo>>16)&0xff)|((lo>>34)<<8)
        if imm&(1<<37): imm-=1<<38
        tgt=idx+1+imm//4
        if tgt>=idx: continue
        body=raw[tgt:idx+1]
        nf=sum(1 for lo2,_ in body if (lo2&0xfff)==0x223)
        if nf!=2048: continue
        st=[((hi2>>41)&0xf) for _,hi2 in body]
        ops=[opmap.get(lo2&0xfff,'?') for lo2,_ in body]
        c=Counter((o,x) for o,x in zip(ops,st) if x>1)
        yld=sum(1 for _,hi2 in body if (hi2>>45)&1)
        print(n[6:60], 'LDS', sum(1 for o in ops if o=='LDS'), 'len',len(body),'stall sum',sum(st), 'instr',len(body), 'by op/stall>1:', dict(c.most_common(8)))
