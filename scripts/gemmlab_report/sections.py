"""The report's sections, in the order a performance engineer reads them: where the numbers come
from, every kernel at a glance, then one section per precision (share of cuBLAS first), speed-ups,
the roofline, transfer and link studies, failures, and every record per size (collapsed).
"""

import datetime
import os
from collections import OrderedDict

from .bench import bench_groups, summary_rows
from .loading import record_kind
from .model import (MANY_SERIES, Data, geomean, group_of, is_baseline, is_measured, median_ms, ordered_groups,
                    ordered_unique, safe_name, shape, shape_label, shape_volume, speedup_rows, status, tflops)
from .page import Doc
from .peaks import load_peaks, roofs
from .plotting import Plotter
from .style import UNIT, UNIT_NOTE, check_cell, fmt, number, precision_title, TRANSFER_PHASES
from .transfers import (end_to_end_tflops, gain_vs_pageable, has_phase_fields, kernel_tflops, link_peak,
                        link_points, phase_bars, transfer_bars)


def size_header(data, s):
    """A column of a table per size: N for square sizes, the shape in a suite."""
    return str(s[0]) if data.axis.kind == "square" else shape_label(s)


def shapes_in_order(data, shapes):
    """Square and one-dimension sweeps by size; a suite in the order of its files."""
    shapes = ordered_unique(shapes)
    if data.axis.bars:
        return sorted(shapes, key=lambda s: data.axis.index.get(s, len(data.axis.shapes)))
    return sorted(shapes, key=lambda s: (shape_volume(s), s))


def build_report(args, sources, outdir):
    data = Data(sources)
    plot = Plotter(outdir, data)
    doc = Doc()
    title = args.title or f"gemmlab report: {data.where}"
    doc.h(1, title, toc=False)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    counts = OrderedDict()
    for r in data.all_records:
        counts[status(r)] = counts.get(status(r), 0) + 1
    doc.p(f"Generated {now} by gemmlab report from {len(sources)} results file(s): {len(data.all_records)} records ("
          + ", ".join(f"{v} {k}" for k, v in counts.items()) + ").")
    if data.records:
        doc.p(f"Times are the median of the timed runs (CUDA events); {UNIT_NOTE}; % of cuBLAS = cuBLAS time / "
              "kernel time in the same precision and output type (above 100%: faster than cuBLAS); every "
              "measured result was checked against a float64 reference.")
    doc.contents()
    inputs_section(doc, sources)
    gemm_sections(doc, plot, data, args)
    bench_section(doc, plot, data)
    transfer_section(doc, plot, data)
    link_section(doc, plot, data)
    failures_and_tables(doc, data)
    other_section(doc, data)
    return doc, title, plot.files


def inputs_section(doc, sources):
    doc.h(2, "Inputs")
    rows = []
    for s in sources:
        c = s.context or {}
        date = str(c.get("date", "-"))[:16].replace("T", " ")
        rows.append([s.name, s.what(), s.device, date if s.context else "- (CSV: no context)",
                     # 12 hex digits, then "+dirty" for a build with uncommitted changes
                     str(c.get("gemmlab_commit", "-"))[:18], c.get("cuda_runtime", "-"), c.get("driver", "-"),
                     c.get("cublas", "-")])
    doc.table(["file", "holds", "device", "date", "gemmlab commit", "CUDA runtime", "driver", "cuBLAS"], rows)
    for s in sources:
        cmd = f"command `{s.command}`" if s.command else "command not recorded"
        doc.p(f"`{s.name}` ({s.path}): {cmd}. Timing: {s.timing()}.")


# ---------------------------------------------------------------------------------------------
# GEMM results
# ---------------------------------------------------------------------------------------------

