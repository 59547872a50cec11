#!/usr/bin/env python3
"""Lines up nvidia-smi's 50 ms samples with the runs of round3.sh: for each phase (one kernel alone,
back to back), the median time per run from the result file, the SM clock and power while it ran
(mean over the samples, and over the second half only, when the power state has settled), the share
of samples with a power or thermal clock-event reason, and the energy per GEMM (mean power x median
time)."""
import csv, json, sys, datetime as dt
from pathlib import Path

work = Path(sys.argv[1])
def ts(s):
    return dt.datetime.strptime(s.strip(), "%Y/%m/%d %H:%M:%S.%f")

samples = []
for r in csv.reader(open(work / "smi.csv")):
    if len(r) < 5:
        continue
    try:
        samples.append((ts(r[0]), float(r[1]), float(r[2]), float(r[3]), int(r[4].strip(), 16)))
    except ValueError:
        continue
marks = {}
for line in open(work / "marks.txt"):
    d, t, what, label, kernel = line.split()
    marks.setdefault((label, kernel), {})[what] = ts(d + " " + t)

# clock-event reason bits (nvidia-smi/NVML): 0x4 SW power cap, 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake
POWER, THERMAL = 0x4 | 0x80, 0x20 | 0x40
print(f"{'phase':<22} {'kernel':<22} {'median ms':>9} {'stddev':>7} {'MHz':>6} {'MHz 2nd half':>12} {'W':>6} {'W 2nd half':>10} {'power-capped':>12} {'J/GEMM':>7}")
for (label, kernel), m in marks.items():
    res = json.load(open(work / f"{label}-{kernel}.json"))["results"][0]
    inside = [s for s in samples if m["start"] <= s[0] <= m["end"]]
    # The run starts with set-up and a float64 check; the timed runs are the last stretch of the phase.
    n = len(res["samples_ms"]); timed_s = sum(res["samples_ms"]) / 1000
    timed = [s for s in inside if (m["end"] - s[0]).total_seconds() <= timed_s + 0.2]
    half = timed[len(timed) // 2:]
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    mhz, w = mean([s[1] for s in timed]), mean([s[2] for s in timed])
    mhz2, w2 = mean([s[1] for s in half]), mean([s[2] for s in half])
    capped = mean([1.0 if s[4] & POWER else 0.0 for s in timed])
    print(f"{label:<22} {kernel:<22} {res['time_median_ms']:9.4f} {res['time_stddev_ms']:7.4f} {mhz:6.0f} {mhz2:12.0f} "
          f"{w:6.0f} {w2:10.0f} {capped:11.0%} {w * res['time_median_ms'] / 1000:7.3f}")
