# extra RF cycles per k (bins of loop/16) from a cubin
import struct, sys, json
opmap={int(k):v for k,v in json.load(open(__import__('os').path.join(__import__('os').path.dirname(__file__), 'opmap.json'))).items()}
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
    best=None
    for idx,(lo,hi) in enumerate(raw):
        if opmap.get(lo&0xfff)!='BRA': continue
        imm=((lo>>16)&0xff)|((lo>>34)<<8)
        if imm&(1<<37): imm-=1<<38
        tgt=idx+1+imm//4
        if tgt<idx and (best is None or idx-tgt>best[1]-best[0]): best=(tgt,idx)
    prev=None; ex=[]; moved=0
    for idx in range(best[0],best[1]+1):
        lo,hi=raw[idx]
        if (lo&0xfff)==0x223:
            regs=[(lo>>24)&0xff,(lo>>32)&0xff,hi&0xff]; reuse=(hi>>58)&0xf
            rf=[r for slot,r in enumerate(regs) if r!=255 and not (prev and prev[0][slot]==r and (prev[1]>>slot)&1)]
            ex.append(max(sum(1 for x in rf if x%2==p) for p in (0,1))-1 if rf else 0)
            if ((lo>>16)&0xff)!=regs[2]: moved+=1
            prev=(regs,reuse)
        else:
            ex.append(0)
            if (lo&0xfff)!=0x984: prev=None
    w=len(ex)//16+1
    print('moved-acc FFMAs',moved,'| extra per k:',' '.join(str(sum(ex[k*w:(k+1)*w])) for k in range(16)))
