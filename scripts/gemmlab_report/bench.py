"""`gemmlab bench` records as the report draws them: one case of the library's API next to its anchor.

`gemmlab bench --json` (src/cli/cmd_bench.cpp) writes one record per case: suite, case (a name that
starts with the precision: "bf16 16x4096x4096 llm", "bf16 256 x 128^3"), plan (what dispatch chose),
median_ms, p10_ms, p90_ms, anchor (the cuBLAS or cuBLASLt call), anchor_median_ms, ratio_to_anchor
(anchor time / gemmlab time), flops, min_bytes, passed, anchor_passed, timing_order, l2_flushed.
The records carry no M, N and K (a batched or grouped case has no single shape), so the report
draws them per case, in the order of the file, not against size.
"""

from collections import OrderedDict

from .loading import record_kind
from .model import geomean
from .style import PRECISIONS, number


class Case:
    def __init__(self, r):
        self.record = r
        self.suite = str(r.get("suite") or "?")
        self.name = str(r.get("case") or "?")
        first = self.name.split(" ")[0]
        self.precision = first if first in PRECISIONS else "unknown precision"
        self.plan = str(r.get("plan") or "-")
        self.anchor = str(r.get("anchor") or "anchor")
        self.ms = positive(r.get("median_ms"))
        self.anchor_ms = positive(r.get("anchor_median_ms"))
        self.flops = positive(r.get("flops"))
        self.ratio = positive(r.get("ratio_to_anchor")) or (self.anchor_ms / self.ms if self.ms and self.anchor_ms else None)
        self.cold = bool(r.get("l2_flushed"))

    @property
    def tflops(self):
        return self.flops / (self.ms * 1e-3) / 1e12 if self.flops and self.ms else None

    @property
    def anchor_tflops(self):
        return self.flops / (self.anchor_ms * 1e-3) / 1e12 if self.flops and self.anchor_ms else None

    @property
    def measured(self):
        return self.ms is not None and self.anchor_ms is not None

    def check(self):
        """The verification column: both sides were checked against float64."""
        if self.record.get("passed") is False:
            return "FAIL (gemmlab)"
        if self.record.get("anchor_passed") is False:
            return "FAIL (anchor)"
        return "ok" if self.record.get("passed") is True else "-"


def positive(v):
    v = number(v)
    return v if v is not None and v > 0 else None


def bench_groups(sources):
    """[(source, suite, [Case])] in the order of the files and of the suites in each: a suite of one
    file is one group, so that the same case measured twice (two GPUs, two runs) is never merged."""
    out = []
    for s in sources:
        suites = OrderedDict()
        for r in s.records:
            if record_kind(r) == "bench":
                c = Case(r)
                suites.setdefault(c.suite, []).append(c)
        out += [(s, suite, cases) for suite, cases in suites.items()]
    return out


def summary_rows(cases):
    """Per precision: [precision, cases, geomean share, worst share, worst case, cases under 90%],
    what `gemmlab bench` prints after the shape suite."""
    rows = []
    for p in ordered_precisions(cases):
        mine = [c for c in cases if c.precision == p and c.ratio]
        if not mine:
            continue
        worst = min(mine, key=lambda c: c.ratio)
        rows.append((p, len(mine), geomean(c.ratio for c in mine), worst.ratio, worst.name,
                     sum(1 for c in mine if c.ratio < 0.9)))
    return rows


def ordered_precisions(cases):
    seen = OrderedDict((c.precision, None) for c in cases)
    return [p for p in PRECISIONS if p in seen] + [p for p in seen if p not in PRECISIONS]
