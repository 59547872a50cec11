"""Reading results files: every JSON and CSV file gemmlab writes.

JSON: {"context": {...}, "results": [...]}, written by run, lab, sweep, study, transfer and link
(src/results/record.cpp write_json_file). The records come in three kinds:

- GEMM records (results/record.cpp to_json): kernel, m, n, k, time_*_ms, gflops, status, ...;
- transfer records ("record": "transfer", src/transfer/report.cpp): one host-memory mode of one
  kernel and size, with <phase>_median_ms for every phase of the run (copy_ab, kernel, ...);
- link records ("record": "link"): one copy size, direction and kind of host memory, with gbs;
- bench records (`gemmlab bench --json`, src/cli/cmd_bench.cpp): one case of the library's API
  next to its anchor (suite, case, median_ms, anchor, anchor_median_ms, ...), with no kernel id.

CSV: the same GEMM records without a context (sweep --csv), or transfer records (transfer --csv).
"""

import csv
import json
import os

from .errors import ReportError
from .style import number


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


def read_json(path, label):
    """A JSON file's value; any failure is one ReportError that starts with `label`."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ReportError(f"{label}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ReportError(f"{label}: not a text file (not UTF-8)") from None
    except json.JSONDecodeError as e:
        raise ReportError(f"{label}: not valid JSON ({e})") from None


def load_results(path):
    """(context or None, list of records) from a gemmlab JSON or CSV results file."""
    if not os.path.isfile(path):
        raise ReportError(f"{path}: no such file")
    if path.endswith(".csv"):
        try:
            with open(path, newline="", encoding="utf-8") as f:
                reader = csv.DictReader(f, strict=True)
                if not reader.fieldnames or reader.fieldnames[0] != "kernel":
                    raise ReportError(f"{path}: not a gemmlab results CSV (the first column must be 'kernel')")
                records = [{k: typed_cell(v) for k, v in row.items() if k and isinstance(v, str) and v != ""}
                           for row in reader]
        except OSError as e:
            raise ReportError(f"{path}: cannot read ({e.strerror})") from None
        except UnicodeDecodeError:
            raise ReportError(f"{path}: not a text file (not UTF-8)") from None
        except csv.Error as e:
            raise ReportError(f"{path}: not a valid CSV file ({e})") from None
        return None, records
    data = read_json(path, path)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        hint = " (a peaks file: pass it with --peaks)" if isinstance(data, dict) and "peaks" in data else ""
        raise ReportError(f'{path}: not a gemmlab results file (no "results" array){hint}')
    context = data.get("context") if isinstance(data.get("context"), dict) else None
    return context, [r for r in data["results"] if isinstance(r, dict)]


def record_kind(r):
    """'gemm', 'transfer', 'link', 'bench' or 'other' (a record the report can only list)."""
    if r.get("record") == "link" or ("direction" in r and "bytes" in r and "kernel" not in r):
        return "link"
    if r.get("record") == "transfer" or "host_mode" in r:
        return "transfer"
    if "kernel" in r:
        return "gemm"
    if "case" in r and "anchor" in r:
        return "bench"
    return "other"


def _span(values, unit=""):
    """'20' or '8 to 20' (of the values that are numbers)."""
    nums = sorted(set(int(v) for v in (number(x) for x in values) if v is not None))
    if not nums:
        return None
    return f"{nums[0]}{unit}" if len(nums) == 1 else f"{nums[0]} to {nums[-1]}{unit}"


def timing_description(records):
    """How the records were timed, from the fields the writers put in every record."""
    parts = []
    gemm = [r for r in records if record_kind(r) == "gemm" and number(r.get("time_median_ms"))]
    if gemm:
        l2 = sorted(set(str(r["l2"]) for r in gemm if r.get("l2")))
        if l2:
            parts.append(" and ".join(f"{x} L2" for x in l2)
                         + (" (cold: L2 flushed before every timed run)" if "cold" in l2 else ""))
        warm, iters = _span(r.get("warmup") for r in gemm), _span(r.get("iters") for r in gemm)
        if iters:
            parts.append((f"{warm} warm-up + " if warm else "") + f"{iters} timed runs, median reported")
        orders = set(str(r.get("timing_order")) for r in gemm if r.get("timing_order"))
        if "interleaved" in orders:
            parts.append("each kernel timed alternately with its own cuBLAS runs (--interleave)")
        elif orders:
            parts.append("cuBLAS timed right after each kernel")
        elif any(number(r.get("ratio_to_cublas")) for r in gemm):
            parts.append("cuBLAS timed on its own, once per precision and shape, in the same process")
    transfer = [r for r in records if record_kind(r) == "transfer" and number(r.get("total_median_ms"))]
    if transfer:
        warm, want = _span(r.get("warmup") for r in transfer), _span(r.get("requested_runs") for r in transfer)
        secs = sorted(set(number(r.get("max_seconds")) for r in transfer if number(r.get("max_seconds"))))
        got = _span(r.get("iters") for r in transfer)
        text = (f"{warm} warm-up + " if warm else "") + (f"up to {want} runs per mode" if want else "runs per mode")
        if secs:
            text += f" within {secs[-1]:g} s"
        parts.append(text + (f" ({got} timed)" if got else "") + ", every phase's median reported")
    bench = [r for r in records if record_kind(r) == "bench"]
    if bench:
        cold = sum(1 for r in bench if r.get("l2_flushed"))
        parts.append("gemmlab and its anchor timed alternately, run by run (CUDA events), medians reported"
                     + (f"; L2 flushed before every run in {cold} memory-bound case{'s' if cold != 1 else ''}"
                        if cold else ""))
    link = [r for r in records if record_kind(r) == "link"]
    if link:
        runs = _span(r.get("runs") for r in link)
        parts.append(f"{runs + ' copies' if runs else 'copies'} per point, each between its own CUDA events, "
                     "median reported")
    return "; ".join(parts) if parts else "no timing information in the records"


class Source:
    """One input file: its path, context and records."""

    def __init__(self, path, context, records):
        self.path, self.context, self.records = path, context, records

    @property
    def name(self):
        return os.path.basename(self.path)

    @property
    def device(self):
        return str((self.context or {}).get("device") or "device unknown")

    @property
    def date(self):
        d = str((self.context or {}).get("date") or "")
        return d[:10] if d else "date unknown"

    @property
    def command(self):
        c = (self.context or {}).get("command")
        return str(c) if c else None

    def timing(self):
        return timing_description(self.records)

    def what(self):
        """'35 kernels, 175 records' / 'transfer study, 48 records' / 'link, 32 points'."""
        kinds = {}
        for r in self.records:
            kinds.setdefault(record_kind(r), []).append(r)
        out = []
        if "gemm" in kinds:
            ids = set(str(r.get("kernel")) for r in kinds["gemm"] if r.get("family") != "baseline")
            base = set(str(r.get("kernel")) for r in kinds["gemm"] if r.get("family") == "baseline")
            out.append(f"{len(ids)} kernel{'s' if len(ids) != 1 else ''}" + (" and cuBLAS" if base else "")
                       + f", {len(kinds['gemm'])} records")
        if "transfer" in kinds:
            out.append(f"transfer study, {len(kinds['transfer'])} records")
        if "link" in kinds:
            out.append(f"link, {len(kinds['link'])} points")
        if "bench" in kinds:
            suites = list(dict.fromkeys(str(r.get("suite")) for r in kinds["bench"]))
            out.append(f"gemmlab bench, {len(kinds['bench'])} cases ({', '.join(suites)})")
        if "other" in kinds:
            out.append(f"{len(kinds['other'])} other records")
        return "; ".join(out) or "no records"


def load_sources(paths):
    sources = []
    for i, p in enumerate(paths):
        ctx, recs = load_results(p)
        for r in recs:
            r["_src"] = i
        sources.append(Source(p, ctx, recs))
    return sources
