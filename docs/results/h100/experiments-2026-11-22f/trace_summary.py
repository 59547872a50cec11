#!/usr/bin/env python3
# Summarises the clock64/globaltimer traces of rounds 1 and 2 (one line per CTA, consumer warpgroup and
# tile): SM clock, main-loop, epilogue and wait cycles. Usage: trace_summary.py 1-trace-*.txt
import sys, collections, statistics as st
for f in sys.argv[1:]:
    rows=[l.split() for l in open(f) if not l.startswith('#')]
    hdr=open(f).readline().strip()
    rows=[list(map(int,r)) for r in rows]
    gt0=min(r[7] for r in rows); gt1=max(r[8] for r in rows)
    # clock rate: per cta-wg, (clk_epiend_last - clk_start_first)/(gt_epiend_last-gt_start_first)
    by=collections.defaultdict(list)
    for r in rows: by[(r[0],r[1])].append(r)
    freqs=[]; ml=[]; epi=[]; wait0=[]; gap=[]; first=[]
    ntiles=collections.Counter()
    for k,v in by.items():
        v.sort(key=lambda r:r[2])
        ntiles[len(v)]+=1
        dclk=v[-1][6]-v[0][3]; dgt=v[-1][8]-v[0][7]
        if dgt>0: freqs.append(dclk/dgt*1e3)
        for i,r in enumerate(v):
            wait0.append(r[4]-r[3]); ml.append(r[5]-r[4]); epi.append(r[6]-r[5])
            if i>0: gap.append(r[3]-v[i-1][6])
        first.append(v[0][7]-gt0)
    print(f, hdr)
    print(f"  span {(gt1-gt0)/1e3:.1f} us; tiles per CTA-wg {dict(ntiles)}; clock MHz median {st.median(freqs):.0f} (min {min(freqs):.0f} max {max(freqs):.0f})")
    q=lambda a:(f"med {st.median(a):.0f} p10 {sorted(a)[len(a)//10]:.0f} p90 {sorted(a)[9*len(a)//10]:.0f}")
    print("  first-full wait clk", q(wait0)); print("  main loop clk", q(ml)); print("  epilogue clk", q(epi))
    if gap: print("  gap clk", q(gap))
    print("  CTA start offset us", q([x/1e3 for x in first]))
    tot_ml=sum(ml); tot_epi=sum(epi); tot_w=sum(wait0)
    print(f"  shares of consumer time: main {tot_ml/(tot_ml+tot_epi+tot_w):.3f} epi {tot_epi/(tot_ml+tot_epi+tot_w):.3f} wait {tot_w/(tot_ml+tot_epi+tot_w):.3f}")
    # end times per CTA
    ends=[max(r[8] for r in v)-gt0 for v in by.values()]
    print("  CTA end us", q([e/1e3 for e in ends]), "max", max(ends)/1e3)
