"""GEMM records as the plots and tables see them: shapes, throughput, labels, the cuBLAS ratio.

Every accessor tolerates a field that is missing or not a number (a hand-edited file, a record
kind it was not meant for): the record then drops out of the plots and stays in the tables.
"""

import math
import os
import re
from collections import OrderedDict

from .errors import ReportError
from .loading import record_kind, typed_cell
from .style import PRECISIONS, number

OPERAND_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
OUTPUT_BYTES = {"f32": 4, "f64": 8, "bf16": 2, "f16": 2}

# Above this many lines one panel cannot be read (a sweep of every kernel has 35): the report then
# shows every kernel at the largest size, and one plot per precision.
MANY_SERIES = 12


def ordered_unique(values):
    return list(OrderedDict.fromkeys(values))


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", str(text))


def shape(r):
    def dim(key):
        v = number(r.get(key))
        return int(v) if v is not None and v > 0 else 0
    return (dim("m"), dim("n"), dim("k"))


def shape_label(s):
    return f"{s[0]}x{s[1]}x{s[2]}"


def shape_volume(s):
    return s[0] * s[1] * s[2]


def status(r):
    if "status" not in r and record_kind(r) == "bench":  # gemmlab bench: both sides checked, no status field
        return "ok" if r.get("passed") is not False and r.get("anchor_passed") is not False else "verification-failed"
    return str(r.get("status") or ("ok" if number(r.get("time_median_ms")) else "unknown"))


def median_ms(r):
    v = number(r.get("time_median_ms"))
    return v if v is not None and v > 0 else None


def is_measured(r):
    """Timed, verified and of a real shape: the records the plots are drawn from."""
    return status(r) == "ok" and median_ms(r) is not None and shape_volume(shape(r)) > 0


def gflops(r):
    v = number(r.get("gflops"))
    if v is not None and v > 0:
        return v
    t = median_ms(r)
    if t is None:
        return None
    m, n, k = shape(r)
    return 2.0 * m * n * k / (t * 1e-3) / 1e9


def tflops(r):
    g = gflops(r)
    return None if g is None else g * 1e-3


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
    """FLOP per byte of the minimum traffic: A and B read once, C written once (and read when
    beta != 0); None for a record without a shape."""
    m, n, k = shape(r)
    op = OPERAND_BYTES.get(r.get("precision"), 4)
    out = OUTPUT_BYTES.get(r.get("output"), 4)
    c_passes = 2 if (number(r.get("beta")) or 0) != 0 else 1
    traffic = (m * k + k * n) * op + m * n * out * c_passes
    return 2.0 * m * n * k / traffic if traffic > 0 and m * n * k > 0 else None


def group_of(r):
    """Plots of many kernels are split by precision: only kernels of one precision compute the same product."""
    return str(r.get("precision") or "unknown precision")


def ordered_groups(records):
    known = [p for p in PRECISIONS if any(group_of(r) == p for r in records)]
    return known + [g for g in ordered_unique(group_of(r) for r in records) if g not in known]


def geomean(values):
    vals = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


class Axis:
    """How sizes are drawn. Square shapes: against N. Shapes where one dimension varies: against
    that dimension. Anything else (a suite of shapes): bars per shape, in the order of the files."""

    def __init__(self, shapes):
        shapes = ordered_unique(s for s in shapes if shape_volume(s) > 0)
        self.shapes = shapes
        self.kind, self.dim = "suite", None
        if shapes and all(a == b == c for a, b, c in shapes):
            self.kind = "square"
        elif len(shapes) > 1:
            varying = [d for d in range(3) if len(set(s[d] for s in shapes)) > 1]
            if len(varying) == 1:
                self.kind, self.dim = "dim", varying[0]
        self.index = {s: i for i, s in enumerate(shapes)}

    @property
    def bars(self):
        return self.kind == "suite"

    def x(self, s):
        if self.kind == "square":
            return float(s[0])
        if self.kind == "dim":
            return float(s[self.dim])
        return float(self.index.get(s, len(self.shapes)))

    def label(self):
        if self.kind == "square":
            return "matrix size N (M = N = K), log2 scale"
        if self.kind == "dim":
            name = "MNK"[self.dim]
            fixed = ", ".join(f"{'MNK'[d]} = {self.shapes[0][d]}" for d in range(3) if d != self.dim)
            return f"{name} ({fixed}), log2 scale"
        return "shape M x N x K"


