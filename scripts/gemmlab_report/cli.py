"""gemmlab report's command line: arguments, the output files, and one line for every error."""

import argparse
import os
import sys
import traceback

from .errors import ReportError
from .loading import load_sources
from .sections import build_report

DESCRIPTION = "gemmlab report: draw gemmlab results files as a Markdown and a self-contained HTML report."


def main(argv=None):
    ap = argparse.ArgumentParser(prog="gemmlab report", description=DESCRIPTION)
    ap.add_argument("results", nargs="+", help="gemmlab results files (.json or .csv)")
    ap.add_argument("-o", "--output", required=True, help="directory for report.md, report.html and the plots")
    ap.add_argument("--baseline", help="kernel id to draw speed-ups over (e.g. seed.shared)")
    ap.add_argument("--peaks", help="peaks JSON for the roofline (gemmlab peak --json; see docs/reports.md)")
    ap.add_argument("--title", help="the report's title")
    args = ap.parse_args(argv)
    try:
        files = write_report(args)
    except ReportError as e:
        print(f"gemmlab: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug must still end in one line, not a traceback
        if os.environ.get("GEMMLAB_REPORT_TRACEBACK"):
            traceback.print_exc()
        where = traceback.extract_tb(e.__traceback__)[-1]
        print(f"gemmlab: error: the report script failed on this input ({type(e).__name__}: {e}, at "
              f"{os.path.basename(where.filename)}:{where.lineno}); GEMMLAB_REPORT_TRACEBACK=1 shows the traceback",
              file=sys.stderr)
        return 1
    print(f"wrote {os.path.join(args.output, 'report.md')}, {os.path.join(args.output, 'report.html')} "
          f"and {len(files)} plots")
    return 0


def write_report(args):
    sources = load_sources(args.results)
    if not any(s.records for s in sources):
        raise ReportError("the results files hold no records")
    try:
        os.makedirs(args.output, exist_ok=True)
    except OSError as e:
        raise ReportError(f"{args.output}: cannot create the directory ({e.strerror})") from None
    doc, title, files = build_report(args, sources, args.output)
    with open(os.path.join(args.output, "report.md"), "w", encoding="utf-8") as f:
        f.write(doc.markdown())
    with open(os.path.join(args.output, "report.html"), "w", encoding="utf-8") as f:
        f.write(doc.html(args.output, title))
    return files
