#!/usr/bin/env python3
"""gemmlab report: draw gemmlab results files as a Markdown and a self-contained HTML report.

Run through `gemmlab report RESULTS... -o DIR` (which finds this file and scripts/python), or directly:
    scripts/python scripts/report.py RESULTS... -o DIR [--baseline KERNEL] [--peaks peaks.json] [--title T]

The code is the package gemmlab_report beside this file; docs/reports.md describes the report.
"""

import os
import sys

# gemmlab runs this file by its path, from any directory: the package lives beside it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gemmlab_report.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
