#!/usr/bin/env python3
"""Keep the gemmlab outputs shown in the docs equal to what gemmlab prints.

A block to keep is a fenced code block whose opening fence is on the line right after a marker

    <!-- gemmlab-output: ARGS -->
    ```
    $ gemmlab ARGS
    ...what `gemmlab ARGS` prints...
    ```

where ARGS are the arguments of a command that needs no GPU (`list --family fp32`,
`occupancy --gpu gt240 --threads 64,256,484 --regs 16 --smem 44`, `help`, ...). The block holds
`$ gemmlab ARGS` and then the command's output (stdout and stderr as they come, each line's
trailing blanks and the trailing blank lines dropped, so that editors that strip them do not make
a difference). The command runs in the --root directory, so paths in ARGS are relative to it, with
argv[0] "gemmlab" and COLUMNS removed from the environment: gemmlab then formats for a pipe (`list`
fits 100 columns). A command that exits non-zero is fine (the docs show error messages too); only
its output counts.

  scripts/docs_outputs.py --check  --gemmlab build/gemmlab --root .   # exit 1 and a diff per stale block
  scripts/docs_outputs.py --update --gemmlab build/gemmlab --root .   # rewrite the stale blocks

Outputs that need a GPU have a marker of their own, which records where they were made:

    <!-- gemmlab-gpu-output: ARGS | COMMIT, DEVICE -->

Only `--update --gpu`, on a GPU machine (scripts/device/docs-gpu-outputs.sh), runs them: it rewrites
every such block and the marker's COMMIT (from `gemmlab --version`) and DEVICE (nvidia-smi's name).
Elsewhere `--check` and `--update` leave them as they are and check only their form: the block
starts with `$ gemmlab ARGS` and the marker names a commit and a device. Their output is not
compared: timings differ from run to run.

The files read: README.md, CONTRIBUTING.md, docs/*.md and docs/kernels/*.md under --root. Python 3
standard library only. Exit status: 0 all blocks current (or updated), 1 a block differs (--check),
2 a usage or format error (a marker without a block right after it, gemmlab not runnable).
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

MARKER = re.compile(r"^<!--\s*gemmlab-(?P<gpu>gpu-)?output:\s*(?P<args>.*?)\s*(?:\|\s*(?P<made>.*?)\s*)?-->\s*$")
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


class FormatError(Exception):
    pass


def doc_files(root):
    files = [root / "README.md", root / "CONTRIBUTING.md"]
    files += sorted((root / "docs").glob("*.md"))
    files += sorted((root / "docs" / "kernels").glob("*.md"))
    return [f for f in files if f.is_file()]


def closing_fence(lines, i):
    """Index of the line that closes the fence opened at line i (len(lines) if none does)."""
    fence = FENCE.match(lines[i]).group("fence")
    close = re.compile("^" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
    j = i + 1
    while j < len(lines) and not close.match(lines[j]):
        j += 1
    return j


def find_blocks(lines, name):
    """(marker line index, args, first content line index, closing fence line index, gpu) per block.
    A marker inside another fenced block (an example of the syntax) is text, not a marker."""
    blocks = []
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            i = closing_fence(lines, i) + 1
            continue
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        args = m.group("args")
        if not args:
            raise FormatError(f"{name}:{i + 1}: gemmlab-output marker without arguments")
        if i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
            raise FormatError(f"{name}:{i + 1}: gemmlab-output marker '{args}' is not followed by a fenced block "
                              "on the next line")
        j = closing_fence(lines, i + 1)
        if j == len(lines):
            raise FormatError(f"{name}:{i + 2}: the block of gemmlab-output marker '{args}' is never closed")
        gpu = m.group("gpu") is not None
        if gpu and not m.group("made"):
            raise FormatError(f"{name}:{i + 1}: gemmlab-gpu-output marker '{args}' does not say where it was made "
                              "('| COMMIT, DEVICE' before '-->')")
        if not gpu and m.group("made"):
            raise FormatError(f"{name}:{i + 1}: gemmlab-output marker '{args}' has a '|': only GPU markers record where "
                              "they were made")
        if gpu and (j == i + 2 or lines[i + 2].rstrip() != f"$ gemmlab {args}"):
            raise FormatError(f"{name}:{i + 3}: the block of gemmlab-gpu-output marker '{args}' does not start with "
                              f"'$ gemmlab {args}'")
        blocks.append((i, args, i + 2, j, gpu))
        i = j + 1
    return blocks


def run_gemmlab(gemmlab, args, root):
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    try:
        # argv[0] is "gemmlab" whatever the path: `--help` prints it in its usage line.
        p = subprocess.run(["gemmlab"] + shlex.split(args), executable=gemmlab, cwd=root, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    except OSError as e:
        raise FormatError(f"cannot run {gemmlab}: {e}")
    except subprocess.TimeoutExpired:
        raise FormatError(f"gemmlab {args}: no answer within 120 s (does it need a GPU?)")
    out = p.stdout.decode("utf-8", errors="replace").splitlines()
    out = [line.rstrip() for line in out]
    while out and not out[-1]:
        out.pop()
    return [f"$ gemmlab {args}"] + out


def where_made(gemmlab, root):
    """"COMMIT, DEVICE" for the GPU markers: gemmlab's own commit and the first GPU's name."""
    version = subprocess.run([gemmlab, "--version"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    m = re.search(r"commit (\w+)", version.stdout.decode("utf-8", errors="replace"))
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30)
        device = smi.stdout.decode().splitlines()[0].strip() if smi.returncode == 0 and smi.stdout.strip() else ""
    except (OSError, subprocess.TimeoutExpired):
        device = ""
    if not m or not device:
        raise FormatError("--gpu needs gemmlab's commit (gemmlab --version) and a GPU (nvidia-smi)")
    return f"{m.group(1)[:7]}, {device}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="report blocks that differ from gemmlab's output (exit 1)")
    mode.add_argument("--update", action="store_true", help="rewrite the blocks that differ")
    ap.add_argument("--gemmlab", required=True, help="the gemmlab executable (e.g. build/gemmlab)")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                    help="the repository root (default: this script's repository)")
    ap.add_argument("--gpu", action="store_true",
                    help="with --update: also run the gemmlab-gpu-output blocks (on a GPU machine)")
    a = ap.parse_args()
    if a.gpu and not a.update:
        ap.error("--gpu goes with --update: GPU outputs are regenerated, never compared")

    root = Path(a.root).resolve()
    gemmlab = str(Path(a.gemmlab).resolve()) if os.sep in a.gemmlab else a.gemmlab
    n_blocks = n_stale = n_gpu = 0
    outputs = {}  # one run per distinct ARGS
    made = None  # "COMMIT, DEVICE" of this run, for the GPU markers
    try:
        if a.gpu:
            made = where_made(gemmlab, root)
        for path in doc_files(root):
            name = str(path.relative_to(root))
            text = path.read_text(encoding="utf-8")
            lines = text.split("\n")
            blocks = find_blocks(lines, name)
            if not blocks:
                continue
            new_lines = list(lines)
            for marker, args, first, close, gpu in blocks:
                if gpu:
                    n_gpu += 1
                    if a.gpu:
                        if args not in outputs:
                            outputs[args] = run_gemmlab(gemmlab, args, root)
                        print(f"ran {name}:{marker + 1} (gemmlab-gpu-output: {args})")
                    continue
                n_blocks += 1
                if args not in outputs:
                    outputs[args] = run_gemmlab(gemmlab, args, root)
                want = outputs[args]
                have = [line.rstrip() for line in lines[first:close]]
                if have == want:
                    continue
                n_stale += 1
                where = f"{name}:{marker + 1} (gemmlab-output: {args})"
                if a.check:
                    sys.stdout.writelines(difflib.unified_diff(
                        [line + "\n" for line in have], [line + "\n" for line in want],
                        fromfile=f"{where}, in the doc", tofile=f"{where}, gemmlab prints"))
                else:
                    print(f"updated {where}")
            if a.update:
                for marker, args, first, close, gpu in reversed(blocks):  # back to front: indices stay valid
                    if gpu and not a.gpu:
                        continue
                    new_lines[first:close] = outputs[args]
                    if gpu:
                        new_lines[marker] = f"<!-- gemmlab-gpu-output: {args} | {made} -->"
            if a.update and new_lines != lines:
                path.write_text("\n".join(new_lines), encoding="utf-8")
    except FormatError as e:
        print(f"docs_outputs: error: {e}", file=sys.stderr)
        return 2

    verb = "differ" if a.check else "updated"
    gpu_note = f"; {n_gpu} gemmlab-gpu-output blocks {'run' if a.gpu else 'left as they are (no --gpu)'}"
    print(f"docs_outputs: {n_blocks} gemmlab-output blocks, {n_stale} {verb}{gpu_note}")
    return 1 if (a.check and n_stale) else 0


if __name__ == "__main__":
    sys.exit(main())
