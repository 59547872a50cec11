# Usage: python3 loops.py FILE.cubin [NAME_PART]: every backward branch (loop) of each kernel whose name
# contains NAME_PART, with its FFMAs and extra register-file read cycles (as ffma_banks.py counts them).
import struct, sys, json, os
T=os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../experiments-2026-11-22j/tools')  # opmap.json
opmap={int(k):v for k,v in json.load(open(os.path.join(T,'opmap.json'))).items()}
data=open(sys.argv[1],'rb').read(); pat=sys.argv[2] if len(sys.argv)>2 else 'pipelined'
e_shoff=struct.unpack_from('<Q',data,0x28)[0]; e_shentsize,e_shnum,e_shstrndx=struct.unpack_from('<HHH',data,0x3a)
secs=[struct.unpack_from('<IIQQQQIIQQ',data,e_shoff+i*e_shentsize) for i in range(e_shnum)]
so=secs[e_shstrndx][4]
def name(off): return data[so+off:data.index(b'\0',so+off)].decode()
for s in secs:
    n=name(s[0])
    if not n.startswith('.text.') or pat not in n: continue
    off,size=s[4],s[5]
    raw=[struct.unpack_from('<QQ',data,off+i) for i in range(0,size,16)]
    print(n[6:100], len(raw))
    for idx,(lo,hi) in enumerate(raw):
        if opmap.get(lo&0xfff)!='BRA': continue
        imm=((lo>>16)&0xff)|((lo>>34)<<8)
        if imm&(1<<37): imm-=1<<38
        tgt=idx+1+imm//4
        if tgt>=idx: continue
        prev=None; ex=0; nf=0
        for j in range(tgt,idx+1):
            lo2,hi2=raw[j]
            if (lo2&0xfff)==0x223:
                regs=[(lo2>>24)&0xff,(lo2>>32)&0xff,hi2&0xff]; reuse=(hi2>>58)&0xf
                rf=[r for slot,r in enumerate(regs) if r!=255 and not (prev and prev[0][slot]==r and (prev[1]>>slot)&1)]
                ex+=max(sum(1 for x in rf if x%2==p) for p in (0,1))-1 if rf else 0
                nf+=1; prev=(regs,reuse)
            elif (lo2&0xfff)!=0x984: prev=None
        print(f'  loop [{tgt},{idx}] len {idx-tgt+1} FFMA {nf} extra {ex}')
