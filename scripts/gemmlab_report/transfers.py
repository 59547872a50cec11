"""Transfer studies and link measurements as the report draws them.

Two record layouts carry a time breakdown:

- what `gemmlab transfer` and `gemmlab study seed001` write (src/transfer/report.cpp to_json):
  "record": "transfer", "host_mode", and for every phase <key>_median_ms with the keys of
  src/transfer/phases.cpp (host_alloc, device_alloc, copy_ab, kernel, copy_c, sync, device_free,
  host_free), plus total_, window_, gpu_window_ and kernel_busy_median_ms;
- the generic layout of docs/reports.md: phase_<name>_median_ms fields, the stacking order in
  "phases" and the bar's name in "label" (what other tools can write to get the bars).
"""

import re
from collections import OrderedDict

from .model import shape, shape_label, status
from .style import TRANSFER_PHASES, mode_order, number

PHASE_RE = re.compile(r"^phase_(.+)_median_ms$")


class Bar:
    """One stacked bar: one kernel configuration, shape and host-memory mode (or label)."""

    def __init__(self, record, group, mode, segments, total):
        self.record, self.group, self.mode = record, group, mode
        self.shape = shape(record)
        self.segments = segments  # OrderedDict: key -> (label, ms)
        self.total = total

    @property
    def name(self):
        """'pinned 1024x1024x1024': the row name of the breakdown table."""
        return f"{self.mode} {shape_label(self.shape)}"

    @property
    def skipped(self):
        return not self.segments


def ms(r, key):
    v = number(r.get(f"{key}_median_ms"))
    return v if v is not None and v >= 0 else None


def transfer_bars(records):
    """Bars of `gemmlab transfer` records, grouped by kernel configuration and sorted by shape and mode.

    Sequential modes stack their eight phases, which follow each other. In the overlapped mode the
    copies and the kernel are spans on one GPU timeline that overlap, so stacking them would count
    the same time up to three times: its bar stacks the allocations, the window (first copy
    enqueued -> final synchronisation) and the frees. What the total holds beyond the stacked
    phases (launch gaps) is its own segment, so every bar is as tall as the measured total."""
    bars = []
    for r in records:
        group = f"{r.get('kernel', '?')} {r.get('params', '')}".strip()
        mode = str(r.get("host_mode") or r.get("label") or "?")
        total = number(r.get("total_median_ms"))
        segments = OrderedDict()
        if status(r) not in ("skipped", "error") and total:
            if mode == "overlapped" and ms(r, "window") is not None:
                keys = [("host_alloc", "Host alloc"), ("device_alloc", "Device alloc"),
                        ("window", "Window (copies and kernel overlapped)"), ("device_free", "Device free"),
                        ("host_free", "Host free")]
            else:
                keys = list(TRANSFER_PHASES)
            for key, label in keys:
                if ms(r, key) is not None:
                    segments[key] = (label, ms(r, key))
            rest = total - sum(v for _, v in segments.values())
            if rest > 0.005 * total:
                segments["other"] = ("Rest of the total (launch gaps)", rest)
        bars.append(Bar(r, group, mode, segments, total if segments else None))
    return sort_bars(bars)


def sort_bars(bars):
    """Kernel configurations in the order of the files; in each, by size, then host-memory mode."""
    groups = {}
    for b in bars:
        groups.setdefault(b.group, len(groups))
    return sorted(bars, key=lambda b: (groups[b.group], b.shape[0] * b.shape[1] * b.shape[2], b.shape,
                                       mode_order(b.mode)))


def phase_bars(records):
    """Bars of records with phase_<name>_median_ms fields (the generic layout)."""
    names = []
    for r in records:
        order = [p.strip() for p in str(r.get("phases", "")).split(",") if p.strip()]
        found = sorted(PHASE_RE.match(k).group(1) for k in r if PHASE_RE.match(k))
        for p in order + found:
            if p not in names and number(r.get(f"phase_{p}_median_ms")) is not None:
                names.append(p)
    bars = []
    for r in records:
        segments = OrderedDict((p, (p, number(r[f"phase_{p}_median_ms"]))) for p in names
                               if number(r.get(f"phase_{p}_median_ms")) is not None)
        mode = str(r.get("label") or f"{r.get('kernel', '?')} {r.get('params', '')}".strip())
        bars.append(Bar(r, str(r.get("kernel", "?")), mode, segments, sum(v for _, v in segments.values())))
    return sort_bars(bars), names


def has_phase_fields(r):
    return any(PHASE_RE.match(k) for k in r)


def end_to_end_tflops(r):
    """2·M·N·K / the median total time: what the program that holds A, B and C in host memory gets."""
    t = number(r.get("total_median_ms"))
    m, n, k = shape(r)
    return 2.0 * m * n * k / (t * 1e-3) / 1e12 if t and m * n * k else None


def kernel_tflops(r):
    t = ms(r, "kernel") if r.get("host_mode") != "overlapped" else ms(r, "kernel_busy")
    m, n, k = shape(r)
    return 2.0 * m * n * k / (t * 1e-3) / 1e12 if t and m * n * k else None


def gain_vs_pageable(r):
    """(pageable total - this total) / pageable total, as gemmlab transfer prints it."""
    g = r.get("gain_vs_pageable")
    if isinstance(g, dict) and isinstance(g.get("total"), dict):
        return number(g["total"].get("median"))
    return None


class LinkPoint:
    def __init__(self, r):
        self.record = r
        self.bytes = number(r.get("bytes"))
        self.direction = str(r.get("direction") or "?")
        self.memory = str(r.get("host_memory") or "?")
        self.gbs = number(r.get("gbs"))
        self.median_ms = number(r.get("time_median_ms"))

    @property
    def usable(self):
        return self.bytes is not None and self.bytes > 0 and self.gbs is not None and self.gbs > 0


def link_points(records):
    pts = [LinkPoint(r) for r in records]
    return sorted(pts, key=lambda p: (p.bytes or 0, p.memory != "pinned", p.direction != "H2D"))


def link_peak(context, direction):
    """The pinned peak `gemmlab link` recorded in the context (GB/s), or None."""
    peak = (context or {}).get("link_peak")
    if isinstance(peak, dict):
        v = number(peak.get(f"{direction.lower()}_gbs"))
        return v if v and v > 0 else None
    return None
