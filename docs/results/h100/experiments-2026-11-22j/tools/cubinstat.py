# Decode a sm_90 cubin well enough for scheduling statistics: opcode (low 12 bits, mapped from a
# cuobjdump listing of the device) and the stall count of each instruction's control bits.
import struct, sys, json, re
from collections import Counter
opmap={int(k):v for k,v in json.load(open(__import__('os').path.join(__import__('os').path.dirname(__file__), 'opmap.json'))).items()}
data=open(sys.argv[1],'rb').read()
pat=sys.argv[2] if len(sys.argv)>2 else ''
e_shoff=struct.unpack_from('<Q',data,0x28)[0]; e_shentsize,e_shnum,e_shstrndx=struct.unpack_from('<HHH',data,0x3a)
secs=[struct.unpack_from('<IIQQQQIIQQ',data,e_shoff+i*e_shentsize) for i in range(e_shnum)]
strtab=secs[e_shstrndx]; so=strtab[4]
def name(off): return data[so+off:data.index(b'\0',so+off)].decode()
for s in secs:
    n=name(s[0])
    if not n.startswith('.text.') or pat not in n: continue
    off,size=s[4],s[5]
    ins=[]; raw=[]
    for i in range(0,size,16):
        lo,hi=struct.unpack_from('<QQ',data,off+i)
        ctrl=hi>>41
        ins.append((i,opmap.get(lo&0xfff,'?%03x'%(lo&0xfff)),ctrl&0xf))
        raw.append((lo,hi))
    best=None
    for a,op,st in ins:
        if op!='BRA': continue
        lo,hi=struct.unpack_from('<QQ',data,off+a)
        imm=((lo>>16)&0xff)|((lo>>34)<<8)
        if imm&(1<<37): imm-=1<<38
        tgt=a+16+4*imm
        if tgt<a and (best is None or a-tgt>best[1]-best[0]): best=(tgt,a)
    body=[x for x in ins if best[0]<=x[0]<=best[1]]
    c=Counter((op,st) for _,op,st in body)
    rf3=same2=same3=nff=extra=0; prev=None
    first=ins.index(body[0])
    for idx in range(first, first+len(body)):
        lo,hi=raw[idx]; op=ins[idx][1]
        if (lo&0xfff)==0x223:
            regs=[(lo>>24)&0xff,(lo>>32)&0xff,hi&0xff]
            reuse=(hi>>58)&0xf
            rf=[]
            for slot,r in enumerate(regs):
                if r==255: continue
                if prev and prev[0][slot]==r and (prev[1]>>slot)&1: continue
                rf.append(r)
            nff+=1
            if len(rf)==3: rf3+=1
            if len(rf)>=2 and len(set(x%2 for x in rf))<len(rf): same2+=1
            if len(rf)==3 and len(set(x%2 for x in rf))==1: same3+=1
            extra+=max([sum(1 for x in rf if x%2==p) for p in (0,1)])-1 if rf else 0
            prev=(regs,reuse)
        elif (lo&0xfff)!=0x984: prev=None   # the reuse cache survives shared loads (ptxas sets reuse across them)

    runs=[];r=0
    for _,op,_ in body:
        if op=='FFMA': r+=1
        else:
            if r: runs.append(r); r=0
    print(n[6:90], 'total',len(ins),'loop',len(body),'stall sum',sum(st for *_,st in body),
          'LDS s1/s4:',c[('LDS',1)],c[('LDS',4)], 'max FFMA run', max(runs) if runs else 0, f'| FFMA {nff}: 3 RF reads {rf3}, same-parity RF pair {same2}, 3 same {same3} | extra RF cycles {extra}')
