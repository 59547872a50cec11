"""The report as a list of blocks, rendered as Markdown and as one self-contained HTML page.

The HTML page opens with a contents list that links to every section; detail a reader only
sometimes wants (one kernel's parameters, every record per size) sits in <details> elements,
closed. Images are embedded as data: URIs, so the page is one file that can be mailed or
archived; Markdown links the PNG files beside it. Headings get the anchors GitHub would give
them, so the Markdown contents list works there too.
"""

import base64
import html
import os
import re

from .style import is_numeric_cell

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;margin:1.5em auto;
 padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.3em}
h2{font-size:1.35em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2.2em}
h3{font-size:1.12em;margin-top:1.6em}
nav.toc{background:#f7f7f7;border:1px solid #e3e3e3;border-radius:4px;padding:.4em 1.2em;margin:1em 0}
nav.toc ul{margin:.2em 0;padding-left:1.2em}
nav.toc>ul.two{columns:2;column-gap:2em}
nav.toc li{break-inside:avoid}
nav.toc .title{font-weight:600;margin:.3em 0}
p.links{font-size:.92em}
.tw{overflow-x:auto;max-width:100%;margin:.5em 0 1.2em}
table{border-collapse:collapse;font-size:12.5px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d4d4d4;padding:2px 7px;vertical-align:top;text-align:left}
th{background:#eef0f3;font-weight:600}
td.num{text-align:right;white-space:nowrap}
td.id{white-space:nowrap}
tbody tr:nth-child(even) td{background:#fafafa}
figure{margin:.8em 0}
img{max-width:100%;height:auto;display:block}
details{border:1px solid #e0e0e0;border-radius:4px;margin:.35em 0;padding:.15em .8em}
details[open]{padding-bottom:.6em}
details>summary{cursor:pointer;font-weight:600;padding:.2em 0}
code{background:#f2f2f2;padding:0 .25em;border-radius:3px;font-size:90%;overflow-wrap:anywhere}
code .w{display:inline-block;max-width:100%}
.caption{font-size:.9em;color:#444;margin-bottom:.2em}
"""


def numeric_columns(header, rows):
    """Columns whose cells are numbers (or '-' for none): right-aligned and never wrapped. The
    first column names the row and stays text."""
    out = set()
    for i in range(1, len(header)):
        cells = [r[i] for r in rows if i < len(r)]
        if any(c.strip() not in ("-", "") for c in cells) and all(is_numeric_cell(c) for c in cells):
            out.add(i)
    return out


def slug(text):
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    t = re.sub(r"[^\w\- ]", "", str(text).lower())
    return t.replace(" ", "-")


class Doc:
    def __init__(self):
        self.blocks = []
        self._anchors = {}

    def anchor(self, text):
        base = slug(text) or "section"
        n = self._anchors.get(base, 0)
        self._anchors[base] = n + 1
        return base if n == 0 else f"{base}-{n}"

    def h(self, level, text, toc=True):
        """A heading; levels 2 and 3 go into the contents unless toc is False. Returns its anchor."""
        a = self.anchor(text)
        self.blocks.append(("h", level, text, a, toc))
        return a

    def p(self, text):
        """A paragraph; `backticks` mark code."""
        self.blocks.append(("p", text))

    def caption(self, text):
        """A line that names the table or plot below it."""
        self.blocks.append(("caption", text))

    def img(self, file, alt):
        self.blocks.append(("img", file, alt))

    def table(self, header, rows):
        self.blocks.append(("table", [str(c) for c in header], [[str(c) for c in row] for row in rows]))

    def links(self, label, items):
        """A line of links to anchors: label, then [(text, anchor), ...]."""
        self.blocks.append(("links", label, items))

    def details(self, summary, level=3, anchor=None):
        """Opens a collapsed block (a heading of this level in Markdown); close it with end_details().
        anchor: one reserved earlier with anchor() (to link to it from above). Returns the anchor."""
        a = anchor or self.anchor(summary)
        self.blocks.append(("open", summary, a, level))
        return a

    def end_details(self):
        self.blocks.append(("close",))

    def contents(self):
        """Where the contents list goes."""
        self.blocks.append(("toc",))

    def _toc_entries(self):
        out, depth = [], 0
        for b in self.blocks:
            if b[0] == "open":
                depth += 1
            elif b[0] == "close":
                depth -= 1
            elif b[0] == "h" and b[4] and depth == 0 and b[1] in (2, 3):
                out.append((b[1], b[2], b[3]))
        return out

    # -- Markdown ------------------------------------------------------------------------------

    def markdown(self):
        out = []
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                out.append("#" * b[1] + " " + b[2])
            elif kind in ("p", "caption"):
                out.append(b[1])
            elif kind == "img":
                out.append(f"![{b[2]}]({b[1]})")
            elif kind == "table":
                cell = lambda c: str(c).replace("|", "\\|").replace("\n", " ")
                out.append("| " + " | ".join(cell(c) for c in b[1]) + " |")
                nums = numeric_columns(b[1], b[2])
                out.append("|" + "|".join("---:" if i in nums else "---" for i in range(len(b[1]))) + "|")
                for row in b[2]:
                    out.append("| " + " | ".join(cell(c) for c in row) + " |")
            elif kind == "links":
                out.append(b[1] + " " + ", ".join(f"[{t}](#{a})" for t, a in b[2]))
            elif kind == "open":
                out.append("#" * b[3] + " " + b[1])
            elif kind == "toc":
                entries = self._toc_entries()
                if not entries:
                    continue
                out.append("**Contents**")
                out.append("")
                for level, text, a in entries:
                    out.append("  " * (level - 2) + f"- [{text}](#{a})")
            else:
                continue
            out.append("")
        return "\n".join(out)

    # -- HTML ----------------------------------------------------------------------------------

    @staticmethod
    def _code(text):
        """A code span whose words break only where they do not fit on a line of their own: a
        browser breaks after any hyphen, which split a command's `--json` into `-` and `-json`."""
        return "<code>" + " ".join(f'<span class="w">{html.escape(w)}</span>' if w else ""
                                   for w in text.split(" ")) + "</code>"

    @classmethod
    def _inline(cls, text):
        """Escaped text with `code` spans."""
        parts = str(text).split("`")
        if len(parts) % 2 == 0:  # an unpaired backtick: plain text
            return html.escape(str(text))
        return "".join(cls._code(p) if i % 2 else html.escape(p) for i, p in enumerate(parts))

    def _toc_html(self):
        entries = self._toc_entries()
        if not entries:
            return ""
        two = ' class="two"' if len(entries) > 8 else ""
        out, open_sub = [f'<nav class="toc"><div class="title">Contents</div><ul{two}>'], False
        for i, (level, text, a) in enumerate(entries):
            link = f'<a href="#{html.escape(a)}">{html.escape(text)}</a>'
            if level == 2:
                if open_sub:
                    out.append("</ul></li>")
                    open_sub = False
                nxt = entries[i + 1][0] if i + 1 < len(entries) else 2
                if nxt == 3:
                    out.append(f"<li>{link}<ul>")
                    open_sub = True
                else:
                    out.append(f"<li>{link}</li>")
            else:
                out.append(f"<li>{link}</li>")
        if open_sub:
            out.append("</ul></li>")
        out.append("</ul></nav>")
        return "".join(out)

    def html(self, outdir, title):
        e = html.escape
        body = []
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                body.append(f'<h{b[1]} id="{e(b[3])}">{e(b[2])}</h{b[1]}>')
            elif kind == "p":
                body.append(f"<p>{self._inline(b[1])}</p>")
            elif kind == "caption":
                body.append(f'<div class="caption">{self._inline(b[1])}</div>')
            elif kind == "img":
                with open(os.path.join(outdir, b[1]), "rb") as f:
                    data = base64.b64encode(f.read()).decode("ascii")
                body.append(f'<figure><img alt="{e(b[2])}" width="800" height="500" '
                            f'src="data:image/png;base64,{data}"></figure>')
            elif kind == "table":
                head = "".join(f"<th>{e(c)}</th>" for c in b[1])
                rows = []
                nums = numeric_columns(b[1], b[2])
                for row in b[2]:
                    cells = []
                    for i, c in enumerate(row):
                        cls = "num" if i in nums else ("id" if i == 0 else "")
                        cells.append(f'<td class="{cls}">{e(c)}</td>' if cls else f"<td>{e(c)}</td>")
                    rows.append("<tr>" + "".join(cells) + "</tr>")
                body.append(f'<div class="tw"><table><thead><tr>{head}</tr></thead>'
                            f'<tbody>{"".join(rows)}</tbody></table></div>')
            elif kind == "links":
                links = ", ".join(f'<a href="#{e(a)}">{e(t)}</a>' for t, a in b[2])
                body.append(f'<p class="links">{e(b[1])} {links}</p>')
            elif kind == "open":
                body.append(f'<details id="{e(b[2])}"><summary>{e(b[1])}</summary>')
            elif kind == "close":
                body.append("</details>")
            elif kind == "toc":
                body.append(self._toc_html())
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{e(title)}</title><style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