def gemm_sections(doc, plot, data, args):
    if not data.records:
        return
    many = len(data.kernel_series(data.measured)) > MANY_SERIES
    suite = data.axis.bars
    if data.measured:
        if many:
            doc.h(2, "All kernels at the largest size")
            doc.p("Too many kernels for one plot against size: every kernel at the largest size measured (its "
                  "fastest parameters there), with its share of cuBLAS in the same precision. The sections per "
                  "precision below show each kernel's share of cuBLAS and its throughput against size.")
            doc.img(plot.at_largest_size(), "every kernel at the largest size, with its percentage of cuBLAS")
        else:
            doc.h(2, "All kernels per shape" if suite else "All kernels against size")
            doc.p(("Each kernel at its best parameters for each shape (bars in the order of the files), cuBLAS "
                   "hatched" if suite else "Each kernel at its best parameters for each size, cuBLAS dashed")
                  + "; where cuBLAS was measured, the second panel gives each kernel's share of it.")
            doc.img(plot.overview_small(data.measured),
                    f"{UNIT} and % of cuBLAS of all kernels " + ("per shape" if suite else "against size"))
    else:
        doc.p("No measured (timed and verified) GEMM results: no plots, only the tables below.")
    for g in ordered_groups(data.records):
        precision_section(doc, plot, data, g, many)
    if args.baseline:
        speedup_section(doc, plot, data, args.baseline)
    if data.measured:
        roofline_section(doc, plot, data, args)


def share_tables(doc, data, meas):
    """% of cuBLAS and TFLOPS, every kernel at its best parameters per size; kernels as rows unless
    there are more shapes than kernels (a suite)."""
    series = data.kernel_series(meas)
    shapes = shapes_in_order(data, [s for pts in series.values() for s in pts])
    kernels = [(label, pts) for (base, label), pts in series.items() if not base]
    pct = OrderedDict((label, {s: data.ratio_to_cublas(r) for s, r in pts.items()}) for label, pts in kernels)
    tput = OrderedDict((label + (" (cuBLAS)" if base else ""), {s: tflops(r) for s, r in pts.items()})
                       for (base, label), pts in series.items())
    with_ratio = any(v for row in pct.values() for v in row.values())
    for what, table, kind in (("% of cuBLAS", pct, "percent"), (UNIT, tput, "tflops")):
        if kind == "percent" and not with_ratio:
            continue
        geo = kind == "percent" and len(shapes) > 1
        doc.caption(f"{what}, best parameters per {'shape' if data.axis.bars else 'size'}"
                    + (" (geomean: over all of them, for the kernels measured at every one)" if geo else ""))
        if len(shapes) <= max(len(table), 6):
            header = ["kernel"] + [size_header(data, s) for s in shapes] + (["geomean"] if geo else [])
            rows = []
            for label, vals in table.items():
                row = [label] + [fmt(vals.get(s), kind) for s in shapes]
                if geo:
                    full = all(vals.get(s) for s in shapes)
                    row.append(fmt(geomean(vals.values()), kind) if full else "-")
                rows.append(row)
        else:
            header = ["shape"] + list(table)
            rows = [[size_header(data, s)] + [fmt(vals.get(s), kind) for vals in table.values()] for s in shapes]
            if geo:
                rows.append(["geomean"] + [fmt(geomean(vals.values()), kind) if all(vals.get(s) for s in shapes)
                                           else "-" for vals in table.values()])
        doc.table(header, rows)


def precision_section(doc, plot, data, g, many):
    recs = [r for r in data.records if group_of(r) == g]
    meas = [r for r in recs if is_measured(r)]
    doc.h(2, precision_title(g))
    kernels = ordered_unique(str(r.get("kernel", "?")) for r in recs)
    base_ids = [k for k in kernels if any(is_baseline(r) for r in recs if str(r.get("kernel")) == k)]
    own = [r for r in recs if not r.get("_paired")]  # the records of the files, not the cuBLAS lines made from pairs
    doc.p(f"{len(kernels) - len(base_ids)} kernel(s)" + (f", compared with {', '.join(base_ids)}" if base_ids else "")
          + f"; {len([r for r in own if is_measured(r)])} of {len(own)} records measured.")
    if meas and many:
        pct = plot.pct_of_cublas(meas, f"pct_{safe_name(g)}.png", f"{g} kernels: share of cuBLAS (best parameters)")
        if pct:
            doc.img(pct, f"{g}: % of cuBLAS against size")
        doc.img(plot.against_size(meas, f"overview_{safe_name(g)}.png", f"{g} kernels (best parameters) and cuBLAS"),
                f"{g} kernels and cuBLAS against size")
    paired = [r for r in meas if r.get("_paired")]
    if paired:
        doc.p("cuBLAS was timed alongside each kernel (`lab --interleave`, `run --cublas`): its line and rows are the "
              "median of those paired runs, while each kernel's % of cuBLAS is against its own pair, so the two "
              "can disagree by the few percent cuBLAS moves between pairs.")
    if meas:
        share_tables(doc, data, meas)
    details = []
    for kernel in kernels:
        krecs = [r for r in recs if str(r.get("kernel", "?")) == kernel]
        if kernel in base_ids or not any(is_measured(r) for r in krecs):
            continue
        details.append((kernel, krecs, doc.anchor(f"Kernel {kernel}")))
    if details:
        doc.links("Kernel details (parameters, per-size tables):", [(k, a) for k, _, a in details])
    for kernel, krecs, anchor in details:
        kernel_details(doc, plot, data, kernel, krecs, anchor)
    unmeasured = [k for k in kernels if k not in base_ids and not any(is_measured(r) for r in recs
                                                                       if str(r.get("kernel")) == k)]
    if unmeasured:
        doc.p("Never measured (see the tables per size for why): " + ", ".join(unmeasured) + ".")


