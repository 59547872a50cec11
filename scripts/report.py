#!/usr/bin/env python3
"""gemmlab report: draw gemmlab results files as a Markdown and a self-contained HTML report.

Run through `gemmlab report RESULTS... -o DIR` (which finds this script and python), or directly:
    scripts/python scripts/report.py RESULTS... -o DIR [--baseline KERNEL] [--peaks peaks.json]

Input: JSON results files ({"context": {...}, "results": [...]}, as gemmlab run/lab/study/sweep
write them) and CSV files (the same records, no context: "device unknown").
Output in DIR: report.md (images beside it), report.html (images embedded), the PNG plots.
docs/reports.md describes every plot, table and the record fields read here.
"""

import argparse
import base64
import csv
import datetime
import html
import io
import json
import math
import os
import re
import sys
from collections import OrderedDict

# Every plot has this size, so tests (and page layouts) can rely on it: 800 x 500 pixels.
FIG_W_IN, FIG_H_IN, DPI = 8.0, 5.0, 100

OPERAND_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2}
OUTPUT_BYTES = {"f32": 4, "f64": 8, "bf16": 2, "f16": 2}
PRECISIONS = ("fp32", "tf32", "bf16", "fp16")
PHASE_RE = re.compile(r"^phase_(.+)_median_ms$")

# Above this many lines one panel cannot be read (a sweep of every kernel has 35): the overview is
# then drawn as one row per kernel at the largest size, plus one against-size plot per precision,
# and the roofline colours its points by precision instead of by kernel.
MANY_SERIES = 12
# Lines are told apart by colour and, past the ten colours, by marker and dash pattern.
LINE_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
               "tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan")
LINE_MARKERS = "osD^v"
LINE_DASHES = ("-", "-.", ":", "-", "-.")
BASELINE_COLORS = ("black", "dimgray", "gray", "darkgray")


class ReportError(Exception):
    """Something the user can fix: printed as one line, exit status 1."""


# ---------------------------------------------------------------------------------------------
# Reading results
# ---------------------------------------------------------------------------------------------

def typed_cell(text):
    """A CSV cell back to the JSON value gemmlab wrote (the C++ reader does the same)."""
    if text == "true":
        return True
    if text == "false":
        return False
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def load_results(path):
    """(context or None, list of records) from a gemmlab JSON or CSV results file."""
    if not os.path.isfile(path):
        raise ReportError(f"{path}: no such file")
    if path.endswith(".csv"):
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if not reader.fieldnames or reader.fieldnames[0] != "kernel":
                raise ReportError(f"{path}: not a gemmlab results CSV (the first column must be 'kernel')")
            records = [{k: typed_cell(v) for k, v in row.items() if k and v not in (None, "")} for row in reader]
        return None, records
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ReportError(f'{path}: not a gemmlab results file (no "results" array)')
    context = data.get("context") if isinstance(data.get("context"), dict) else None
    return context, [r for r in data["results"] if isinstance(r, dict)]


class Source:
    """One input file: its path, context and records."""

    def __init__(self, path, context, records):
        self.path, self.context, self.records = path, context, records

    @property
    def device(self):
        return (self.context or {}).get("device") or "device unknown"

    @property
    def date(self):
        d = (self.context or {}).get("date") or ""
        return d[:10] if d else "date unknown"


def load_sources(paths):
    sources = []
    for i, p in enumerate(paths):
        ctx, recs = load_results(p)
        for r in recs:
            r["_src"] = i
        sources.append(Source(p, ctx, recs))
    return sources


# ---------------------------------------------------------------------------------------------
# Record helpers
# ---------------------------------------------------------------------------------------------

def shape(r):
    return (int(r.get("m", 0)), int(r.get("n", 0)), int(r.get("k", 0)))


def shape_label(s):
    return f"{s[0]}x{s[1]}x{s[2]}"


def status(r):
    return r.get("status") or ("ok" if r.get("time_median_ms") else "unknown")


def median_ms(r):
    v = r.get("time_median_ms")
    return float(v) if isinstance(v, (int, float)) and v > 0 else None


def is_measured(r):
    """Timed and verified: the records the plots are drawn from."""
    return status(r) == "ok" and median_ms(r) is not None


def gflops(r):
    v = r.get("gflops")
    if isinstance(v, (int, float)) and v > 0:
        return float(v)
    t = median_ms(r)
    if t is None:
        return None
    m, n, k = shape(r)
    return 2.0 * m * n * k / (t * 1e-3) / 1e9


def is_baseline(r):
    return r.get("family") == "baseline"


def parse_params(text):
    """'block=16 outputs=4' -> {'block': 16, 'outputs': 4}."""
    out = {}
    for part in str(text or "").split():
        if "=" in part:
            name, _, value = part.partition("=")
            out[name] = typed_cell(value)
    return out


def arithmetic_intensity(r):
    """FLOP per byte of the minimum traffic: A and B read once, C written once (and read when beta != 0)."""
    m, n, k = shape(r)
    op = OPERAND_BYTES.get(r.get("precision"), 4)
    out = OUTPUT_BYTES.get(r.get("output"), 4)
    c_passes = 2 if float(r.get("beta", 0) or 0) != 0 else 1
    traffic = (m * k + k * n) * op + m * n * out * c_passes
    return 2.0 * m * n * k / traffic


