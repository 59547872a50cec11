# Usage: python3 seq.py FILE.cubin NAME_PART: the k-tile loop as a compact sequence, runs of FFMAs as F<n>,
# other instructions as OPCODE/stall.
import struct, sys, json, os
T=os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../experiments-2026-11-22j/tools')  # opmap.json
opmap={int(k):v for k,v in json.load(open(os.path.join(T,'opmap.json'))).items()}
data=open(sys.argv[1],'rb').read(); pat=sys.argv[2]
e_shoff=struct.unpack_from('<Q',data,0x28)[0]; e_shentsize,e_shnum,e_shstrndx=struct.unpack_from('<HHH',data,0x3a)
secs=[struct.unpack_from('<IIQQQQIIQQ',data,e_shoff+i*e_shentsize) for i in range(e_shnum)]
so=secs[e_shstrndx][4]
def name(off): return data[so+off:data.index(b'\0',so+off)].decode()
for s in secs:
    n=name(s[0])
    if not n.startswith('.text.') or pat not in n: continue
    off,size=s[4],s[5]
    raw=[struct.unpack_from('<QQ',data,off+i) for i in range(0,size,16)]
    for idx,(lo,hi) in enumerate(raw):
        if opmap.get(lo&0xfff)!='BRA': continue
        imm=((lo>>16)&0xff)|((lo>>34)<<8)
        if imm&(1<<37): imm-=1<<38
        tgt=idx+1+imm//4
        if tgt>=idx: continue
        body=raw[tgt:idx+1]
        if sum(1 for lo2,_ in body if (lo2&0xfff)==0x223)!=2048: continue
        out=[]; run=0
        for lo2,hi2 in body:
            op=opmap.get(lo2&0xfff,'?'); st=(hi2>>41)&0xf
            if op=='FFMA' and st==1: run+=1; continue
            if run: out.append(f'F{run}'); run=0
            out.append(f'{op}/{st}')
        if run: out.append(f'F{run}')
        print(n[6:50]); print(' '.join(out))