def kernel_details(doc, plot, data, kernel, recs, anchor):
    meas = [r for r in recs if is_measured(r)]
    doc.details(f"Kernel {kernel}", anchor=anchor)
    if recs[0].get("title"):
        doc.p(str(recs[0]["title"]))
    doc.img(plot.kernel_plot(kernel, recs), f"{kernel}: {UNIT} against size")
    dims = data.varying(meas)
    cols = ordered_unique(data.label(r, dims) for r in meas)
    sizes = shapes_in_order(data, [shape(r) for r in meas])
    for what, fn, kind in ((UNIT, tflops, "tflops"), ("median time [ms]", median_ms, "ms")):
        doc.caption(f"{kernel}: {what} (rows: size, columns: parameters)")
        table = []
        for s in sizes:
            row = [shape_label(s)]
            for c in cols:
                hit = [r for r in meas if shape(r) == s and data.label(r, dims) == c]
                row.append(fmt(fn(hit[-1]), kind) if hit else "-")
            table.append(row)
        doc.table(["size"] + cols, table)
    doc.end_details()


def speedup_section(doc, plot, data, baseline):
    series = speedup_rows(data, baseline)
    doc.h(2, f"Speed-up over {baseline}")
    doc.p(f"Time of {baseline} divided by the kernel's time at the same size, against the {baseline} "
          "configuration with the same values of the parameters both have (e.g. the same block size), "
          f"else its fastest one. Above 1: faster than the baseline. Only kernels of {baseline}'s precision "
          "are compared (another precision computes another product).")
    if not series:
        doc.p("No other kernel was measured at the sizes the baseline was.")
        return
    rows = [(label, {s: v for _, v, s in pts}) for label, pts in series.items()]
    doc.img(plot.speedup(baseline, rows), f"speed-up over {baseline}")
    sizes = shapes_in_order(data, [s for _, pts in rows for s in pts])
    doc.table(["size"] + [label for label, _ in rows],
              [[shape_label(s)] + [fmt(pts.get(s), "ratio") for _, pts in rows] for s in sizes])


def roofline_section(doc, plot, data, args):
    peaks = load_peaks(args.peaks, data.sources)
    doc.h(2, "Roofline")
    if not peaks:
        doc.p("No peaks known (a CSV file has no context): pass --peaks peaks.json (gemmlab peak --json) "
              "to draw the roofline.")
        return
    devices = ordered_unique(s.device for s in data.sources)
    groups = ordered_groups(data.measured)
    roof_list, missing = roofs(peaks, groups, devices[0] if len(devices) == 1 else "")
    bw = peaks["dram_gbs"]
    bw_what = "measured" if args.peaks and peaks["source"] != "theoretical" else "theoretical"
    doc.p("Arithmetic intensity of the minimum traffic (A and B read once, C written once, in their storage "
          "types): every kernel at one size sits at the same intensity. Roofs for the precisions present, in "
          f"their colours (solid: from the peaks, dashed: datasheet, dotted: theoretical). Peaks: {peaks['source']}"
          + (f" (`{args.peaks}`)." if args.peaks else " (from the results file's context)."))
    doc.img(plot.roofline(roof_list, bw, f"{fmt(bw, 'gbs')} GB/s ({bw_what})"), "roofline")
    doc.table(["roof", "TFLOPS", "kind"],
              [[r.label.split(":")[0], fmt(r.tflops, "tflops"), r.kind] for r in roof_list]
              + [["DRAM bandwidth", f"{fmt(bw, 'gbs')} GB/s", bw_what]])
    if missing:
        doc.p(f"No roof for {', '.join(m.upper() for m in missing)}: not in the peaks, and no datasheet figures "
              f"are known for {', '.join(devices)}. Pass --peaks with <precision>_tflops to draw them.")


