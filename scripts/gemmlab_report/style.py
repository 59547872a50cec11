"""What every plot and table of the report shares: colours, the unit, number formats, table cells.

Colours are fixed per precision (and per transfer phase, link direction) so that a reader who has
seen one gemmlab report can read the next one without the legend. cuBLAS has one look everywhere:
a dashed line with hollow squares.
"""

import math

# Every plot has this size, so that tests and page layouts can rely on it: 800 x 500 pixels.
FIG_W_IN, FIG_H_IN, DPI = 8.0, 5.0, 100

PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8")
# The order of the sweep reports before this module existed (fp32 blue, tf32 orange, bf16 green,
# fp16 red), now fixed instead of following which precisions a file happens to hold.
PRECISION_COLORS = {"fp32": "#1f77b4", "tf32": "#ff7f0e", "bf16": "#2ca02c", "fp16": "#d62728", "fp8": "#9467bd"}
OTHER_COLOR = "#7f7f7f"
PRECISION_TITLES = {"fp32": "FP32 (CUDA cores)", "tf32": "TF32 (tensor cores)", "bf16": "BF16 (tensor cores)",
                    "fp16": "FP16 (tensor cores)", "fp8": "FP8 (tensor cores)"}

# Kernels of one precision in one plot are told apart by colour and, past the ten colours, by
# marker and dash pattern.
KERNEL_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
LINE_MARKERS = "o^Dvp"
LINE_DASHES = ("-", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
CUBLAS_MARKER = "s"

UNIT = "TFLOPS"
UNIT_NOTE = "TFLOPS = 2·M·N·K / median time"

# The phases of a transfer run (src/transfer/phases.cpp: JSON key, the label gemmlab prints), in
# the order they happen; the colours group allocation (browns), copies (blues), the kernel
# (orange) and freeing (pinks).
TRANSFER_PHASES = (("host_alloc", "Host alloc"), ("device_alloc", "Device alloc"), ("copy_ab", "Memcpy AB"),
                   ("kernel", "Kernel"), ("copy_c", "Memcpy C"), ("sync", "Sync"),
                   ("device_free", "Device free"), ("host_free", "Host free"))
PHASE_COLORS = {"host_alloc": "#8c564b", "device_alloc": "#c49c94", "copy_ab": "#1f77b4", "kernel": "#ff7f0e",
                "copy_c": "#17becf", "sync": "#7f7f7f", "device_free": "#e377c2", "host_free": "#f7b6d2",
                "window": "#9467bd", "other": "#dddddd",
                # the names of the documented phase_<name>_median_ms records
                "alloc": "#8c564b", "h2d": "#1f77b4", "d2h": "#17becf", "free": "#e377c2"}
HOST_MODES = ("pageable", "pinned-c", "pinned", "overlapped")
LINK_COLORS = {"H2D": "#1f77b4", "D2H": "#d62728"}
LINK_DASHES = {"pinned": "-", "pageable": "--"}


def precision_color(precision):
    return PRECISION_COLORS.get(str(precision), OTHER_COLOR)


def precision_title(precision):
    return PRECISION_TITLES.get(str(precision), str(precision))


def line_style(i, first=None):
    """The i-th kernel line of a one-precision plot: distinct colour, then marker and dash, for up to 50
    lines. first: the colour of the first line (the precision's, so that a plot of one BF16 kernel
    is green as in every other plot)."""
    palette = KERNEL_COLORS if first is None else (first,) + tuple(c for c in KERNEL_COLORS if c != first)
    round_ = (i // len(palette)) % len(LINE_MARKERS)
    return dict(color=palette[i % len(palette)], marker=LINE_MARKERS[round_],
                linestyle=LINE_DASHES[round_], markersize=5, linewidth=1.5)


def precision_line_style(precision, i):
    """The i-th kernel of a precision in a plot of several precisions: the precision's colour,
    told apart from its siblings by marker and dash."""
    return dict(color=precision_color(precision), marker=LINE_MARKERS[i % len(LINE_MARKERS)],
                linestyle=LINE_DASHES[(i // len(LINE_MARKERS)) % len(LINE_DASHES)], markersize=5, linewidth=1.5)


def cublas_style(color="black"):
    """cuBLAS in every plot: dashed, hollow squares; black where one precision is shown, the
    precision's colour where several are."""
    return dict(color=color, linestyle="--", linewidth=1.8, marker=CUBLAS_MARKER, markersize=6,
                markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.5)


def phase_color(name, i=0):
    return PHASE_COLORS.get(name, KERNEL_COLORS[i % len(KERNEL_COLORS)])


def mode_order(mode):
    """Host-memory modes in the order of docs/transfers.md; unknown labels after them, by name."""
    return (HOST_MODES.index(mode), "") if mode in HOST_MODES else (len(HOST_MODES), str(mode))


# ---------------------------------------------------------------------------------------------
# Numbers as text: the one place the report turns values into table cells and plot labels.
# ---------------------------------------------------------------------------------------------

def number(v):
    """v as a float when it is a finite number (not a bool, a string or NaN), else None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def fmt_ms(v):
    v = number(v)
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.1f}"
    # "#": trailing zeros kept (0.00570, not 0.0057), so that a column's figures all have three.
    return f"{v:.3f}" if v >= 1 else (f"{v:.4f}" if v >= 0.01 else f"{v:#.3g}")


def fmt_tflops(v):
    v = number(v)
    if v is None:
        return "-"
    if round(v, 1) >= 100:  # 99.97 is "100", not "100.0"
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if v >= 0.995 else f"{v:#.2g}"  # 0.40 beside 0.42, not 0.4


def fmt_percent(ratio):
    ratio = number(ratio)
    if not ratio:
        return "-"
    return f"{100 * ratio:.1f}%" if ratio >= 0.01 else f"{100 * ratio:.2g}%"


def fmt_gain(v):
    """A signed relative change: +61.0% (less time), -250.0% (more)."""
    v = number(v)
    return "-" if v is None else f"{100 * v:+.1f}%"


def fmt_ratio(v):
    """A speed-up: 2.00x."""
    v = number(v)
    return "-" if v is None else f"{v:.2f}x"


def fmt_gbs(v):
    v = number(v)
    if v is None or v <= 0:
        return "-"
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def fmt_bytes(v):
    """64 KiB, 256 MiB, 1 GiB: the sizes `gemmlab link` prints."""
    v = number(v)
    if v is None:
        return "-"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= size:
            q = v / size
            return f"{q:.0f} {unit}" if q == int(q) else f"{q:.1f} {unit}"
    return f"{v:.0f} B"


def fmt_count(v):
    v = number(v)
    return "-" if v is None else f"{v:.0f}"


FORMATS = {"ms": fmt_ms, "tflops": fmt_tflops, "percent": fmt_percent, "gain": fmt_gain, "ratio": fmt_ratio,
           "gbs": fmt_gbs, "bytes": fmt_bytes, "count": fmt_count}


def fmt(value, kind):
    """A value as the report writes it: kind is one of FORMATS (ms, tflops, percent, gain, ratio, gbs, bytes, count)."""
    return FORMATS[kind](value)


def with_unit(value, kind):
    """For labels in plots: '52.5 TFLOPS', '0.120 ms', '55.2 GB/s'."""
    units = {"ms": " ms", "tflops": " TFLOPS", "gbs": " GB/s"}
    return fmt(value, kind) + units.get(kind, "")


def check_cell(r):
    """The verification column: ok (relative error), FAIL (...), skipped: reason, error: message."""
    s = r.get("status") or ("ok" if number(r.get("time_median_ms")) else "unknown")
    if s == "skipped":
        return f"skipped: {r.get('reason', '')}"
    if s == "error":
        return f"error: {r.get('reason', '')}"
    if s == "verification-failed":
        bits = []
        if number(r.get("kernel_rel_error")) is not None:
            bits.append(f"rel error {float(r['kernel_rel_error']):.1e}")
        if r.get("kernel_nonfinite"):
            bits.append(f"{r['kernel_nonfinite']} non-finite")
        return "FAIL" + (f" ({', '.join(bits)})" if bits else "")
    if s == "ok":
        if r.get("kernel_verified") is False:
            return "unchecked"
        err = number(r.get("kernel_rel_error"))
        return f"ok ({err:.1e})" if err is not None else "ok"
    return str(s)


def is_numeric_cell(text):
    """Cells that hold one number (with its %, x or unit) are right-aligned and never wrapped."""
    t = str(text).strip()
    if t in ("-", ""):
        return True
    t = t.lstrip("+").rstrip("%x").replace(" GB/s", "").replace(" KiB", "").replace(" MiB", "").replace(" GiB", "").replace(" B", "")
    try:
        float(t)
        return True
    except ValueError:
        return False
