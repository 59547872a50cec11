"""gemmlab report as a package: scripts/report.py is its entry point (gemmlab report runs that file).

Modules: loading (results files), model (GEMM records), transfers (transfer and link records),
peaks (roofs), style (colours, unit, number formats), plotting (matplotlib), page (Markdown and
HTML), sections (what the report says, in order), cli (arguments and errors).
"""