# ---------------------------------------------------------------------------------------------
# gemmlab bench: the library's API next to its anchor, case by case
# ---------------------------------------------------------------------------------------------

BENCH_CHUNK = 20  # cases per plot: 60 shapes in one plot leave 7 pixels a row


def bench_section(doc, plot, data):
    groups = bench_groups(data.sources)
    if not groups:
        return
    doc.h(2, "Library against its anchor (gemmlab bench)")
    doc.p("Each case is one call of the library's API (`gemmlab::gemm`, the kernel dispatch chose: its plan) "
          "and the same call through cuBLAS or cuBLASLt (the anchor), in the same process, timed alternately "
          f"run by run; both results checked against float64. {UNIT_NOTE}; % of the anchor = anchor time / "
          "gemmlab time (above 100%: gemmlab is faster). Cases in the order of the file.")
    index = 0
    several = len(data.sources) > 1
    for source, suite, cases in groups:
        # Files of two GPUs often share a name (h100/shapes/shapes-bf16.json, h200/...): name the device too.
        where = f"{source.device}, {source.date}"
        doc.h(3, f"{suite}: {source.device}, {source.name}" if several else suite)
        summary = summary_rows(cases)
        if summary and len(cases) > 1:
            doc.caption("Share of the anchor per precision (geomean over the cases)")
            doc.table(["precision", "cases", "geomean", "worst", "worst case", "under 90%"],
                      [[p, fmt(n, "count"), fmt(geo, "percent"), fmt(worst, "percent"), name, fmt(under, "count")]
                       for p, n, geo, worst, name, under in summary])
        drawn = [c for c in cases if c.measured]
        for start in range(0, len(drawn), BENCH_CHUNK):
            chunk = drawn[start:start + BENCH_CHUNK]
            index += 1
            part = f", cases {start + 1} to {start + len(chunk)} of {len(drawn)}" if len(drawn) > BENCH_CHUNK else ""
            doc.img(plot.bench_cases(index, f"gemmlab bench, {suite}{part}: gemmlab and its anchor", chunk, where),
                    f"{suite}: {UNIT} and % of the anchor per case")
        anchors = set(c.anchor for c in cases)
        cold = any(c.cold for c in cases)
        long = len(cases) > BENCH_CHUNK  # the plots above have every case: the 60 rows of a suite collapsed
        if long:
            doc.details(f"Every case of {suite} ({len(cases)})", level=4)
        doc.caption(f"Every case of {suite}" + (f" (anchor: {next(iter(anchors))})" if len(anchors) == 1 else "")
                    + ("; L2 flushed: timed with the L2 flushed before every run (memory-bound cases)" if cold else ""))
        header = (["case", "gemmlab ms", "p10..p90 ms"] + (["anchor"] if len(anchors) > 1 else [])
                  + ["anchor ms", f"{UNIT}", f"anchor {UNIT}", "% of anchor"] + (["L2 flushed"] if cold else [])
                  + ["check", "plan"])
        rows = []
        for c in cases:
            p10, p90 = number(c.record.get("p10_ms")), number(c.record.get("p90_ms"))
            spread = f"{fmt(p10, 'ms')}..{fmt(p90, 'ms')}" if p10 is not None and p90 is not None else "-"
            rows.append([c.name, fmt(c.ms, "ms"), spread] + ([c.anchor] if len(anchors) > 1 else [])
                        + [fmt(c.anchor_ms, "ms"), fmt(c.tflops, "tflops"), fmt(c.anchor_tflops, "tflops"),
                           fmt(c.ratio, "percent")] + (["yes" if c.cold else "no"] if cold else [])
                        + [c.check(), c.plan])
        doc.table(header, rows)
        if long:
            doc.end_details()


# ---------------------------------------------------------------------------------------------
# Transfer studies and link measurements
# ---------------------------------------------------------------------------------------------

