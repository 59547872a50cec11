"""Every plot of the report, drawn with matplotlib's Agg backend into 800 x 500 PNG files.

Conventions shared by all plots: throughput in TFLOPS; sizes on a log2 axis (or, for a suite of
unrelated shapes, one bar group per shape); legends outside the axes, so that they never cover a
point; colours from style.py.
"""

import io
import math
import os
import textwrap
from collections import OrderedDict

from .errors import ReportError
from .model import (MANY_SERIES, arithmetic_intensity, group_of, is_baseline, is_measured, ordered_groups,
                    ordered_unique, safe_name, shape, shape_label, shape_volume, status, tflops)
from .style import (DPI, FIG_H_IN, FIG_W_IN, LINK_COLORS, LINK_DASHES, UNIT, cublas_style, fmt,
                    fmt_bytes, fmt_percent, line_style, mode_order, phase_color, precision_color,
                    precision_line_style, with_unit)
from .transfers import end_to_end_tflops, kernel_tflops

MODE_COLORS = {"pageable": "#d62728", "pinned-c": "#ff7f0e", "pinned": "#1f77b4", "overlapped": "#2ca02c"}
ROOF_DASHES = {"measured": "-", "datasheet": "--", "theoretical": ":"}
SEGMENT_ORDER = ("host_alloc", "device_alloc", "copy_ab", "kernel", "copy_c", "sync", "window", "other",
                 "device_free", "host_free")
PCT_FLOOR = 1.0  # % of cuBLAS below which a point is named instead of drawn


