"""The one exception the report raises on purpose."""


class ReportError(Exception):
    """Something the user can fix (a missing file, a bad option): printed as one line, exit status 1."""