def transfer_section(doc, plot, data):
    real = [r for r in data.all_records if record_kind(r) == "transfer"]
    generic = [r for r in data.records if has_phase_fields(r)]
    if not real and not generic:
        return
    doc.h(2, "Transfer study: time breakdown")
    index = 0
    if real:
        doc.p("A multiplication of matrices held in host memory, phase by phase (docs/transfers.md): one bar "
              "per size and host-memory mode, stacked in the order the phases happen. The overlapped mode's "
              "copies and kernels overlap on the GPU, so its bar stacks their common window instead. "
              "Times are medians over the timed runs.")
        sizes = set(shape(r) for r in real if end_to_end_tflops(r))
        if len(sizes) > 1:
            doc.img(plot.transfer_end_to_end(real), f"{UNIT} end to end per host-memory mode against size")
        bars = transfer_bars(real)
        for group in ordered_unique(b.group for b in bars):
            mine = [b for b in bars if b.group == group]
            doc.h(3, f"{group}: time per phase")
            for chunk in chunks_by_shape(mine, 28):
                index += 1
                doc.img(plot.transfer_breakdown(index, f"{group}: median time per phase", chunk),
                        f"{group}: time breakdown per size and host-memory mode")
            transfer_tables(doc, mine)
    if generic:
        bars, names = phase_bars(generic)
        if real:
            doc.h(3, "Other records with phase times")
        doc.p("Median time of each phase (phase_<name>_median_ms), stacked per configuration.")
        for group in ordered_unique(b.group for b in bars):
            mine = [b for b in bars if b.group == group]
            for chunk in chunks_by_shape(mine, 16):
                index += 1
                doc.img(plot.transfer_breakdown(index, f"{group}: time breakdown by phase", chunk),
                        "time breakdown by phase")
        doc.table(["configuration"] + [f"{p} ms" for p in names] + ["total ms"],
                  [[b.name] + [fmt(b.segments[p][1], "ms") if p in b.segments else "-" for p in names]
                   + [fmt(b.total, "ms")] for b in bars])


def chunks_by_shape(bars, limit):
    """Bars in pieces of at most `limit`, cut between shapes."""
    out, cur = [], []
    for b in bars:
        if cur and len(cur) >= limit and b.shape != cur[-1].shape:
            out.append(cur)
            cur = []
        cur.append(b)
    return out + ([cur] if cur else [])


def transfer_tables(doc, bars):
    keys = [k for k, _ in TRANSFER_PHASES]
    doc.caption("Median ms per phase (the overlapped mode's Memcpy AB, Kernel and Memcpy C overlap each other; "
                "window: first copy enqueued to the final synchronisation)")
    doc.table(["mode and size"] + [label for _, label in TRANSFER_PHASES] + ["window", "total"],
              [[b.name] + [fmt(number(b.record.get(f"{k}_median_ms")), "ms") for k in keys]
               + [fmt(number(b.record.get("window_median_ms")), "ms"), fmt(b.total, "ms")] for b in bars])
    doc.caption(f"End to end: {UNIT} over the total time, copy rates (GB/s, share of the link's pinned peak), "
                "total time against the pageable mode (+: less time), the overlapped pipeline's window against "
                "max(copies, kernel)")
    rows = []
    for b in bars:
        r = b.record
        ratio, target = number(r.get("overlap_ratio")), number(r.get("overlap_target"))
        overlap = "-"
        if ratio:
            overlap = f"{ratio:.2f}" + (f" (target {target:.2f}: {'met' if ratio <= target else 'missed'})"
                                        if target else "")
        rows.append([b.name, fmt(b.total, "ms"), fmt(end_to_end_tflops(r), "tflops"), fmt(kernel_tflops(r), "tflops"),
                     fmt(r.get("copy_ab_gbs"), "gbs"), fmt(r.get("copy_ab_share_of_peak"), "percent"),
                     fmt(r.get("copy_c_gbs"), "gbs"), fmt(r.get("copy_c_share_of_peak"), "percent"),
                     fmt(gain_vs_pageable(r), "gain"), overlap, fmt(r.get("iters"), "count"), check_cell(r)])
    doc.table(["mode and size", "total ms", f"{UNIT} end to end", f"kernel {UNIT}", "Memcpy AB GB/s", "of peak",
               "Memcpy C GB/s", "of peak", "total vs pageable", "overlap", "timed runs", "verification"], rows)


