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
        return " ".join(parts) if parts else (prefix or "default")

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
        ax.legend(fontsize=7 if count > 8 else 9, ncol=2 if count > 10 else 1, loc=loc)

    def value_axis(self, ax, values, label):
        """Linear from 0, or logarithmic when the values span more than a factor of 30."""
        if values and max(values) / max(min(values), 1e-12) > 30:
            ax.set_yscale("log")
            ax.set_ylabel(label + ", log scale")
        else:
            ax.set_ylim(bottom=0)
            ax.set_ylabel(label)

    def save(self, fig, name):
        fig.tight_layout()
        path = os.path.join(self.outdir, name)
        fig.savefig(path, dpi=DPI)  # no bbox_inches="tight": the size stays 800 x 500
        self.plt.close(fig)
        self.files.append(name)
        return name

    def kernel_gflops(self, kernel, records):
        """Seed style: GFLOPS against size, one line per parameter combination."""
        fig, ax = self.figure()
        dims = self.data.varying(records)
        series = OrderedDict()
        for r in sorted(records, key=lambda r: self.data.x(r)):
            series.setdefault(self.data.label(r, dims), []).append(r)
        for label, rs in series.items():
            ax.plot([self.data.x(r) for r in rs], [gflops(r) for r in rs], marker="o", label=label)
        self.size_axis(ax, [self.data.x(r) for r in records])
        ax.set_ylabel("GFLOPS (2·M·N·K / median time)")
        ax.set_ylim(bottom=0)
        ax.set_title(f"{kernel}: GFLOPS against size\n{self.data.where}", fontsize=10)
        self.legend(ax, len(series))
        return self.save(fig, f"gflops_{safe_name(kernel)}.png")

    def overview(self):
        """All kernels (best parameters per size) and cuBLAS."""
        fig, ax = self.figure()
        measured = self.data.measured
        dims = [d for d in self.data.varying(measured) if d != "params"]
        series = OrderedDict()
        for r in measured:
            series.setdefault((is_baseline(r), self.data.label(r, dims, r.get("kernel", "?"))), []).append(r)
        values, nbase = [], 0
        for (base, label), rs in series.items():
            pts = best_per_x(self.data, rs)
            ys = [gflops(r) for r in pts]
            values += ys
            style = dict(marker="o")
            if base:  # cuBLAS: dashed, in greys, one marker shape per baseline
                style = dict(linestyle="--", linewidth=1.5, color=["black", "dimgray", "gray", "darkgray"][nbase % 4],
                             marker="sD^v"[nbase % 4])
                nbase += 1
            ax.plot([self.data.x(r) for r in pts], ys, label=label + (" (cuBLAS)" if base else ""), **style)
        self.size_axis(ax, [self.data.x(r) for r in measured])
        self.value_axis(ax, values, "GFLOPS (2·M·N·K / median time)")
        ax.set_title(f"All kernels (best parameters per size) and cuBLAS\n{self.data.where}", fontsize=10)
        self.legend(ax, len(series))
        return self.save(fig, "overview.png")

    def speedup(self, baseline, rows):
        """rows: list of (label, [(x, speedup), ...])."""
        fig, ax = self.figure()
        xs, values = [], []
        for label, pts in rows:
            pts = sorted(pts)
            xs += [p[0] for p in pts]
            values += [p[1] for p in pts]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
        self.size_axis(ax, xs)
        self.value_axis(ax, values + [1.0], f"speed-up over {baseline} (its time / kernel's time)")
        ax.set_title(f"Speed-up over {baseline}\n{self.data.where}", fontsize=10)
        self.legend(ax, len(rows))
        return self.save(fig, f"speedup_{safe_name(baseline)}.png")

    def roofline(self, peaks):
        fig, ax = self.figure()
        measured = self.data.measured
        dims = [d for d in self.data.varying(measured) if d != "params"]
        series = OrderedDict()
        for r in measured:
            series.setdefault((is_baseline(r), self.data.label(r, dims, r.get("kernel", "?"))), []).append(r)
        ais = []
        for (base, label), rs in series.items():
            pts = best_per_x(self.data, rs)
            xs = [arithmetic_intensity(r) for r in pts]
            ais += xs
            ax.scatter(xs, [gflops(r) for r in pts], marker="x" if base else "o", s=30,
                       label=label + (" (cuBLAS)" if base else ""), zorder=3)
        lo, hi = min(ais) / 2, max(ais) * 2
        bw = peaks["dram_gbs"]
        for i, (name, tflops) in enumerate(peaks["compute"]):
            ridge = tflops * 1e3 / bw
            lo, hi = min(lo, ridge / 2), max(hi, ridge * 2)
        grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        for i, (name, tflops) in enumerate(peaks["compute"]):
            ax.plot(grid, [min(tflops * 1e3, a * bw) for a in grid], color="black", linewidth=1.2,
                    linestyle=["-", "--", "-.", ":"][i % 4], label=f"roof: {name} {tflops:.1f} TFLOPS, DRAM {bw:.0f} GB/s")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (FLOP/byte; minimum traffic: A, B read and C written once), log2 scale")
        ax.set_ylabel("GFLOPS (log scale)")
        ax.set_title(f"Roofline; peaks: {peaks['source']}\n{self.data.where}", fontsize=10)
        self.legend(ax, len(series) + len(peaks["compute"]), loc="lower right")
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
        compute = [(f"{prec.upper()}", float(p[f"{prec}_tflops"])) for prec in PRECISIONS
                   if isinstance(p.get(f"{prec}_tflops"), (int, float)) and p[f"{prec}_tflops"] > 0]
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
    both kernels have (seed 004: the same block size); when there is none, its fastest one."""
    base = [r for r in data.measured if r.get("kernel") == baseline]
    if not base:
        known = ", ".join(ordered_unique(r.get("kernel") for r in data.measured)) or "none"
        raise ReportError(f"--baseline {baseline}: no measured result of that kernel in the input (measured: {known})")
    others = [r for r in data.measured if r.get("kernel") != baseline]
    dims = data.varying(others)
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
        label = data.label(r, dims, r.get("kernel", "?"))
        series.setdefault(label, []).append((data.x(r), median_ms(chosen) / median_ms(r), shape(r)))
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
        doc.h(2, "All kernels against size")
        doc.p("Each kernel at its best parameters for each size (the fastest measured combination), cuBLAS dashed.")
        doc.img(plot.overview(), "GFLOPS of all kernels and cuBLAS against size")
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
        doc.img(plot.kernel_gflops(kernel, meas), f"{kernel}: GFLOPS against size")
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
              "else its fastest one. Above 1: faster than the baseline.")
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
