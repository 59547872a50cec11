#!/usr/bin/env python3
"""README.md's results table and chart, made from the committed benchmark data.

    scripts/python scripts/readme_results.py --update   # rewrite the table (and the chart)
    scripts/python scripts/readme_results.py --check    # exit 1 if the README's table differs

The table sits between the markers `<!-- results-table: FILE -->` and `<!-- /results-table -->`
in README.md; FILE is a `gemmlab bench --json` file under docs/results. So the README shows what
the data says, and a test (CTest `readme_results`) fails when the two part. The chart (FILE with
.png for .json) is drawn by --update only: drawing needs matplotlib, checking does not.
"""
import argparse
import difflib
import json
import pathlib
import re
import sys

BEGIN = re.compile(r"<!-- results-table: (\S+) -->\n")
END = "<!-- /results-table -->"
# The rows the README shows: suite and case, in this order (the chart shows every case).
ROWS = [
    ("squares", "bf16 4096^3"), ("squares", "bf16 8192^3"), ("squares", "fp16 4096^3"), ("squares", "fp16 8192^3"),
    ("squares", "tf32 4096^3"), ("squares", "tf32 8192^3"), ("squares", "fp32 4096^3"), ("squares", "fp32 8192^3"),
    ("batched", "bf16 256 x 128^3"), ("batched", "bf16 1024 x 64^3"),
    ("grouped", "bf16 8 groups, 16384 rows, N=4096 K=7168"),
    ("epilogue", "bf16 4096^3 bias+gelu"),
]


def short_commit(commit):
    """The commit as 7 hex digits, keeping the build's "+dirty" (uncommitted changes)."""
    return commit[:7] + ("+dirty" if commit.endswith("+dirty") else "")


def load(path):
    data = json.loads(path.read_text())
    return data["context"], {(r["suite"], r["case"]): r for r in data["results"]}


def table(root, rel):
    ctx, by_case = load(root / rel)
    lines = [
        f"{ctx['device']}, max SM clock {ctx['max_sm_clock_mhz']} MHz, cuBLAS {ctx['cublas']}, gemmlab "
        f"{short_commit(ctx['gemmlab_commit'])}, {ctx['date'][:10]} (`{rel}`): medians of 30 runs alternating with the "
        "anchor, both checked against float64.",
        "",
        "| case | gemmlab ms | anchor | anchor ms | gemmlab speed / anchor |",
        "|---|---|---|---|---|",
    ]
    for key in ROWS:
        r = by_case.get(key)
        if r is None:
            raise SystemExit(f"readme_results: {rel} has no case {key}")
        lines.append(f"| {r['suite']}: {r['case']} | {r['median_ms']:.4g} | {r['anchor']} | {r['anchor_median_ms']:.4g} "
                     f"| {100 * r['ratio_to_anchor']:.1f}% |")
    return "\n".join(lines) + "\n"


def chart(root, rel):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ctx, by_case = load(root / rel)
    cases = list(by_case.values())
    labels = [f"{r['suite']}: {r['case']}" for r in cases]
    shares = [100 * r["ratio_to_anchor"] for r in cases]
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(cases) + 1.2))
    colors = ["#2a9d55" if s >= 100 else "#c0392b" for s in shares]
    ax.barh(range(len(cases)), shares, color=colors)
    ax.axvline(100, color="black", linewidth=0.8)
    ax.set_yticks(range(len(cases)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("gemmlab speed, % of the anchor (cuBLAS / cuBLASLt), same run")
    ax.set_title(f"gemmlab bench on {ctx['device']} ({short_commit(ctx['gemmlab_commit'])})", fontsize=10)
    for i, s in enumerate(shares):
        ax.text(s + 1, i, f"{s:.0f}%", va="center", fontsize=7)
    fig.tight_layout()
    fig.savefig(root / pathlib.Path(rel).with_suffix(".png"), dpi=100)


def main():
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    a = ap.parse_args()
    readme = a.root / "README.md"
    text = readme.read_text()
    m = BEGIN.search(text)
    end = text.find(END, m.end()) if m else -1
    if not m or end < 0:
        raise SystemExit(f"readme_results: {readme} has no '<!-- results-table: FILE -->' ... '{END}' block")
    want = table(a.root, m.group(1))
    have = text[m.end():end]
    if a.update:
        readme.write_text(text[:m.end()] + want + text[end:])
        chart(a.root, m.group(1))
        return 0
    if have != want:
        sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True), "README.md", "from data"))
        print(f"readme_results: README.md's table differs from {m.group(1)}: run scripts/python scripts/readme_results.py --update")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