def line_style(i):
    """The i-th kernel line of a plot: distinct colour, then marker and dash pattern, for up to 50 lines."""
    round_ = (i // len(LINE_COLORS)) % len(LINE_MARKERS)
    return dict(color=LINE_COLORS[i % len(LINE_COLORS)], marker=LINE_MARKERS[round_], linestyle=LINE_DASHES[round_],
                markersize=5)


def baseline_style(i):
    """cuBLAS lines: dashed, in greys, one marker shape per baseline."""
    return dict(linestyle="--", linewidth=1.5, color=BASELINE_COLORS[i % 4], marker="sD^v"[i % 4], markersize=5)


def flops_unit(gflops_values):
    """(unit, factor from GFLOPS): TFLOPS once the values reach 10,000 GFLOPS, where GFLOPS ticks get
    unreadably long (700000); the tables stay in GFLOPS."""
    if gflops_values and max(gflops_values) >= 1e4:
        return "TFLOPS", 1e-3
    return "GFLOPS", 1.0


def group_of(r):
    """Plots of many kernels are split by precision: only kernels of one precision compute the same product."""
    return str(r.get("precision") or "unknown precision")


def ordered_groups(records):
    known = [p for p in PRECISIONS if any(group_of(r) == p for r in records)]
    return known + [g for g in ordered_unique(group_of(r) for r in records) if g not in known]


def ordered_unique(values):
    return list(OrderedDict.fromkeys(values))


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


class Data:
    """All records of all sources, with what the plots need to label them."""

    def __init__(self, sources):
        self.sources = sources
        self.records = [r for s in sources for r in s.records]
        self.measured = [r for r in self.records if is_measured(r)]
        devices = ordered_unique(s.device for s in sources)
        self.multi_device = len(devices) > 1
        self.square = all(a == b == c for a, b, c in map(shape, self.measured or self.records))
        dates = sorted(set(s.date for s in sources if s.context))
        date = dates[0] if len(dates) == 1 else (f"{dates[0]} to {dates[-1]}" if dates else "date unknown")
        self.where = f"{', '.join(devices)}, {date}"
        self.kernels = ordered_unique(r.get("kernel", "?") for r in self.records)

    def device_of(self, r):
        return self.sources[r["_src"]].device

    def x(self, r):
        m, n, k = shape(r)
        return float(m) if self.square else (m * n * k) ** (1.0 / 3.0)

    def x_label(self):
        if self.square:
            return "matrix size N (M = N = K), log2 scale"
        return "size (M·N·K)^(1/3), log2 scale"

    def varying(self, records, dims=("params", "output", "l2", "init", "label")):
        """Which of the label dimensions differ between these records."""
        out = [d for d in dims if len(set(str(r.get(d, "")) for r in records)) > 1]
        if self.multi_device and len(set(r["_src"] for r in records)) > 1:
            out.append("_device")
        # The same configuration at the same size from two files (two runs of one GPU): name the file.
        if len(set(r["_src"] for r in records)) > 1:
            seen = set()
            for r in records:
                key = (r.get("kernel"), self.label(r, out), shape(r))
                if key in seen:
                    out.append("_file")
                    break
                seen.add(key)
        return out

    def label(self, r, dims, prefix=""):
        parts = [prefix] if prefix else []
        for d in dims:
            if d == "_device":
                parts.append(f"[{self.device_of(r)}]")
            elif d == "_file":
                parts.append(f"[{os.path.basename(self.sources[r['_src']].path)}]")
            elif d == "params":
                if r.get("params") or not parts:
                    parts.append(str(r.get("params") or "default parameters"))
            elif d == "output":
                parts.append(f"C {r.get('output')}")
            elif d == "l2":
                parts.append(f"{r.get('l2')} L2")
            elif d == "label":
                if r.get("label"):
                    parts.append(f"({r['label']})")
            else:
                parts.append(f"{d} {r.get(d)}")
        # Nothing differs: name the parameters anyway (a legend saying "default" says nothing), or the
        # kernel when it has none.
        return " ".join(parts) if parts else (prefix or str(r.get("params") or r.get("kernel", "default")))

    def series_labels(self, records):
        """Labels for a plot of several kernels: the kernel id, its parameters only where that kernel
        comes with several combinations (long parameter lists of one-configuration kernels would fill
        the legend), and whatever else differs (C type, L2 mode, device, file)."""
        dims = [d for d in self.varying(records) if d != "params"]
        configs = {}
        for r in records:
            configs.setdefault(r.get("kernel"), set()).add(str(r.get("params", "")))
        several = {k for k, v in configs.items() if len(v) > 1}
        return lambda r: self.label(r, dims + (["params"] if r.get("kernel") in several else []), r.get("kernel", "?"))

    def baseline_for(self, r):
        """The measured cuBLAS record of r's precision, output, shape, L2 mode, init and device."""
        for b in self.measured:
            if (is_baseline(b) and b.get("precision") == r.get("precision") and b.get("output") == r.get("output")
                    and shape(b) == shape(r) and b.get("l2") == r.get("l2") and b.get("init") == r.get("init")
                    and self.device_of(b) == self.device_of(r)):
                return b
        return None

    def ratio_to_cublas(self, r):
        if is_baseline(r) and is_measured(r):
            return 1.0
        v = r.get("ratio_to_cublas")
        if isinstance(v, (int, float)) and v > 0:
            return float(v)
        if not is_measured(r):
            return None
        b = self.baseline_for(r)
        return median_ms(b) / median_ms(r) if b else None


def best_per_x(data, records):
    """For each size, the record with the highest GFLOPS (the best parameters at that size)."""
    best = {}
    for r in records:
        x = data.x(r)
        if x not in best or gflops(r) > gflops(best[x]):
            best[x] = r
    return [best[x] for x in sorted(best)]


# ---------------------------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------------------------

def small_png(data):
    """The PNG with a 256-colour palette: a third of the bytes, no visible change for line plots
    (committed reports and the HTML that embeds every image stay small). Pillow comes with
    matplotlib; without it the PNG stays as drawn."""
    try:
        from PIL import Image
    except ImportError:
        return data
    # Pillow before 9.1 has the constants on Image itself.
    median_cut = getattr(Image, "Quantize", Image).MEDIANCUT
    no_dither = getattr(Image, "Dither", Image).NONE
    image = Image.open(io.BytesIO(data)).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=256, method=median_cut, dither=no_dither).save(out, format="PNG", optimize=True)
    return out.getvalue()


