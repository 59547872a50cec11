import csv, gzip, sys, re
from collections import Counter, defaultdict
lines=gzip.open(sys.argv[1],'rt').read().splitlines()
start=[i for i,l in enumerate(lines) if l.startswith('"Address"')]
s=start[0]; e=start[1]-1 if len(start)>1 else len(lines)
rows=list(csv.reader(lines[s:e])); hdr=rows[0]; rows=[r for r in rows[1:] if len(r)==len(hdr)]
ix={h:i for i,h in enumerate(hdr)}
sass=[]; fun=None
for l in gzip.open(sys.argv[2],'rt'):
    if 'Function :' in l: fun = sys.argv[3] in l
    if not fun: continue
    m=re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);',l)
    if m: sass.append(m.group(2).strip())
D=[int(r[ix['stall_dispatch']] or 0) for r in rows]
E=[int(r[ix['Instructions Executed']] or 0) for r in rows]
hot=max(E)
recs=[]; prev=None
for i,txt in enumerate(sass):
    m=re.match(r'(@!?P\d+ )?FFMA(\.\w+)* (R\d+), (-?R\d+|RZ)(\.reuse)?, (-?R\d+|RZ|[^,]+?)(\.reuse)?, (-?R\d+|RZ)(\.reuse)?$', txt)
    if not m:
        if not txt.startswith("LDS"): prev=None
        continue
    ops=[m.group(4),m.group(6),m.group(8)]; flags=[m.group(5),m.group(7),m.group(9)]
    rf=[]
    for slot,o in enumerate(ops):
        if not o.lstrip('-').startswith('R'): continue
        if prev and prev[slot]==o: continue
        rf.append((slot,int(o.lstrip('-R'))))
    prev=[o if f else None for o,f in zip(ops,flags)]
    if E[i]<hot/4: continue
    recs.append((i,rf,D[i]))
def table(name,keyf):
    c=defaultdict(lambda:[0,0])
    for i,rf,d in recs: k=keyf(rf); c[k][0]+=1; c[k][1]+=d
    print(name); [print('  ',k,n,d,f'{d/n:.1f}') for k,(n,d) in sorted(c.items())]
table('mod2 max same', lambda rf:(len(rf),max(Counter(r%2 for _,r in rf).values()) if rf else 0))
table('mod4 max same', lambda rf:(len(rf),max(Counter(r%4 for _,r in rf).values()) if rf else 0))
# previous instruction RF reads overlap in bank?
def cost(rf):
    c=Counter(r%2 for _,r in rf); return max(c.values()) if rf else 0
table('bank cost (max reads per bank)', cost)