class Data:
    """The GEMM records of all sources, with what the plots need to label them."""

    def __init__(self, sources):
        self.sources = sources
        self.all_records = [r for s in sources for r in s.records]
        self.records = [r for r in self.all_records if record_kind(r) == "gemm"]
        self.records += self.paired_cublas()
        self.measured = [r for r in self.records if is_measured(r)]
        devices = ordered_unique(s.device for s in sources)
        self.multi_device = len(devices) > 1
        dates = sorted(set(s.date for s in sources if s.context))
        date = dates[0] if len(dates) == 1 else (f"{dates[0]} to {dates[-1]}" if dates else "date unknown")
        self.where = f"{', '.join(devices)}, {date}"
        self.kernels = ordered_unique(str(r.get("kernel", "?")) for r in self.records)
        self.axis = Axis([shape(r) for r in (self.measured or self.records)])
        self.square = self.axis.kind == "square"

    def config(self, r):
        """What makes two records comparable: precision, output, shape, L2 mode, init, device."""
        return (r.get("precision"), r.get("output"), shape(r), r.get("l2"), r.get("init"), self.device_of(r))

    def paired_cublas(self):
        """cuBLAS records made from the cuBLAS timings inside kernel records, for configurations
        with no cuBLAS record of their own: `lab --interleave` and `run --cublas` time cuBLAS
        alongside every kernel and write only the kernel's record. Each is the median of the
        paired cuBLAS medians of that configuration, marked with _paired (how many)."""
        have = set(self.config(b) for b in self.records if is_baseline(b) and is_measured(b))
        groups = OrderedDict()
        for r in self.records:
            t = number(r.get("cublas_time_median_ms"))
            if is_baseline(r) or not is_measured(r) or not t or t <= 0 or not r.get("cublas_kernel"):
                continue
            if self.config(r) not in have:
                groups.setdefault(self.config(r), []).append(r)
        out = []
        for rs in groups.values():
            times = sorted(number(r["cublas_time_median_ms"]) for r in rs)
            mid = len(times) // 2
            median = times[mid] if len(times) % 2 else (times[mid - 1] + times[mid]) / 2
            errors = [number(r.get("cublas_rel_error")) for r in rs if number(r.get("cublas_rel_error")) is not None]
            failed = any(r.get("cublas_passed") is False for r in rs)
            first = rs[0]
            rec = {k: first[k] for k in ("precision", "output", "m", "n", "k", "l2", "init", "beta", "_src") if k in first}
            rec.update({"kernel": str(first["cublas_kernel"]), "family": "baseline", "time_median_ms": median,
                        "status": "verification-failed" if failed else "ok", "_paired": len(rs)})
            if errors:
                rec["kernel_rel_error"] = max(errors)
            out.append(rec)
        return out

    def device_of(self, r):
        return self.sources[r["_src"]].device if isinstance(r.get("_src"), int) else "device unknown"

    def x(self, r):
        return self.axis.x(shape(r))

    def x_label(self):
        return self.axis.label()

    def varying(self, records, dims=("params", "output", "l2", "init", "label")):
        """Which of the label dimensions differ between these records."""
        out = [d for d in dims if len(set(str(r.get(d, "")) for r in records)) > 1]
        srcs = set(r.get("_src") for r in records)
        if self.multi_device and len(srcs) > 1:
            out.append("_device")
        # The same configuration at the same size from two files (two runs of one GPU): name the file.
        if len(srcs) > 1:
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
                src = r.get("_src")
                parts.append(f"[{os.path.basename(self.sources[src].path)}]" if isinstance(src, int) else "[?]")
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
        return lambda r: self.label(r, dims + (["params"] if r.get("kernel") in several else []),
                                    str(r.get("kernel", "?")))

    def baseline_for(self, r):
        """The measured cuBLAS record of r's precision, output, shape, L2 mode, init and device."""
        for b in self.measured:
            if (is_baseline(b) and b.get("precision") == r.get("precision") and b.get("output") == r.get("output")
                    and shape(b) == shape(r) and b.get("l2") == r.get("l2") and b.get("init") == r.get("init")
                    and self.device_of(b) == self.device_of(r)):
                return b
        return None

    def ratio_to_cublas(self, r):
        """cuBLAS time / kernel time in the same precision: the record's own ratio when it has one
        (measured alongside it), else from a cuBLAS record of the same configuration in the input."""
        if is_baseline(r) and is_measured(r):
            return 1.0
        v = number(r.get("ratio_to_cublas"))
        if v is not None and v > 0:
            return v
        if not is_measured(r):
            return None
        b = self.baseline_for(r)
        return median_ms(b) / median_ms(r) if b else None

    def kernel_series(self, records):
        """{(is cuBLAS, label): {shape: the fastest measured record at that shape}}, cuBLAS first:
        every kernel at its best parameters per shape."""
        measured = [r for r in records if is_measured(r)]
        dims = [d for d in self.varying(measured) if d != "params"]
        series = OrderedDict()
        for r in measured:
            series.setdefault((is_baseline(r), self.label(r, dims, str(r.get("kernel", "?")))), []).append(r)
        out = OrderedDict()
        for key, rs in sorted(series.items(), key=lambda kv: not kv[0][0]):
            best = OrderedDict()
            for r in sorted(rs, key=lambda r: self.axis.x(shape(r))):
                s = shape(r)
                if s not in best or gflops(r) > gflops(best[s]):
                    best[s] = r
            out[key] = best
        return out


def best_per_x(data, records):
    """For each size, the record with the highest throughput (the best parameters at that size)."""
    best = {}
    for r in records:
        x = data.x(r)
        if x not in best or gflops(r) > gflops(best[x]):
            best[x] = r
    return [best[x] for x in sorted(best)]


def speedup_rows(data, baseline):
    """Speed-up of every measured configuration over the baseline kernel at the same size:
    {label: [(x, speed-up, shape), ...]}.

    The baseline configuration compared with is the one with the same values of the parameters
    both kernels have (seed 004: the same block size); when there is none, its fastest one.
    Only kernels of the baseline's precision are compared: a BF16 kernel computes another product."""
    base = [r for r in data.measured if r.get("kernel") == baseline]
    if not base:
        known = ", ".join(ordered_unique(str(r.get("kernel")) for r in data.measured)) or "none"
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