def import_matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, NullLocator, FuncFormatter
    except ImportError:
        raise ReportError("python3 has no matplotlib: run scripts/setup (it installs python3-matplotlib)") from None
    return plt, FixedLocator, NullLocator, FuncFormatter


class Plotter:
    def __init__(self, outdir, data):
        self.plt, self.FixedLocator, self.NullLocator, self.FuncFormatter = import_matplotlib()
        import matplotlib.ticker
        self.ticker = matplotlib.ticker
        self.outdir, self.data = outdir, data
        self.files = []

    def figure(self):
        fig, ax = self.plt.subplots(figsize=(FIG_W_IN, FIG_H_IN), dpi=DPI)
        ax.grid(True, which="major", alpha=0.3)
        return fig, ax

    def size_axis(self, ax, xs):
        ax.set_xscale("log", base=2)
        ax.set_xlabel(self.data.x_label())
        ticks = []
        for x in sorted(set(xs)):  # a tick per size, leaving out those too close to read (1000 and 1024)
            if not ticks or math.log2(x / ticks[-1]) >= 0.35:
                ticks.append(x)
            elif math.log2(x).is_integer() and not math.log2(ticks[-1]).is_integer():
                ticks[-1] = x  # of two close sizes, label the power of two
        if ticks and len(ticks) <= 14:
            ax.xaxis.set_major_locator(self.FixedLocator(ticks))
            ax.xaxis.set_major_formatter(self.FuncFormatter(lambda v, _: f"{v:.0f}"))
            ax.xaxis.set_minor_locator(self.NullLocator())

    def legend(self, ax, count, loc="best"):
        if count == 0:
            return
        if count > 8:  # beside the plot: inside, this many entries cover the lines
            ax.legend(fontsize=7 if count > 14 else 8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                      frameon=False)
        else:
            ax.legend(fontsize=9, loc=loc)

    def value_axis(self, ax, values, label):
        """Linear from 0, or logarithmic when the values span more than a factor of 30."""
        if values and max(values) / max(min(values), 1e-12) > 30:
            ax.set_yscale("log")
            ax.set_ylabel(label + ", log scale")
            if max(values) / min(values) <= 1e4:  # few decades: label 1, 2, 5 of each, not only the powers of ten
                ax.yaxis.set_major_locator(self.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                ax.yaxis.set_major_formatter(self.FuncFormatter(lambda v, _: f"{v:g}"))
                ax.yaxis.set_minor_formatter(self.ticker.NullFormatter())
        else:
            # The top with a margin: a flat line at the maximum would otherwise lie on the frame.
            ax.set_ylim(0, max(values) * 1.08 if values and max(values) > 0 else 1)
            ax.set_ylabel(label)

    def flops_axis(self, ax, gflops_values):
        """GFLOPS or TFLOPS (flops_unit) on the value axis; returns the factor to scale GFLOPS by."""
        unit, f = flops_unit(gflops_values)
        self.value_axis(ax, [v * f for v in gflops_values], f"{unit} (2·M·N·K / median time)")
        return f

    def save(self, fig, name):
        fig.tight_layout()
        path = os.path.join(self.outdir, name)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI)  # no bbox_inches="tight": the size stays 800 x 500
        self.plt.close(fig)
        with open(path, "wb") as f:
            f.write(small_png(buf.getvalue()))
        self.files.append(name)
        return name

    def kernel_gflops(self, kernel, records):
        """Seed style: GFLOPS against size, one line per parameter combination; cuBLAS of the same
        precision dashed for reference; sizes the kernel has no measurement at are named."""
        fig, ax = self.figure()
        meas = [r for r in records if is_measured(r)]
        dims = self.data.varying(meas)
        series = OrderedDict()
        for r in sorted(meas, key=lambda r: self.data.x(r)):
            series.setdefault(self.data.label(r, dims), []).append(r)
        refs = OrderedDict()  # the cuBLAS measurements at this kernel's sizes, per cuBLAS kernel
        for r in meas:
            b = self.data.baseline_for(r)
            if b is not None:
                refs.setdefault(b.get("kernel", "cuBLAS"), OrderedDict())[id(b)] = b
        values = [gflops(r) for r in meas] + [gflops(b) for bs in refs.values() for b in bs.values()]
        f = self.flops_axis(ax, values)
        for i, (label, rs) in enumerate(series.items()):
            ax.plot([self.data.x(r) for r in rs], [gflops(r) * f for r in rs], label=label, **line_style(i))
        for i, (name, bs) in enumerate(refs.items()):
            bs = sorted(bs.values(), key=self.data.x)
            ax.plot([self.data.x(b) for b in bs], [gflops(b) * f for b in bs], label=f"{name} (cuBLAS, for reference)",
                    **baseline_style(i))
        missing = sorted(set(self.data.x(r) for r in records) - set(self.data.x(r) for r in meas))
        texts = []
        for x in missing:  # skipped or failed there: mark the size rather than let the line just end
            ax.axvline(x, color="lightgray", linestyle=":", linewidth=1, zorder=0)
            if texts and math.log2(x / texts[-1]) < 0.35:
                continue  # one text for close sizes (1000 and 1024), not two on top of each other
            texts.append(x)
            ax.text(x, 0.5, "no measurement: skipped or failed (see the tables)", transform=ax.get_xaxis_transform(),
                    rotation=90, ha="center", va="center", fontsize=8, color="dimgray",
                    bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
        self.size_axis(ax, [self.data.x(r) for r in records])
        if missing:  # the axis spans every size in the input, measured or not
            xs = [self.data.x(r) for r in records]
            ax.set_xlim(min(xs) / 2 ** 0.25, max(xs) * 2 ** 0.25)
        ax.set_title(f"{kernel}: {'TFLOPS' if f < 1 else 'GFLOPS'} against size\n{self.data.where}", fontsize=10)
        self.legend(ax, len(series) + len(refs))
        return self.save(fig, f"gflops_{safe_name(kernel)}.png")

    def against_size(self, records, name, title):
        """Every kernel in records at its best parameters per size; cuBLAS dashed."""
        fig, ax = self.figure()
        dims = [d for d in self.data.varying(records) if d != "params"]
        series = OrderedDict()
        for r in records:
            series.setdefault((is_baseline(r), self.data.label(r, dims, r.get("kernel", "?"))), []).append(r)
        series = OrderedDict(sorted(series.items(), key=lambda kv: not kv[0][0]))  # cuBLAS first in the legend
        points = OrderedDict((key, best_per_x(self.data, rs)) for key, rs in series.items())
        f = self.flops_axis(ax, [gflops(r) for pts in points.values() for r in pts])
        nbase = nkern = 0
        for (base, label), pts in points.items():
            if base:
                style, nbase = baseline_style(nbase), nbase + 1
            else:
                style, nkern = line_style(nkern), nkern + 1
            ax.plot([self.data.x(r) for r in pts], [gflops(r) * f for r in pts], label=label + (" (cuBLAS)" if base else ""),
                    **style)
        self.size_axis(ax, [self.data.x(r) for r in records])
        ax.set_title(f"{title}\n{self.data.where}", fontsize=10)
        self.legend(ax, len(series))
        return self.save(fig, name)

    def overview(self):
        """All kernels (best parameters per size) and cuBLAS: [(file, alt text)].

        Up to MANY_SERIES lines: one plot against size. More: one row per kernel at the largest
        size (overview.png) and one plot against size per precision (overview_<precision>.png)."""
        measured = self.data.measured
        dims = [d for d in self.data.varying(measured) if d != "params"]
        count = len(set((r.get("kernel"), self.data.label(r, dims)) for r in measured))
        if count <= MANY_SERIES:
            return [(self.against_size(measured, "overview.png", "All kernels (best parameters per size) and cuBLAS"),
                     "GFLOPS of all kernels and cuBLAS against size")]
        out = [(self.at_largest_size(), "every kernel at the largest size, with its percentage of cuBLAS")]
        for g in ordered_groups(measured):
            recs = [r for r in measured if group_of(r) == g]
            out.append((self.against_size(recs, f"overview_{safe_name(g)}.png",
                                          f"{g} kernels (best parameters per size) and cuBLAS against size"),
                        f"{g} kernels and cuBLAS against size"))
        return out

    def at_largest_size(self):
        """One row per kernel at the largest shape measured: its best GFLOPS there and its share of
        cuBLAS in the same precision; rows grouped by precision, cuBLAS's value a dashed line across
        its group. A kernel with no measurement at that shape keeps its row, with the reason."""
        measured = self.data.measured
        target = max((shape(r) for r in measured), key=lambda s: (s[0] * s[1] * s[2], s))
        dims = [d for d in self.data.varying(measured) if d != "params"]
        rows = []  # (group, label, is cuBLAS, best record at target or None, note)
        for g in ordered_groups(measured):
            entries = OrderedDict()
            for r in self.data.records:
                if group_of(r) == g:
                    entries.setdefault((not is_baseline(r), self.data.label(r, dims, r.get("kernel", "?"))), []).append(r)
            for (kernel_row, label), rs in sorted(entries.items(), key=lambda kv: kv[0][0]):  # cuBLAS first
                if not any(is_measured(r) for r in rs):
                    continue  # never measured at any size: the tables list it
                hit = [r for r in rs if is_measured(r) and shape(r) == target]
                best = max(hit, key=gflops) if hit else None
                note = ""
                if best is None:
                    why = [r for r in rs if shape(r) == target]
                    note = f"{status(why[0])} at this size (the reason is in the tables)" if why else "not measured at this size"
                rows.append((g, label + (" (cuBLAS)" if not kernel_row else ""), not kernel_row, best, note))
        values = [gflops(b) for _, _, _, b, _ in rows if b is not None]
        unit, f = flops_unit(values)
        fig, ax = self.figure()
        ax.grid(False)
        ax.grid(True, axis="x", which="major", alpha=0.3)
        n = len(rows)
        # The largest value at 80% of the width: the right-hand column of figures stays clear of the points.
        lo = min(values) * f / 2
        hi = lo * (max(values) * f / lo) ** (1 / 0.8)
        column = ax.get_yaxis_transform()  # x in axes fractions, y in data: the column of figures
        colors = {g: LINE_COLORS[i % len(LINE_COLORS)] for i, g in enumerate(ordered_groups(measured))}
        labelled = set()
        for i, (g, label, base, best, note) in enumerate(rows):
            y = n - 1 - i
            if best is None:
                ax.text(0.01, y, note, transform=column, va="center", fontsize=7, color="dimgray")
                continue
            v = gflops(best) * f
            if base:
                span = [n - 1 - j for j, row in enumerate(rows) if row[0] == g]
                ax.vlines(v, min(span) - 0.4, max(span) + 0.4, colors="black", linestyles="--", linewidth=1)
                ax.plot([v], [y], marker="s", color="black", linestyle="none",
                        label="cuBLAS (dashed line: its value)" if "cuBLAS" not in labelled else None)
                labelled.add("cuBLAS")
                ax.text(0.995, y, f"cuBLAS {v:.3g} {unit}", transform=column, ha="right", va="center", fontsize=7)
            else:
                ax.hlines(y, lo, v, colors=colors[g], linewidth=1, alpha=0.35)
                ax.plot([v], [y], marker="o", color=colors[g], linestyle="none",
                        label=f"{g} kernels" if g not in labelled else None)
                labelled.add(g)
                ratio = self.data.ratio_to_cublas(best)
                ax.text(0.995, y, f"{fmt_percent(ratio)} of cuBLAS" if ratio else f"{v:.3g} {unit}", transform=column,
                        ha="right", va="center", fontsize=7)
        for j in range(1, n):  # a rule between precisions
            if rows[j][0] != rows[j - 1][0]:
                ax.axhline(n - j - 0.5, color="lightgray", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        ax.xaxis.set_major_locator(self.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(self.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(self.ticker.NullFormatter())
        ax.set_ylim(-0.8, n - 0.2)  # room for the first and last rows' text inside the frame
        ax.set_yticks(range(n))
        ax.set_yticklabels([row[1] for row in reversed(rows)], fontsize=7 if n > 20 else 8)
        where = f"M = N = K = {target[0]}" if target[0] == target[1] == target[2] else f"M x N x K = {shape_label(target)}"
        ax.set_xlabel(f"{unit} at {where} (2·M·N·K / median time; best parameters), log scale")
        ax.set_title(f"Every kernel at {where}, and its share of cuBLAS in the same precision\n{self.data.where}",
                     fontsize=10)
        # Top right, left of the column of figures: the first rows are FP32, the slowest precision, so
        # their points lie on the left.
        ax.legend(fontsize=7, loc="upper right", bbox_to_anchor=(0.8, 0.97), framealpha=0.95)
        return self.save(fig, "overview.png")

    def speedup(self, baseline, rows):
        """rows: list of (label, [(x, speedup), ...])."""
        fig, ax = self.figure()
        xs, values = [], []
        bases = {r.get("kernel") for r in self.data.measured if is_baseline(r)}
        nbase = nkern = 0
        for label, pts in rows:
            pts = sorted(pts)
            xs += [p[0] for p in pts]
            values += [p[1] for p in pts]
            if label.split(" ")[0] in bases:  # cuBLAS dashed, as in every plot
                style, nbase = baseline_style(nbase), nbase + 1
            else:
                style, nkern = line_style(nkern), nkern + 1
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label, **style)
        ax.axhline(1.0, color="dimgray", linestyle=":", linewidth=1.8, label=f"{baseline} itself (= 1)")
        self.size_axis(ax, xs)
        self.value_axis(ax, values + [1.0], f"speed-up over {baseline} (its time / kernel's time)")
        ax.set_title(f"Speed-up over {baseline}\n{self.data.where}", fontsize=10)
        self.legend(ax, len(rows) + 1)
        return self.save(fig, f"speedup_{safe_name(baseline)}.png")

    def roofline(self, peaks):
        fig, ax = self.figure()
        measured = self.data.measured
        dims = [d for d in self.data.varying(measured) if d != "params"]
        series = OrderedDict()
        for r in measured:
            series.setdefault((is_baseline(r), self.data.label(r, dims, r.get("kernel", "?"))), []).append(r)
        by_group = len(series) > MANY_SERIES  # too many kernels for a colour each: one per precision
        groups = ordered_groups(measured)
        if by_group:  # the legend in precision order, cuBLAS first
            series = OrderedDict(sorted(series.items(), key=lambda kv: (not kv[0][0], groups.index(group_of(kv[1][0])))))
        points = OrderedDict((key, best_per_x(self.data, rs)) for key, rs in series.items())
        unit, f = flops_unit([gflops(r) for pts in points.values() for r in pts])
        ais = []
        labelled = set()
        nkern = 0
        for (base, label), pts in points.items():
            xs = [arithmetic_intensity(r) for r in pts]
            ais += xs
            ys = [gflops(r) * f for r in pts]
            if by_group:
                g = group_of(pts[0])
                key = "cuBLAS" if base else g
                count = len([k for k in points if k[0] == base and (base or group_of(points[k][0]) == g)])
                name = f"cuBLAS ({count})" if base else f"{g} kernels ({count})"
                color = "black" if base else LINE_COLORS[groups.index(g) % len(LINE_COLORS)]
                ax.scatter(xs, ys, marker="x" if base else "o", s=40 if base else 22, color=color,
                           alpha=1.0 if base else 0.6, label=name if key not in labelled else None, zorder=4 if base else 3)
                labelled.add(key)
            else:
                style = line_style(nkern)
                nkern += 0 if base else 1
                ax.scatter(xs, ys, marker="x" if base else style["marker"], s=30,
                           color="black" if base else style["color"], label=label + (" (cuBLAS)" if base else ""),
                           zorder=3)
        lo, hi = min(ais) / 2, max(ais) * 2
        bw = peaks["dram_gbs"]
        for name, tflops in peaks["compute"]:
            ridge = tflops * 1e3 / bw
            lo, hi = min(lo, ridge / 2), max(hi, ridge * 2)
        grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        for i, (name, tflops) in enumerate(peaks["compute"]):
            ax.plot(grid, [min(tflops * 1e3, a * bw) * f for a in grid], color="black", linewidth=1.2,
                    linestyle=["-", "--", "-.", ":"][i % 4], label=f"roof {name}: {tflops:.1f} TFLOPS")
        ax.plot([], [], color="none", label=f"slope: DRAM {bw:.0f} GB/s")
        # Points of a precision without a roof of its own would seem to break the FP32 roof: say so.
        roofless = [g.upper() for g in groups if g in PRECISIONS and not any(n.split()[0] == g.upper() for n, _ in peaks["compute"])]
        if roofless:
            ax.plot([], [], color="none", label=f"no roof for {', '.join(roofless)}:\nnot in the peaks file")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity, FLOP/byte (A, B read and C written once), log2 scale")
        ax.set_ylabel(f"{unit} (2·M·N·K / median time), log scale")
        ax.set_title(f"Roofline (each kernel at its best per size); peaks: {peaks['source']}\n{self.data.where}",
                     fontsize=10)
        entries = (len(groups) + 1 if by_group else len(series)) + len(peaks["compute"]) + 1 + bool(roofless)
        if entries > 12:
            self.legend(ax, entries)
        else:  # inside where it covers the fewest points and roofs (the plot keeps its full width)
            ax.legend(fontsize=7 if entries > 8 else 8, loc="best", framealpha=0.95)
        return self.save(fig, "roofline.png")

    def transfer(self, index, bars, phases):
        """bars: list of (label, {phase: ms}); stacked, one bar per record."""
        fig, ax = self.figure()
        bottoms = [0.0] * len(bars)
        for ph in phases:
            vals = [b[1].get(ph, 0.0) for b in bars]
            ax.bar(range(len(bars)), vals, bottom=bottoms, label=ph)
            bottoms = [a + b for a, b in zip(bottoms, vals)]
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([b[0] for b in bars], rotation=30 if len(bars) > 4 else 0, ha="right" if len(bars) > 4 else "center",
                           fontsize=7 if len(bars) > 8 else 8)
        ax.set_ylabel("time (ms, median per phase)")
        ax.set_title(f"Time breakdown by phase\n{self.data.where}", fontsize=10)
        self.legend(ax, len(phases))
        return self.save(fig, f"transfer_{index}.png")


# ---------------------------------------------------------------------------------------------
# The document: a list of blocks rendered as Markdown and as HTML
# ---------------------------------------------------------------------------------------------

class Doc:
    def __init__(self):
        self.blocks = []

    def h(self, level, text):
        self.blocks.append(("h", level, text))

    def p(self, text):
        self.blocks.append(("p", text))

    def img(self, file, alt):
        self.blocks.append(("img", file, alt))

    def table(self, header, rows):
        self.blocks.append(("table", header, rows))

    def markdown(self):
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "img":
                out.append(f"![{b[2]}]({b[1]})")
            else:
                cell = lambda c: str(c).replace("|", "\\|").replace("\n", " ")
                out.append("| " + " | ".join(cell(c) for c in b[1]) + " |")
                out.append("|" + "|".join("---" for _ in b[1]) + "|")
                for row in b[2]:
                    out.append("| " + " | ".join(cell(c) for c in row) + " |")
            out.append("")
        return "\n".join(out)

    def html(self, outdir, title):
        e = html.escape
        body = []
        for b in self.blocks:
            if b[0] == "h":
                body.append(f"<h{b[1]}>{e(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{e(b[1])}</p>")
            elif b[0] == "img":
                with open(os.path.join(outdir, b[1]), "rb") as f:
                    data = base64.b64encode(f.read()).decode("ascii")
                body.append(f'<figure><img alt="{e(b[2])}" src="data:image/png;base64,{data}"></figure>')
            else:
                head = "".join(f"<th>{e(str(c))}</th>" for c in b[1])
                rows = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>" for row in b[2])
                body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        style = ("body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}"
                 "table{border-collapse:collapse;margin:1em 0;font-size:90%}"
                 "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
                 "th:first-child,td:first-child{text-align:left}th{background:#f3f3f3}"
                 "img{max-width:100%}figure{margin:1em 0}")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{e(title)}</title>"
                f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


# ---------------------------------------------------------------------------------------------
# Report sections
# ---------------------------------------------------------------------------------------------

def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.1f}"
    return f"{v:.3f}" if v >= 1 else (f"{v:.4f}" if v >= 0.01 else f"{v:.3g}")


def fmt_gflops(v):
    if v is None:
        return "-"
    return f"{v:.0f}" if v >= 100 else f"{v:.2f}"


def fmt_percent(ratio):
    if not ratio:
        return "-"
    return f"{100 * ratio:.1f}%" if ratio >= 0.01 else f"{100 * ratio:.2g}%"


def check_cell(r):
    s = status(r)
    if s == "skipped":
        return f"skipped: {r.get('reason', '')}"
    if s == "error":
        return f"error: {r.get('reason', '')}"
    if s == "verification-failed":
        bits = []
        if r.get("kernel_rel_error") is not None:
            bits.append(f"rel error {float(r['kernel_rel_error']):.1e}")
        if r.get("kernel_nonfinite"):
            bits.append(f"{r['kernel_nonfinite']} non-finite")
        return "FAIL" + (f" ({', '.join(bits)})" if bits else "")
    if s == "ok":
        if r.get("kernel_verified") is False:
            return "unchecked"
        err = r.get("kernel_rel_error")
        return f"ok ({float(err):.1e})" if isinstance(err, (int, float)) else "ok"
    return s


def load_peaks(path, sources):
    """{"source", "dram_gbs", "compute": [(name, tflops), ...]} or None."""
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                p = json.load(f)
        except OSError as e:
            raise ReportError(f"--peaks {path}: cannot read ({e.strerror})") from None
        except json.JSONDecodeError as e:
            raise ReportError(f"--peaks {path}: not valid JSON ({e})") from None
        if isinstance(p, dict) and isinstance(p.get("peaks"), dict):
            p = p["peaks"]
        if not isinstance(p, dict):
            raise ReportError(f"--peaks {path}: expected an object like {{\"fp32_tflops\": 51.2, \"dram_gbs\": 3350}}")
        compute = []
        for prec in PRECISIONS:
            # <precision>_tflops as documented; mma_/datasheet_<precision>_tflops as `gemmlab peak --json`
            # writes them (the mma.sync rate it measures, and the datasheet's dense tensor-core rate).
            for key, name in ((f"{prec}_tflops", prec.upper()),
                              (f"mma_{prec}_tflops", f"{prec.upper()} mma.sync, measured"),
                              (f"datasheet_{prec}_tflops", f"{prec.upper()} datasheet")):
                if isinstance(p.get(key), (int, float)) and p[key] > 0:
                    compute.append((name, float(p[key])))
        bw = p.get("dram_gbs")
        if not compute or not isinstance(bw, (int, float)) or bw <= 0:
            raise ReportError(f"--peaks {path}: needs dram_gbs and at least one of "
                              + ", ".join(f"{x}_tflops" for x in PRECISIONS))
        return {"source": p.get("source", "measured"), "dram_gbs": float(bw), "compute": compute}
    for s in sources:
        c = s.context or {}
        t, bw = c.get("theoretical_fp32_tflops"), c.get("theoretical_dram_gbs")
        if isinstance(t, (int, float)) and t > 0 and isinstance(bw, (int, float)) and bw > 0:
            return {"source": "theoretical", "dram_gbs": float(bw), "compute": [("FP32 (CUDA cores)", float(t))]}
    return None


def speedup_rows(data, baseline):
    """Speed-up of every measured configuration over the baseline kernel at the same size.

    The baseline configuration compared with is the one with the same values of the parameters
    both kernels have (seed 004: the same block size); when there is none, its fastest one.
    Only kernels of the baseline's precision are compared: a BF16 kernel computes another product."""
    base = [r for r in data.measured if r.get("kernel") == baseline]
    if not base:
        known = ", ".join(ordered_unique(r.get("kernel") for r in data.measured)) or "none"
        raise ReportError(f"--baseline {baseline}: no measured result of that kernel in the input (measured: {known})")
    precisions = set(group_of(b) for b in base)
    others = [r for r in data.measured if r.get("kernel") != baseline and group_of(r) in precisions]
    label_of = data.series_labels(others)
    series = OrderedDict()
    for r in others:
        cands = [b for b in base if shape(b) == shape(r) and b.get("l2") == r.get("l2") and b.get("init") == r.get("init")
                 and data.device_of(b) == data.device_of(r)]
        if not cands:
            continue
        mine = parse_params(r.get("params"))

        def agrees(b):  # shares at least one parameter with r, and has r's values for all it shares
            theirs = parse_params(b.get("params"))
            shared = set(mine) & set(theirs)
            return bool(shared) and all(theirs[p] == mine[p] for p in shared)

        chosen = min([b for b in cands if agrees(b)] or cands, key=median_ms)
        series.setdefault(label_of(r), []).append((data.x(r), median_ms(chosen) / median_ms(r), shape(r)))
    return series


def build_report(args, sources, outdir):
    data = Data(sources)
    plot = Plotter(outdir, data)
    doc = Doc()
    title = args.title or f"gemmlab report: {data.where}"
    doc.h(1, title)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    counts = OrderedDict()
    for r in data.records:
        counts[status(r)] = counts.get(status(r), 0) + 1
    doc.p(f"Generated {now} by gemmlab report from {len(sources)} results file(s): {len(data.records)} records ("
          + ", ".join(f"{v} {k}" for k, v in counts.items()) + "). Times are the median of the timed runs "
          "(CUDA events); GFLOPS = 2·M·N·K / median time; every measured result was checked against float64.")
    rows = []
    for s in sources:
        c = s.context or {}
        rows.append([s.path, s.device, c.get("date", "-") if s.context else "- (CSV: no context)",
                     c.get("gemmlab_commit", "-"), c.get("cuda_runtime", "-"), c.get("driver", "-"), len(s.records)])
    doc.table(["file", "device", "date", "gemmlab commit", "CUDA runtime", "driver", "records"], rows)

    if data.measured:
        images = plot.overview()
        if len(images) == 1:
            doc.h(2, "All kernels against size")
            doc.p("Each kernel at its best parameters for each size (the fastest measured combination), cuBLAS dashed.")
            doc.img(*images[0])
        else:
            doc.h(2, "All kernels at the largest size")
            doc.p("Too many kernels for one plot against size: first every kernel at the largest size measured "
                  "(its fastest parameters there), with its time as a share of cuBLAS's in the same precision "
                  "(cuBLAS time / kernel time); then one plot against size per precision, each kernel at its best "
                  "parameters for each size, cuBLAS dashed.")
            doc.img(*images[0])
            doc.h(2, "All kernels against size, per precision")
            for image in images[1:]:
                doc.img(*image)
    else:
        doc.p("No measured (timed and verified) results: no plots, only the tables below.")

    # One section per kernel: the seeds' chart and tables.
    for kernel in data.kernels:
        recs = [r for r in data.records if r.get("kernel") == kernel]
        meas = [r for r in recs if is_measured(r)]
        if not meas or is_baseline(recs[0]):
            continue
        doc.h(2, f"Kernel {kernel}")
        if recs[0].get("title"):
            doc.p(recs[0]["title"])
        doc.img(plot.kernel_gflops(kernel, recs), f"{kernel}: GFLOPS against size")
        dims = data.varying(meas)
        cols = ordered_unique(data.label(r, dims) for r in meas)
        sizes = sorted(set(shape(r) for r in meas), key=lambda s: (s[0] * s[1] * s[2], s))
        for what, fn, fmt in (("GFLOPS", gflops, fmt_gflops), ("median time [ms]", median_ms, fmt_ms)):
            doc.p(f"{kernel}: {what} (rows: size, columns: parameters)")
            table = []
            for s in sizes:
                row = [shape_label(s)]
                for c in cols:
                    hit = [r for r in meas if shape(r) == s and data.label(r, dims) == c]
                    row.append(fmt(fn(hit[-1])) if hit else "-")
                table.append(row)
            doc.table(["size"] + cols, table)

    if args.baseline:
        series = speedup_rows(data, args.baseline)
        doc.h(2, f"Speed-up over {args.baseline}")
        doc.p(f"Time of {args.baseline} divided by the kernel's time at the same size, against the {args.baseline} "
              "configuration with the same values of the parameters both have (e.g. the same block size), "
              f"else its fastest one. Above 1: faster than the baseline. Only kernels of {args.baseline}'s precision "
              "are compared (another precision computes another product).")
        if series:
            doc.img(plot.speedup(args.baseline, list((k, [(x, v) for x, v, _ in pts]) for k, pts in series.items())),
                    f"speed-up over {args.baseline}")
            sizes = sorted(set(s for pts in series.values() for _, _, s in pts), key=lambda s: (s[0] * s[1] * s[2], s))
            table = []
            for s in sizes:
                row = [shape_label(s)]
                for pts in series.values():
                    hit = [v for _, v, sh in pts if sh == s]
                    row.append(f"{hit[-1]:.2f}x" if hit else "-")
                table.append(row)
            doc.table(["size"] + list(series), table)
        else:
            doc.p("No other kernel was measured at the sizes the baseline was.")

    if data.measured:
        peaks = load_peaks(args.peaks, sources)
        doc.h(2, "Roofline")
        if peaks:
            doc.p("Arithmetic intensity of the minimum traffic (A and B read once, C written once, in their "
                  f"storage types): every kernel at one size sits at the same intensity. Peaks: {peaks['source']}"
                  + (f" ({args.peaks})." if args.peaks else " (from the results file's context)."))
            doc.img(plot.roofline(peaks), "roofline")
        else:
            doc.p("No peaks known (a CSV file has no context): pass --peaks peaks.json (gemmlab peak --json) "
                  "to draw the roofline.")

    transfer_section(doc, plot, data)

    doc.h(2, "Tables per size")
    doc.p("Every record, measured or not. % of cuBLAS: cuBLAS time / kernel time in the same precision.")
    multi = data.multi_device
    several_files = len(sources) > 1
    by_shape = OrderedDict()
    for r in sorted(data.records, key=lambda r: (shape(r)[0] * shape(r)[1] * shape(r)[2], shape(r))):
        by_shape.setdefault(shape(r), []).append(r)
    for s, recs in by_shape.items():
        doc.h(3, f"M x N x K = {shape_label(s)}")
        table = []
        for r in recs:
            ratio = data.ratio_to_cublas(r)
            p10, p90 = r.get("time_p10_ms"), r.get("time_p90_ms")
            spread = f"{fmt_ms(p10)}..{fmt_ms(p90)}" if isinstance(p10, (int, float)) and isinstance(p90, (int, float)) else "-"
            kernel = r.get("kernel", "?") + (f" ({r['label']})" if r.get("label") else "")
            row = [kernel, r.get("params", "") or "-", r.get("precision", "-"),
                   fmt_ms(median_ms(r)), spread, fmt_gflops(gflops(r)) if median_ms(r) else "-",
                   fmt_percent(ratio), check_cell(r)]
            if several_files:
                row.insert(0, os.path.basename(sources[r["_src"]].path))
            if multi:
                row.insert(0, data.device_of(r))
            table.append(row)
        head = ["kernel", "params", "precision", "median ms", "p10..p90 ms", "GFLOPS", "% of cuBLAS", "verification"]
        doc.table((["device"] if multi else []) + (["file"] if several_files else []) + head, table)

    problems = [r for r in data.records if status(r) in ("verification-failed", "error")]
    if problems:
        doc.h(2, "Failures")
        doc.table(["kernel", "params", "shape", "status", "details"],
                  [[r.get("kernel", "?"), r.get("params", ""), shape_label(shape(r)), status(r), check_cell(r)]
                   for r in problems])
    return doc, title, plot.files


def transfer_section(doc, plot, data):
    """Bars for records with phase_<name>_median_ms fields (transfer studies)."""
    recs = [r for r in data.records if any(PHASE_RE.match(k) for k in r)]
    if not recs:
        return
    phases = []
    for r in recs:
        order = [p.strip() for p in str(r.get("phases", "")).split(",") if p.strip()]
        names = sorted(PHASE_RE.match(k).group(1) for k in r if PHASE_RE.match(k))
        for p in order + names:
            if p not in phases and f"phase_{p}_median_ms" in r:
                phases.append(p)
    def bar_label(r, with_shape):
        text = str(r.get("label") or f"{r.get('kernel', '?')} {r.get('params', '')}".strip())
        return f"{text} {shape_label(shape(r))}" if with_shape else text

    labels = [bar_label(r, False) for r in recs]
    repeated = len(set(labels)) < len(labels)  # the same label at several sizes: add the size
    bars = [(bar_label(r, repeated), {p: float(r[f"phase_{p}_median_ms"]) for p in phases if f"phase_{p}_median_ms" in r})
            for r in recs]
    doc.h(2, "Time breakdown (transfer studies)")
    doc.p("Median time of each phase, stacked per configuration.")
    per_figure = 16
    for i in range(0, len(bars), per_figure):
        doc.img(plot.transfer(i // per_figure + 1, bars[i:i + per_figure], phases), "time breakdown by phase")
    doc.table(["configuration"] + [f"{p} ms" for p in phases] + ["total ms"],
              [[label] + [fmt_ms(v.get(p)) if p in v else "-" for p in phases] + [fmt_ms(sum(v.values()))]
               for label, v in bars])


# ---------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(prog="gemmlab report", description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+", help="gemmlab results files (.json or .csv)")
    ap.add_argument("-o", "--output", required=True, help="directory for report.md, report.html and the plots")
    ap.add_argument("--baseline", help="kernel id to draw speed-ups over (e.g. seed.shared)")
    ap.add_argument("--peaks", help="peaks JSON for the roofline (gemmlab peak --json; see docs/reports.md)")
    ap.add_argument("--title", help="the report's title")
    args = ap.parse_args(argv)
    try:
        sources = load_sources(args.results)
        if not any(s.records for s in sources):
            raise ReportError("the results files hold no records")
        try:
            os.makedirs(args.output, exist_ok=True)
        except OSError as e:
            raise ReportError(f"{args.output}: cannot create the directory ({e.strerror})") from None
        doc, title, files = build_report(args, sources, args.output)
        with open(os.path.join(args.output, "report.md"), "w", encoding="utf-8") as f:
            f.write(doc.markdown())
        with open(os.path.join(args.output, "report.html"), "w", encoding="utf-8") as f:
            f.write(doc.html(args.output, title))
    except ReportError as e:
        print(f"gemmlab: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {os.path.join(args.output, 'report.md')}, {os.path.join(args.output, 'report.html')} "
          f"and {len(files)} plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