def small_png(data):
    """The PNG with a 256-colour palette: a third of the bytes, no visible change for line plots
    (the HTML page embeds every image, and committed reports stay small). Pillow comes with
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
        import matplotlib.ticker as ticker
        import matplotlib.colors as colors
    except ImportError:
        raise ReportError("python3 has no matplotlib: run scripts/setup (it installs python3-matplotlib)") from None
    return plt, ticker, colors


def wrap(label, width=34):
    """Legend entries of long parameter lists on several lines instead of one that squeezes the plot."""
    return "\n".join(textwrap.wrap(str(label), width)) or str(label)


def size_text(s):
    """'N = 1024' for a square shape, else '4096x4096x1024'."""
    return f"N = {s[0]}" if s[0] == s[1] == s[2] else shape_label(s)


class Series:
    """One line (or one colour of bars): a label, {shape: value}, a matplotlib style."""

    def __init__(self, label, points, style, cublas=False):
        self.label, self.points, self.style, self.cublas = label, points, style, cublas


class Plotter:
    def __init__(self, outdir, data):
        self.plt, self.ticker, self.colors = import_matplotlib()
        self.outdir, self.data = outdir, data
        self.files = []

    # -- figure plumbing -----------------------------------------------------------------------

    def figure(self, nrows=1, ncols=1, **kw):
        fig, axes = self.plt.subplots(nrows, ncols, figsize=(FIG_W_IN, FIG_H_IN), dpi=DPI, squeeze=False, **kw)
        for ax in axes.flat:
            ax.grid(True, which="major", alpha=0.3)
        return fig, axes

    def legend(self, ax, handles=None, labels=None):
        """Outside the axes, on the right: a legend inside covers points."""
        if handles is None:
            handles, labels = ax.get_legend_handles_labels()
        if not handles:
            return
        n = len(handles)
        ax.legend(handles, labels, fontsize=6.5 if n > 18 else (7 if n > 12 else 8), loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False,
                  ncol=2 if n > 30 else 1)

    def save(self, fig, name):
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI)  # no bbox_inches="tight": the size stays 800 x 500
        self.plt.close(fig)
        with open(os.path.join(self.outdir, name), "wb") as f:
            f.write(small_png(buf.getvalue()))
        self.files.append(name)
        return name

    def title(self, ax, text, where=None):
        # Centred on the figure, not the axes: with long row names on the left or a legend on the
        # right, a title centred on the axes runs off the image.
        ax.figure.suptitle(f"{text}\n{where or self.data.where}", fontsize=10)

    # -- axes ----------------------------------------------------------------------------------

    def size_axis(self, ax, xs, label=None, formatter=None):
        ax.set_xscale("log", base=2)
        ax.set_xlabel(label or self.data.x_label())
        ticks = []
        for x in sorted(set(xs)):  # a tick per size, leaving out those too close to read (1000 and 1024)
            if not ticks or math.log2(x / ticks[-1]) >= 0.35:
                ticks.append(x)
            elif math.log2(x).is_integer() and not math.log2(ticks[-1]).is_integer():
                ticks[-1] = x  # of two close sizes, label the power of two
        if ticks and len(ticks) <= 14:
            ax.xaxis.set_major_locator(self.ticker.FixedLocator(ticks))
            ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(formatter or (lambda v, _: f"{v:.0f}")))
            ax.xaxis.set_minor_locator(self.ticker.NullLocator())
        if xs:
            ax.set_xlim(min(xs) / 2 ** 0.3, max(xs) * 2 ** 0.3)

    def value_axis(self, ax, values, label, horizontal=False, log_ok=True):
        """Linear from 0, or logarithmic when the values span more than a factor of 30."""
        axis = ax.xaxis if horizontal else ax.yaxis
        set_scale, set_lim, set_label = ((ax.set_xscale, ax.set_xlim, ax.set_xlabel) if horizontal
                                         else (ax.set_yscale, ax.set_ylim, ax.set_ylabel))
        values = [v for v in values if v is not None and v > 0]
        if log_ok and values and max(values) / min(values) > 30:
            set_scale("log")
            set_label(label + ", log scale")
            # Few decades: label 1, 2 and 5 of each, not only the powers of ten; always as plain numbers
            # (0.01, 100), which read faster than 10^-2.
            if max(values) / min(values) <= 1e3:
                axis.set_major_locator(self.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            axis.set_minor_formatter(self.ticker.NullFormatter())
            set_lim(min(values) / 1.5, max(values) * 1.5)
        else:
            # The top with a margin: a flat line at the maximum would otherwise lie on the frame.
            set_lim(0, max(values) * (1.15 if horizontal else 1.08) if values else 1)
            set_label(label)

    # -- series --------------------------------------------------------------------------------

    def styles(self, keys):
        """Styles for [(is cuBLAS, precision)]: one precision, a colour per kernel and black cuBLAS;
        several, the precisions' colours (kernels told apart by marker and dash)."""
        multi = len(set(p for _, p in keys)) > 1
        counts, out = {}, []
        for base, p in keys:
            if base:
                out.append(cublas_style(precision_color(p) if multi else "black"))
                continue
            slot = p if multi else None
            i = counts.get(slot, 0)
            counts[slot] = i + 1
            out.append(precision_line_style(p, i) if multi else line_style(i, precision_color(p)))
        return out

    def kernel_series(self, records):
        """[(key, {shape: best record}, style)] for every kernel in records, cuBLAS first."""
        series = self.data.kernel_series(records)
        keys = [(base, group_of(next(iter(pts.values())))) for (base, _), pts in series.items()]
        return [(key, pts, style) for (key, pts), style in zip(series.items(), self.styles(keys))]

    def pct_series(self, ks):
        """% of cuBLAS series of the kernels in kernel_series() output, without the points below
        PCT_FLOOR: one kernel at 0.02% (a one-block seed kernel) would otherwise stretch the axis
        over four decades and flatten the 80-110% where the interesting kernels are. Returns the
        series and the labels of the kernels left out somewhere."""
        series, hidden = [], []
        for (base, label), pts, style in ks:
            if base:
                continue
            points = {}
            for s, r in pts.items():
                ratio = self.data.ratio_to_cublas(r)
                if ratio and 100 * ratio >= PCT_FLOOR:
                    points[s] = 100 * ratio
                elif ratio:
                    hidden.append(label)
            if points:
                series.append(Series(label, points, style))
        return series, ordered_unique(hidden)

    def note_hidden(self, ax, hidden):
        if hidden:
            ax.text(0.01, 0.02, wrap(f"below {PCT_FLOOR:g}% of cuBLAS, not drawn (see the tables): " + ", ".join(hidden),
                                     90), transform=ax.transAxes, fontsize=7, color="dimgray", va="bottom",
                    bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1))

    def draw(self, ax, series, value_label, reference=None, reference_label=None, log_ok=True, annotate=None):
        """Lines against size, or horizontal bars per shape for a suite."""
        series = [s for s in series if s.points]
        values = [v for s in series for v in s.points.values()]
        if self.data.axis.bars:
            self.draw_bars(ax, series, value_label, reference, reference_label, annotate)
            return
        xs = []
        for s in series:
            pts = sorted((self.data.axis.x(sh), v) for sh, v in s.points.items())
            xs += [x for x, _ in pts]
            ax.plot([x for x, _ in pts], [v for _, v in pts], label=wrap(s.label + (" (cuBLAS)" if s.cublas else "")),
                    **s.style)
        if reference is not None:
            ax.axhline(reference, color="dimgray", linestyle=":", linewidth=1.5, label=reference_label, zorder=1)
            values.append(reference)
        self.size_axis(ax, xs)
        self.value_axis(ax, values, value_label, log_ok=log_ok)

    def draw_bars(self, ax, series, value_label, reference=None, reference_label=None, annotate=None):
        shapes = [s for s in self.data.axis.shapes if any(s in ser.points for ser in series)]
        n = max(len(series), 1)
        height = 0.8 / n
        values = []
        for j, ser in enumerate(series):
            ys, vs = [], []
            for i, s in enumerate(shapes):
                if s in ser.points:
                    ys.append(i + (j - (n - 1) / 2) * height)
                    vs.append(ser.points[s])
            values += vs
            color = ser.style.get("color", "black")
            if ser.cublas:
                bars = ax.barh(ys, vs, height=height * 0.92, color="white", edgecolor=color, hatch="///",
                               linewidth=1.2, label=wrap(ser.label + " (cuBLAS)"))
            else:
                bars = ax.barh(ys, vs, height=height * 0.92, color=color, label=wrap(ser.label))
            if annotate and len(shapes) * n <= 40:
                for b, v in zip(bars, vs):
                    ax.text(b.get_width(), b.get_y() + b.get_height() / 2, " " + annotate(v), va="center",
                            fontsize=6.5, color="#333")
        if reference is not None:
            ax.axvline(reference, color="dimgray", linestyle=":", linewidth=1.5, label=reference_label, zorder=1)
            values.append(reference)
        ax.set_yticks(range(len(shapes)))
        ax.set_yticklabels([shape_label(s) for s in shapes], fontsize=8 if len(shapes) <= 14 else 6.5)
        ax.set_ylim(len(shapes) - 0.5, -0.5)  # the first shape at the top, in the order of the files
        ax.grid(False)
        ax.grid(True, axis="x", alpha=0.3)
        self.value_axis(ax, values, value_label, horizontal=True, log_ok=False)

    # -- the plots -----------------------------------------------------------------------------

    def overview_small(self, records):
        """All kernels, each at its best parameters per size: TFLOPS and, where cuBLAS was measured,
        the share of cuBLAS in a second panel that shares the size axis."""
        ks = self.kernel_series(records)
        tf = [Series(label, {s: tflops(r) for s, r in pts.items()}, style, base) for (base, label), pts, style in ks]
        pct, hidden = self.pct_series(ks)
        bars = self.data.axis.bars
        if pct:
            fig, axes = (self.figure(1, 2, sharey=True) if bars else
                         self.figure(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]}))
            top, bottom = axes.flat[0], axes.flat[1]
        else:
            fig, axes = self.figure()
            top, bottom = axes[0][0], None
        self.draw(top, tf, f"{UNIT} (best parameters)", annotate=lambda v: fmt(v, "tflops"))
        what = "per shape; cuBLAS hatched" if bars else "per size; cuBLAS dashed"
        self.title(top, f"All kernels, best parameters {what}")
        if bottom is not None:
            self.draw(bottom, pct, "% of cuBLAS", reference=100, reference_label="cuBLAS (100%)",
                      annotate=lambda v: f"{v:.0f}%")
            self.note_hidden(bottom, hidden)
            if not bars:
                top.set_xlabel("")
                top.tick_params(labelbottom=True)
            else:
                bottom.tick_params(labelleft=False)
        handles, labels = top.get_legend_handles_labels()
        if bottom is not None:
            # The reference line of the second panel; the kernels are in the first panel's entries.
            h2, l2 = bottom.get_legend_handles_labels()
            extra = [(h, text) for h, text in zip(h2, l2) if text not in labels]
            handles += [h for h, _ in extra]
            labels += [text for _, text in extra]
        self.legend(bottom if (bottom is not None and bars) else top, handles, labels)
        return self.save(fig, "overview.png")

    def against_size(self, records, name, title):
        """One precision's kernels (best parameters per size) and cuBLAS."""
        fig, axes = self.figure()
        ax = axes[0][0]
        ks = self.kernel_series(records)
        self.draw(ax, [Series(label, {s: tflops(r) for s, r in pts.items()}, style, base)
                       for (base, label), pts, style in ks], f"{UNIT} (best parameters)",
                  annotate=lambda v: fmt(v, "tflops"))
        self.title(ax, title)
        self.legend(ax)
        return self.save(fig, name)

    def pct_of_cublas(self, records, name, title):
        """Each kernel's share of cuBLAS (cuBLAS time / kernel time) against size: the view that
        says where a kernel stands, whatever the absolute speed of the size."""
        ks = self.kernel_series(records)
        series, hidden = self.pct_series(ks)
        if not series:
            return None
        fig, axes = self.figure()
        ax = axes[0][0]
        if self.data.axis.bars and len(series) > 4:
            self.heatmap(ax, series)
        else:
            self.draw(ax, series, "% of cuBLAS (cuBLAS time / kernel time)", reference=100,
                      reference_label="cuBLAS (100%)", annotate=lambda v: f"{v:.0f}%")
            self.legend(ax)
        self.note_hidden(ax, hidden)
        self.title(ax, title)
        return self.save(fig, name)

    def heatmap(self, ax, series):
        """Kernels x shapes, each cell the share of cuBLAS: a suite of many kernels in one view."""
        shapes = [s for s in self.data.axis.shapes if any(s in ser.points for ser in series)]
        grid = [[ser.points.get(s, float("nan")) for s in shapes] for ser in series]
        vals = [v for row in grid for v in row if v == v]
        lo, hi = min(vals + [50.0]), max(vals + [110.0])
        norm = self.colors.TwoSlopeNorm(vmin=min(lo, 99.0), vcenter=100.0, vmax=max(hi, 101.0))
        ax.imshow(grid, cmap="RdYlGn", norm=norm, aspect="auto")
        ax.grid(False)
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:.0f}%" if v == v else "-", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels([shape_label(s) for s in shapes], rotation=30, ha="right", fontsize=7)
        ax.set_yticks(range(len(series)))
        ax.set_yticklabels([s.label for s in series], fontsize=7)
        ax.set_xlabel("shape M x N x K; cells: % of cuBLAS (cuBLAS time / kernel time)")

    def kernel_plot(self, kernel, records):
        """The seeds' chart: one kernel's throughput against size, one line per parameter
        combination; cuBLAS of the same precision dashed; sizes without a measurement marked."""
        fig, axes = self.figure()
        ax = axes[0][0]
        meas = [r for r in records if is_measured(r)]
        dims = self.data.varying(meas)
        combos = OrderedDict()
        for r in meas:
            combos.setdefault(self.data.label(r, dims), OrderedDict())[shape(r)] = r
        refs = OrderedDict()  # the cuBLAS measurements at this kernel's sizes, per cuBLAS kernel
        for r in meas:
            b = self.data.baseline_for(r)
            if b is not None:
                refs.setdefault(str(b.get("kernel", "cuBLAS")), OrderedDict())[shape(b)] = b
        first = precision_color(group_of(records[0]))
        series = [Series(label, {s: tflops(r) for s, r in pts.items()}, line_style(i, first))
                  for i, (label, pts) in enumerate(combos.items())]
        series += [Series(f"{name}, for reference", {s: tflops(b) for s, b in bs.items()}, cublas_style(), True)
                   for name, bs in refs.items()]
        self.draw(ax, series, UNIT, annotate=lambda v: fmt(v, "tflops"))
        if not self.data.axis.bars:
            missing = sorted(set(self.data.x(r) for r in records if shape_volume(shape(r)))
                             - set(self.data.x(r) for r in meas))
            texts = []
            for x in missing:  # skipped or failed there: mark the size rather than let the line just end
                ax.axvline(x, color="lightgray", linestyle=":", linewidth=1, zorder=0)
                if texts and math.log2(x / texts[-1]) < 0.35:
                    continue  # one text for close sizes (1000 and 1024), not two on top of each other
                texts.append(x)
                ax.text(x, 0.5, "no measurement: skipped or failed (see the tables)",
                        transform=ax.get_xaxis_transform(), rotation=90, ha="center", va="center", fontsize=8,
                        color="dimgray", bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
            if missing:
                xs = [self.data.x(r) for r in records if shape_volume(shape(r))]
                self.size_axis(ax, xs)
        self.title(ax, f"{kernel}: {UNIT} against size, one line per parameter combination")
        self.legend(ax)
        return self.save(fig, f"gflops_{safe_name(kernel)}.png")

    def at_largest_size(self):
        """One row per kernel at the largest shape measured: its best throughput there and its share
        of cuBLAS in the same precision; rows grouped by precision, cuBLAS's value a dashed line
        across its group. A kernel with no measurement at that shape keeps its row, with the reason."""
        measured = self.data.measured
        target = max((shape(r) for r in measured), key=lambda s: (shape_volume(s), s))
        dims = [d for d in self.data.varying(measured) if d != "params"]
        rows = []  # (group, label, is cuBLAS, best record at target or None, note)
        for g in ordered_groups(measured):
            entries = OrderedDict()
            for r in self.data.records:
                if group_of(r) == g:
                    entries.setdefault((not is_baseline(r), self.data.label(r, dims, str(r.get("kernel", "?")))),
                                       []).append(r)
            for (kernel_row, label), rs in sorted(entries.items(), key=lambda kv: kv[0][0]):  # cuBLAS first
                if not any(is_measured(r) for r in rs):
                    continue  # never measured at any size: the tables list it
                hit = [r for r in rs if is_measured(r) and shape(r) == target]
                best = max(hit, key=tflops) if hit else None
                note = ""
                if best is None:
                    why = [r for r in rs if shape(r) == target]
                    note = f"{status(why[0])} at this size (the reason is in the tables)" if why else "not measured at this size"
                rows.append((g, label + (" (cuBLAS)" if not kernel_row else ""), not kernel_row, best, note))
        values = [tflops(b) for _, _, _, b, _ in rows if b is not None]
        fig, axes = self.figure()
        ax = axes[0][0]
        ax.grid(False)
        ax.grid(True, axis="x", which="major", alpha=0.3)
        n = len(rows)
        # The largest value at 72% of the width: the right-hand column of figures stays clear of the points.
        lo = min(values) / 2
        hi = lo * (max(values) / lo) ** (1 / 0.72)
        column = ax.get_yaxis_transform()  # x in axes fractions, y in data: the column of figures
        labelled = set()
        for i, (g, label, base, best, note) in enumerate(rows):
            y = n - 1 - i
            if best is None:
                ax.text(0.01, y, note, transform=column, va="center", fontsize=7, color="dimgray")
                continue
            v = tflops(best)
            color = precision_color(g)
            if base:
                span = [n - 1 - j for j, row in enumerate(rows) if row[0] == g]
                ax.vlines(v, min(span) - 0.4, max(span) + 0.4, colors=color, linestyles="--", linewidth=1)
                ax.plot([v], [y], linestyle="none", **{k: x for k, x in cublas_style(color).items()
                                                       if k not in ("linestyle", "linewidth")})
                labelled.add("cuBLAS")
                ax.text(0.995, y, f"cuBLAS {with_unit(v, 'tflops')}", transform=column, ha="right", va="center",
                        fontsize=7)
            else:
                ax.hlines(y, lo, v, colors=color, linewidth=1, alpha=0.35)
                ax.plot([v], [y], marker="o", color=color, linestyle="none",
                        label=f"{g} kernels" if g not in labelled else None)
                labelled.add(g)
                ratio = self.data.ratio_to_cublas(best)
                ax.text(0.995, y, f"{fmt_percent(ratio)} of cuBLAS" if ratio else with_unit(v, "tflops"),
                        transform=column, ha="right", va="center", fontsize=7)
        for j in range(1, n):  # a rule between precisions
            if rows[j][0] != rows[j - 1][0]:
                ax.axhline(n - j - 0.5, color="lightgray", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        ax.xaxis.set_major_locator(self.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(self.ticker.NullFormatter())
        ax.set_ylim(-0.8, n - 0.2)  # room for the first and last rows' text inside the frame
        ax.set_yticks(range(n))
        ax.set_yticklabels([row[1] for row in reversed(rows)], fontsize=6.5 if n > 24 else (7 if n > 16 else 8))
        for tick, row in zip(ax.get_yticklabels(), reversed(rows)):
            tick.set_color(precision_color(row[0]) if not row[2] else "black")
        where = f"M = N = K = {target[0]}" if target[0] == target[1] == target[2] else f"M x N x K = {shape_label(target)}"
        ax.set_xlabel(f"{UNIT} at {where} (best parameters), log scale")
        self.title(ax, f"Every kernel at {where}, and its share of cuBLAS in the same precision")
        # Below the axes, in one row: beside them it would take a third of the width from 35 rows of
        # names, and the tick labels already carry the precisions' colours.
        handles, labels = ax.get_legend_handles_labels()
        if "cuBLAS" in labelled:
            # In black: the first precision's colour would make the entry read as that precision's alone.
            handles.insert(0, self.plt.Line2D([], [], **cublas_style("black")))
            labels.insert(0, "cuBLAS (dashed: its value)")
        # Aligned to the axes' right edge, which is the image's: centred under axes pushed right by long
        # row names, it would run off the image.
        ax.legend(handles, labels, loc="upper right", bbox_to_anchor=(1.0, -0.1), ncol=len(handles), fontsize=7.5,
                  frameon=False, handletextpad=0.3, columnspacing=1.2)
        return self.save(fig, "overview.png")

    def speedup(self, baseline, rows):
        """rows: list of (label, {shape: speed-up})."""
        fig, axes = self.figure()
        ax = axes[0][0]
        bases = {str(r.get("kernel")) for r in self.data.measured if is_baseline(r)}
        series, nk = [], 0
        for label, pts in rows:
            if label.split(" ")[0] in bases:  # cuBLAS dashed, as in every plot
                series.append(Series(label, pts, cublas_style(), False))
            else:
                series.append(Series(label, pts, line_style(nk)))
                nk += 1
        self.draw(ax, series, f"speed-up over {baseline} (its time / kernel's time)", reference=1.0,
                  reference_label=f"{baseline} itself (= 1)", annotate=lambda v: fmt(v, "ratio"))
        self.title(ax, f"Speed-up over {baseline}")
        self.legend(ax)
        return self.save(fig, f"speedup_{safe_name(baseline)}.png")

    def roofline(self, roof_list, dram_gbs, dram_label):
        """Every kernel (best per size) at its arithmetic intensity under the roofs of the precisions
        present; points and roofs in the precisions' colours."""
        fig, axes = self.figure()
        ax = axes[0][0]
        measured = [r for r in self.data.measured if arithmetic_intensity(r)]
        groups = ordered_groups(measured)
        series = self.data.kernel_series(measured)
        # Legend entries by precision (fp32, tf32, bf16, fp16), cuBLAS first within each.
        series = OrderedDict(sorted(series.items(), key=lambda kv: (groups.index(group_of(next(iter(kv[1].values())))),
                                                                    not kv[0][0])))
        by_group = len(series) > MANY_SERIES  # too many kernels for a marker each: one legend entry per precision
        ais, ys, labelled = [], [], set()
        counts = {}
        for (base, label), pts in series.items():
            recs = list(pts.values())
            g = group_of(recs[0])
            xs = [arithmetic_intensity(r) for r in recs]
            vs = [tflops(r) for r in recs]
            ais += xs
            ys += vs
            color = precision_color(g)
            if base:
                name = f"cuBLAS {g}"
                # Hollow, not white-filled: a kernel as fast as cuBLAS at that size sits inside the square.
                ax.scatter(xs, vs, marker="s", s=42, facecolors="none", edgecolors=color, linewidths=1.5,
                           label=name, zorder=4)
                continue
            i = counts.get(g, 0)
            counts[g] = i + 1
            if by_group:
                n = sum(1 for (b, _), p in series.items() if not b and group_of(next(iter(p.values()))) == g)
                ax.scatter(xs, vs, marker="o", s=20, color=color, alpha=0.6, zorder=3,
                           label=f"{g} kernels ({n})" if g not in labelled else None)
                labelled.add(g)
            else:
                st = precision_line_style(g, i)
                ax.scatter(xs, vs, marker=st["marker"], s=30, color=color, label=wrap(label, 30), zorder=3)
        lo, hi = min(ais) / 2, max(ais) * 2
        top = max(r.tflops for r in roof_list) if roof_list else max(ys)
        ridge_max = top * 1e3 / dram_gbs
        lo, hi = min(lo, ridge_max / 8), max(hi, ridge_max * 2)
        grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        ax.plot(grid, [min(a * dram_gbs * 1e-3, top) for a in grid], color="black", linewidth=1.2,
                label=f"memory: {dram_label}")
        for roof in roof_list:
            ridge = roof.tflops * 1e3 / dram_gbs
            ax.plot([ridge, hi], [roof.tflops, roof.tflops], color=precision_color(roof.precision), linewidth=1.6,
                    linestyle=ROOF_DASHES.get(roof.kind, "-"), label=wrap(roof.label, 36))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(min(ys) / 2, top * 2)
        if top * 4 / min(ys) <= 1e3:  # few decades: 1, 2 and 5 of each
            ax.yaxis.set_major_locator(self.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(self.ticker.NullFormatter())
        ax.set_xlabel("arithmetic intensity, FLOP/byte (A, B read and C written once), log2 scale")
        ax.set_ylabel(f"{UNIT}, log scale")
        self.title(ax, "Roofline: every kernel at its best parameters per size")
        self.legend(ax)
        return self.save(fig, "roofline.png")

    def bench_cases(self, index, title, cases, where):
        """`gemmlab bench` cases, one row each in the order of the file: TFLOPS of gemmlab (solid, in
        the precision's colour) and of its anchor (hatched), and gemmlab's share of the anchor."""
        fig, axes = self.figure(1, 2, sharey=True)
        left, right = axes[0][0], axes[0][1]
        ys = list(range(len(cases)))
        h = 0.4
        colors = [precision_color(c.precision) for c in cases]
        annotate = len(cases) <= 24
        for ax in (left, right):
            ax.grid(False)
            ax.grid(True, axis="x", alpha=0.3)
        ours = left.barh([y - h / 2 for y in ys], [c.tflops or 0 for c in cases], height=h * 0.92, color=colors)
        theirs = left.barh([y + h / 2 for y in ys], [c.anchor_tflops or 0 for c in cases], height=h * 0.92,
                           color="white", edgecolor=colors, hatch="///", linewidth=1.0)
        shares = right.barh(ys, [100 * c.ratio if c.ratio else 0 for c in cases], height=0.7, color=colors)
        right.axvline(100, color="black", linestyle=":", linewidth=1.2, zorder=3)  # over the bars: where each ends against it
        if annotate:
            for bars, values, kind in ((ours, [c.tflops for c in cases], "tflops"),
                                       (theirs, [c.anchor_tflops for c in cases], "tflops"),
                                       (shares, [c.ratio for c in cases], "percent")):
                for b, v in zip(bars, values):
                    if v:
                        text = f"{100 * v:.0f}%" if kind == "percent" else fmt(v, kind)
                        # On white: shares near 100% sit on the dotted line, which would cross them out.
                        box = dict(facecolor="white", edgecolor="none", pad=0.2) if kind == "percent" else None
                        b.axes.text(b.get_width(), b.get_y() + b.get_height() / 2, " " + text, va="center",
                                    fontsize=6 if b.axes is left else 6.5, color="#333", bbox=box, zorder=4)
        self.value_axis(left, [c.tflops for c in cases] + [c.anchor_tflops for c in cases], UNIT,
                        horizontal=True, log_ok=False)
        self.value_axis(right, [100 * c.ratio for c in cases if c.ratio] + [100], "% of the anchor",
                        horizontal=True, log_ok=False)
        left.set_yticks(ys)
        left.set_yticklabels([wrap(c.name, 26) for c in cases], fontsize=7 if len(cases) <= 16 else 6.5)
        left.set_ylim(len(cases) - 0.5, -0.5)  # the first case at the top, as in the file
        right.tick_params(labelleft=False)
        self.title(left, title, where)  # one file's device, not every input's
        from matplotlib.patches import Patch  # matplotlib is loaded by now (import_matplotlib)
        handles = [Patch(color=precision_color(p), label=f"gemmlab {p}")
                   for p in ordered_unique(c.precision for c in cases)]
        anchors = " / ".join(ordered_unique(c.anchor.split(" ")[0] for c in cases))
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="///", label=wrap(f"anchor: {anchors}", 26)))
        handles.append(self.plt.Line2D([], [], color="black", linestyle=":", linewidth=1.2, label="anchor = 100%"))
        self.legend(right, handles, [x.get_label() for x in handles])
        return self.save(fig, f"bench_{index}.png")

    def transfer_breakdown(self, index, title, bars):
        """Stacked bars, one per shape and host-memory mode: the median time of every phase. When
        the totals span more than 20x (a sweep of sizes), each bar shows shares of its total
        instead, and the totals are in the bar names."""
        fig, axes = self.figure()
        ax = axes[0][0]
        usable = [b for b in bars if not b.skipped]
        totals = [b.total for b in usable if b.total]
        relative = bool(totals) and max(totals) / min(totals) > 20
        keys = ordered_unique(k for b in usable for k in b.segments)
        # The overlapped mode's window and the launch gaps belong where they happen: between the
        # allocations and the frees.
        if all(k in SEGMENT_ORDER for k in keys):  # the generic layout keeps its "phases" order
            keys.sort(key=SEGMENT_ORDER.index)
        xs, groups, x = [], OrderedDict(), 0.0
        for i, b in enumerate(bars):
            if i and b.shape != bars[i - 1].shape:
                x += 0.7  # a gap between shapes
            xs.append(x)
            groups.setdefault(b.shape, []).append(x)
            x += 1
        bottoms = [0.0] * len(bars)
        for j, k in enumerate(keys):
            label = next(b.segments[k][0] for b in usable if k in b.segments)
            heights = []
            for b in bars:
                v = b.segments[k][1] if k in b.segments else 0.0
                heights.append(100 * v / b.total if relative and b.total else v)
            ax.bar(xs, heights, bottom=bottoms, width=0.8, color=phase_color(k, j), label=label,
                   hatch="//" if k == "window" else None, edgecolor="white", linewidth=0.4)
            bottoms = [a + h for a, h in zip(bottoms, heights)]
        for xi, b in zip(xs, bars):
            if b.skipped:
                ax.text(xi, 0.02, "skipped", rotation=90, ha="center", va="bottom", fontsize=7, color="dimgray",
                        transform=ax.get_xaxis_transform())
        ax.set_xticks(xs)
        many = len(bars) > 6
        ax.set_xticklabels([f"{b.mode}  {fmt(b.total, 'ms')} ms" if b.total else b.mode for b in bars],
                           rotation=90 if many else 0, fontsize=7 if many else 8)
        for s, gx in groups.items():
            ax.text(sum(gx) / len(gx), 1.01, size_text(s), transform=ax.get_xaxis_transform(), ha="center",
                    va="bottom", fontsize=7.5)
        ax.grid(False)
        ax.grid(True, axis="y", alpha=0.3)
        if relative:
            ax.set_ylim(0, 100)
            ax.set_ylabel("share of the run's total time, %")
        else:
            ax.set_ylim(0, max(bottoms + [1e-9]) * 1.08)
            ax.set_ylabel("median time per phase, ms (stacked)")
        self.title(ax, title)
        handles, labels = ax.get_legend_handles_labels()
        self.legend(ax, handles[::-1], labels[::-1])  # top of the stack first, as in the bars
        return self.save(fig, f"transfer_{index}.png")

    def transfer_end_to_end(self, records):
        """End-to-end throughput (2·M·N·K / total time with allocations and copies) against size,
        one line per kernel and host-memory mode; the kernel alone dotted."""
        fig, axes = self.figure()
        ax = axes[0][0]
        kernels = ordered_unique(f"{r.get('kernel', '?')} {r.get('params', '')}".strip() for r in records)
        modes = sorted(set(str(r.get("host_mode")) for r in records), key=mode_order)
        xs, values = [], []
        markers = "o^Dvs"
        for ki, kern in enumerate(kernels):
            mine = [r for r in records if f"{r.get('kernel', '?')} {r.get('params', '')}".strip() == kern]
            for mode in modes:
                pts = sorted((shape(r)[0], end_to_end_tflops(r)) for r in mine
                             if str(r.get("host_mode")) == mode and end_to_end_tflops(r))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], color=MODE_COLORS.get(mode, "gray"),
                            marker=markers[ki % len(markers)], linestyle=["-", "-."][ki % 2], markersize=5,
                            label=wrap(f"{kern}, {mode}" if len(kernels) > 1 else mode))
                    xs += [p[0] for p in pts]
                    values += [p[1] for p in pts]
            alone = {}
            for r in mine:
                if r.get("host_mode") != "overlapped" and kernel_tflops(r):
                    alone[shape(r)[0]] = max(alone.get(shape(r)[0], 0), kernel_tflops(r))
            if alone:
                pts = sorted(alone.items())
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color="black", linestyle=":",
                        marker=markers[ki % len(markers)], markerfacecolor="white", markersize=5,
                        label=wrap(f"{kern}: the kernel alone" if len(kernels) > 1 else "the kernel alone"))
                values += [p[1] for p in pts]
        self.size_axis(ax, xs, "matrix size N (M = N = K), log2 scale")
        self.value_axis(ax, values, f"{UNIT} end to end (2·M·N·K / total time)")
        self.title(ax, "End to end: allocations, copies, kernel, frees, per host-memory mode")
        self.legend(ax)
        return self.save(fig, "transfer_end_to_end.png")

    def link(self, points, peaks):
        """Copy bandwidth against copy size, per direction (colour) and host memory (dash)."""
        fig, axes = self.figure()
        ax = axes[0][0]
        lines = OrderedDict()
        for p in points:
            if p.usable:
                lines.setdefault((p.direction, p.memory), []).append((p.bytes, p.gbs))
        xs, values = [], []
        for (direction, memory), pts in sorted(lines.items(), key=lambda kv: (kv[0][0] != "H2D", kv[0][1] != "pinned")):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=LINK_COLORS.get(direction, "gray"),
                    linestyle=LINK_DASHES.get(memory, ":"), marker="o" if memory == "pinned" else "s", markersize=4,
                    label=f"{direction}, {memory} host memory")
            xs += [p[0] for p in pts]
            values += [p[1] for p in pts]
        for direction, gbs in peaks:
            ax.axhline(gbs, color=LINK_COLORS.get(direction, "gray"), linewidth=0.8, alpha=0.6,
                       label=f"{direction} peak (best pinned median): {with_unit(gbs, 'gbs')}")
            values.append(gbs)
        self.size_axis(ax, xs, "bytes per copy, log2 scale", formatter=lambda v, _: fmt_bytes(v))
        ax.tick_params(axis="x", labelsize=7)
        self.value_axis(ax, values, "GB/s (10⁹ bytes / s), median copy", log_ok=False)
        self.title(ax, "Host-device link: bandwidth against copy size")
        self.legend(ax)
        return self.save(fig, "link.png")