def link_section(doc, plot, data):
    srcs = [s for s in data.sources if any(record_kind(r) == "link" for r in s.records)]
    if not srcs:
        return
    doc.h(2, "Host-device link bandwidth")
    doc.p("Plain copies between host and device memory (`gemmlab link`), each between its own CUDA events: "
          "the median copy's bandwidth per size, for pinned (cudaMallocHost) and pageable (malloc) host memory. "
          "The peak per direction is the best pinned median.")
    for s in srcs:
        recs = [r for r in s.records if record_kind(r) == "link"]
        points = link_points(recs)
        peaks = [(d, link_peak(s.context, d)) for d in ("H2D", "D2H") if link_peak(s.context, d)]
        if len(srcs) > 1:
            doc.h(3, s.name)
        if any(p.usable for p in points):
            doc.img(plot.link(points, peaks), "host-device copy bandwidth against size")
        rows = []
        for p in points:
            r = p.record
            peak = link_peak(s.context, p.direction)
            rows.append([fmt(p.bytes, "bytes"), p.memory, p.direction, fmt(r.get("time_median_ms"), "ms"),
                         fmt(r.get("time_min_ms"), "ms"), fmt(r.get("time_max_ms"), "ms"), fmt(r.get("runs"), "count"),
                         fmt(p.gbs, "gbs"), fmt(p.gbs / peak if peak and p.gbs else None, "percent")])
        doc.table(["size", "host memory", "direction", "median ms", "min ms", "max ms", "runs", "GB/s",
                   "of pinned peak"], rows)
        skipped = (s.context or {}).get("skipped")
        if isinstance(skipped, list) and skipped:
            doc.p("Skipped: " + "; ".join(str(x) for x in skipped) + ".")


# ---------------------------------------------------------------------------------------------
# Every record
# ---------------------------------------------------------------------------------------------

def failures_and_tables(doc, data):
    problems = [r for r in data.records if status(r) in ("verification-failed", "error")]
    if problems:
        doc.h(2, "Failures")
        doc.table(["kernel", "params", "shape", "status", "details"],
                  [[r.get("kernel", "?"), r.get("params", "") or "-", shape_label(shape(r)), status(r), check_cell(r)]
                   for r in problems])
    if not data.records:
        return
    doc.h(2, "All records per size")
    doc.p("Every GEMM record, measured or not, one collapsed table per size. % of cuBLAS: cuBLAS time / kernel "
          "time in the same precision.")
    multi = data.multi_device
    several_files = len(data.sources) > 1
    by_shape = OrderedDict()
    for r in sorted(data.records, key=lambda r: (shape_volume(shape(r)), shape(r))):
        by_shape.setdefault(shape(r), []).append(r)
    for s, recs in by_shape.items():
        doc.details(f"M x N x K = {shape_label(s)} ({len(recs)} records)")
        table = []
        for r in recs:
            p10, p90 = number(r.get("time_p10_ms")), number(r.get("time_p90_ms"))
            spread = f"{fmt(p10, 'ms')}..{fmt(p90, 'ms')}" if p10 is not None and p90 is not None else "-"
            kernel = str(r.get("kernel", "?")) + (f" ({r['label']})" if r.get("label") else "")
            if r.get("_paired"):
                kernel += f" (median of its {r['_paired']} runs paired with the kernels)"
            row = [kernel, r.get("params", "") or "-", r.get("precision", "-"), fmt(median_ms(r), "ms"), spread,
                   fmt(tflops(r), "tflops") if median_ms(r) else "-", fmt(data.ratio_to_cublas(r), "percent"),
                   check_cell(r)]
            if several_files:
                row.insert(0, os.path.basename(data.sources[r["_src"]].path))
            if multi:
                row.insert(0, data.device_of(r))
            table.append(row)
        head = ["kernel", "params", "precision", "median ms", "p10..p90 ms", UNIT, "% of cuBLAS", "verification"]
        doc.table((["device"] if multi else []) + (["file"] if several_files else []) + head, table)
        doc.end_details()


def other_section(doc, data):
    others = [r for r in data.all_records if record_kind(r) == "other"]
    if not others:
        return
    doc.h(2, "Other records")
    doc.p("Records of no kind this report draws (no kernel, no transfer or link fields): their plain fields.")
    cols = ordered_unique(k for r in others for k, v in r.items()
                          if not k.startswith("_") and isinstance(v, (str, int, float, bool)))[:10]
    doc.table(cols or ["record"], [[str(r.get(c, "-")) for c in cols] or ["(no plain fields)"] for r in others])
