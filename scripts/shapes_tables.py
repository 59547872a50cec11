"""The shape suite's results as Markdown: a summary row per precision and one table per precision.

    scripts/python scripts/shapes_tables.py docs/results/h100/shapes/shapes-*.json

reads the JSON that `gemmlab bench --suite shapes --json FILE` writes (one file per precision or
one for all) and prints the tables docs/shapes.md quotes; with `--suite heldout` first, the held-out
shapes' rows of files written by `gemmlab bench --suite heldout`. Shares are cuBLAS time / gemmlab time;
memory-bound shapes (timed with the L2 flushed) also get their share of the DRAM roof: the
fewest bytes (A, B and D once) at the device-to-device copy bandwidth the run measured.
"""
import json
import math
import sys


def load(paths, suite):
    rows, copy_gbs = [], None
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        copy_gbs = doc["context"].get("copy_bandwidth_gbs", copy_gbs)
        rows += [r for r in doc["results"] if r["suite"] == suite]
    return rows, copy_gbs


def roof_share(r, copy_gbs, ms):
    return r["min_bytes"] / (copy_gbs * 1e9) * 1e3 / ms


def main(args):
    suite = "shapes"
    if args[:1] == ["--suite"]:
        suite, args = args[1], args[2:]
    rows, copy_gbs = load(args, suite)
    if not rows:
        raise SystemExit(f"shapes_tables: no results of the suite '{suite}' in {', '.join(args)}")
    order = []
    for r in rows:
        p = r["case"].split()[0]
        if p not in order:
            order.append(p)
    print("| precision | shapes | geometric mean | worst (shape) | under 90% | memory-bound: share of DRAM roof (cuBLAS) |")
    print("|---|---|---|---|---|---|")
    for p in order:
        v = [r for r in rows if r["case"].split()[0] == p]
        g = math.exp(sum(math.log(r["ratio_to_anchor"]) for r in v) / len(v))
        w = min(v, key=lambda r: r["ratio_to_anchor"])
        cold = [r for r in v if r.get("l2_flushed")]
        roof = ""
        if cold and copy_gbs:
            ours = sum(roof_share(r, copy_gbs, r["median_ms"]) for r in cold) / len(cold)
            theirs = sum(roof_share(r, copy_gbs, r["anchor_median_ms"]) for r in cold) / len(cold)
            roof = f"{100 * ours:.1f}% ({100 * theirs:.1f}%), mean of {len(cold)}"
        under = sum(r["ratio_to_anchor"] < 0.9 for r in v)
        print(f"| {p} | {len(v)} | {100 * g:.1f}% | {100 * w['ratio_to_anchor']:.1f}% ({' '.join(w['case'].split()[1:])}) "
              f"| {under} | {roof} |")
    for p in order:
        print(f"\n**{p}**\n")
        print("| shape | kind | gemmlab ms | cuBLAS ms | share | roof share | kernel and configuration |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            if r["case"].split()[0] != p:
                continue
            parts = r["case"].split()
            shape, kind = " ".join(parts[1:-1]), parts[-1]
            roof = f"{100 * roof_share(r, copy_gbs, r['median_ms']):.0f}%" if r.get("l2_flushed") and copy_gbs else ""
            print(f"| {shape} | {kind} | {r['median_ms']:.4g} | {r['anchor_median_ms']:.4g} | "
                  f"{100 * r['ratio_to_anchor']:.1f}% | {roof} | {r['plan']} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    main(sys.argv[1:])
