#!/usr/bin/env python3
"""Summarises scripts/device/before-after.sh: DIR/{before,after}-rR-I.json (gemmlab lab --json).

One row per kernel and size present in both builds: the share of cuBLAS (cuBLAS timed alternately
with the kernel) of each round before and after, the median over rounds of the kernel's median
time and its change, and the change of the median share in points. The share is the fairer
measure where clocks and power drift between runs (at 8192^3 they do): cuBLAS's runs sit beside the
kernel's. Kernels found in one build only are named at the end."""
import glob
import json
import os
import re
import statistics
import sys


def load(directory, side):
    rows = {}  # (kernel, m, n, k) -> list of (share, kernel ms, cublas ms), one per round
    context = None
    for path in sorted(glob.glob(os.path.join(directory, f"{side}-r*-*.json"))):
        with open(path) as f:
            data = json.load(f)
        context = context or data.get("context", {})
        for r in data.get("results", []):
            if r.get("status") not in (None, "ok") or not r.get("time_median_ms"):
                continue
            key = (r["kernel"], r["m"], r["n"], r["k"])
            cublas = r.get("cublas_time_median_ms") or float("nan")
            rows.setdefault(key, []).append((cublas / r["time_median_ms"], r["time_median_ms"], cublas))
    return rows, context or {}


def main():
    directory = sys.argv[1]
    before, cb = load(directory, "before")
    after, ca = load(directory, "after")
    print(f"before: {cb.get('gemmlab_commit', '?')}  after: {ca.get('gemmlab_commit', '?')}  "
          f"device: {ca.get('device', '?')}  max SM clock {ca.get('max_sm_clock_mhz', '?')} MHz")
    print(f"{'kernel':<28} {'size':>16}  {'% of cuBLAS before':>20}  {'after':>20}  "
          f"{'ms before':>9} {'ms after':>9} {'time':>7} {'share':>7}")
    changes, share_changes = [], []
    for key in sorted(set(before) & set(after), key=lambda k: (k[0], k[1])):
        b, a = before[key], after[key]
        tb = statistics.median(x[1] for x in b)
        ta = statistics.median(x[1] for x in a)
        change = 100.0 * (ta / tb - 1.0)
        points = 100.0 * (statistics.median(x[0] for x in a) - statistics.median(x[0] for x in b))
        changes.append(change)
        share_changes.append(points)
        shares = lambda xs: " ".join(f"{100 * x[0]:5.1f}" for x in xs)
        size = f"{key[1]}x{key[2]}x{key[3]}"
        print(f"{key[0]:<28} {size:>16}  {shares(b):>20}  {shares(a):>20}  {tb:9.4f} {ta:9.4f} {change:+6.1f}% {points:+6.1f}")
    if changes:
        print(f"{len(changes)} pairs; time change median {statistics.median(changes):+.1f}%, "
              f"range {min(changes):+.1f}% to {max(changes):+.1f}% (positive: slower after); "
              f"share of cuBLAS change median {statistics.median(share_changes):+.1f} points, "
              f"range {min(share_changes):+.1f} to {max(share_changes):+.1f} (positive: faster after)")
    only_b = sorted({k[0] for k in before} - {k[0] for k in after})
    only_a = sorted({k[0] for k in after} - {k[0] for k in before})
    if only_b:
        print("only before:", ", ".join(only_b))
    if only_a:
        print("only after:", ", ".join(only_a))


if __name__ == "__main__":
    main()
