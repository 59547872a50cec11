"""The report as a reader meets it: report.html rendered by headless Chromium.

Runs scripts/report.py (as `gemmlab report` does) on committed results: the SYNTHETIC fixtures in
tests/fixtures/ and the real H100 results copied into tests/fixtures/h100/ (a sweep, a lab run
with --interleave, a shape suite, a transfer study, a link study), and the `gemmlab bench` files of
docs/results (the library's bench, the 60-shape suite of both GPUs). For each page it checks that
the script ran without a Python error, that every image the pages name exists, is embedded in the
HTML and decodes in the browser at 800 x 500, that every link of the contents leads to an anchor
on the page, that every table sits in its scrolling wrapper and the page is no wider than the
window, and that the page loads nothing from outside itself.

Set GEMMLAB_REPORT_SCREENSHOTS=DIR to keep a full-page screenshot of each page in DIR.
Skipped only where /usr/bin/chromium is missing (scripts/setup installs it).
"""

import base64
import html
import json
import os
import re
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.abspath(os.environ.get("GEMMLAB_SCRIPTS_DIR") or os.path.join(HERE, "..", "..", "scripts"))
FIXTURES = os.path.abspath(os.path.join(HERE, "..", "fixtures"))
RESULTS = os.path.abspath(os.path.join(HERE, "..", "..", "docs", "results"))
CHROMIUM = "/usr/bin/chromium"
WINDOW = (1200, 900)

# Injected into a copy of the page (the page itself carries no script): after the load event,
# what the browser made of the images and the links, as JSON in a <pre> that --dump-dom prints.
PROBE = """<script>
window.addEventListener('load', function () {
  var out = {images: [], missing_anchors: [], links: 0, toc_links: 0};
  document.querySelectorAll('img').forEach(function (img) {
    out.images.push({alt: img.alt, complete: img.complete, width: img.naturalWidth, height: img.naturalHeight});
  });
  document.querySelectorAll('a[href]').forEach(function (a) {
    out.links += 1;
    var href = a.getAttribute('href');
    if (href.charAt(0) !== '#' || !document.getElementById(decodeURIComponent(href.slice(1))))
      out.missing_anchors.push(href);
  });
  out.toc_links = document.querySelectorAll('nav.toc a').length;
  out.tables = document.querySelectorAll('table').length;
  out.wrapped_tables = document.querySelectorAll('div.tw > table').length;
  out.page_width = document.documentElement.scrollWidth;
  out.window_width = window.innerWidth;
  out.page_height = document.documentElement.scrollHeight;
  var pre = document.createElement('pre');
  pre.id = 'render-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def fixture(*parts):
    return os.path.join(FIXTURES, *parts)


# (name, inputs, options): every kind of results file the lab writes, and the peaks file.
CASES = [
    ("fixtures", [fixture("sweep_a.json"), fixture("transfer.json")],
     ["--baseline", "fixture.slow", "--peaks", fixture("peaks.json")]),
    ("csv", [fixture("sweep_a.csv")], []),
    ("sweep", [fixture("h100", "sweep-3-sizes.json")], ["--peaks", fixture("h100", "peaks.json")]),
    ("lab-interleaved", [fixture("h100", "tc-ladder-interleaved.json")], []),
    ("suite", [fixture("h100", "bf16-suite.json")], []),
    ("transfer", [fixture("h100", "seed001-3-sizes.json"), fixture("h100", "overlap.json")], []),
    ("link", [fixture("h100", "link.json")], []),
    ("bench", [os.path.join(RESULTS, "h100", "api", "bench.json")], []),
    ("bench-shapes", [os.path.join(RESULTS, gpu, "shapes", "shapes-bf16.json") for gpu in ("h100", "h200")], []),
]


def chromium(user_dir, *args):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={user_dir}", "--hide-scrollbars"] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


@unittest.skipUnless(os.path.exists(CHROMIUM), f"headless Chromium is not installed ({CHROMIUM}): "
                                               "scripts/setup installs the Debian package chromium")
class RenderTest(unittest.TestCase):
    def test_pages_render(self):
        for name, inputs, options in CASES:
            with self.subTest(name):
                self.check_page(name, inputs, options)

    def check_page(self, name, inputs, options):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "report")
            run = subprocess.run([os.path.join(SCRIPTS, "python"), os.path.join(SCRIPTS, "report.py")] + inputs
                                 + ["-o", out] + options, capture_output=True, text=True, timeout=600,
                                 env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertNotIn("Traceback", run.stderr)
            self.assertEqual(run.stderr.strip(), "", "the script wrote warnings")

            with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
                md = f.read()
            with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
                page = f.read()
            images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
            self.assertTrue(images, "no plot in the report")
            for png in images:
                path = os.path.join(out, png)
                self.assertTrue(os.path.isfile(path), f"{png}: named in report.md, not written")
                with open(path, "rb") as f:
                    data = f.read()
                self.assertTrue(data.startswith(b"\x89PNG\r\n\x1a\n"), f"{png}: not a PNG")
                self.assertIn(base64.b64encode(data).decode("ascii"), page, f"{png}: not embedded in report.html")
            # Self-contained: images are data: URIs, links stay on the page.
            self.assertEqual(len(re.findall(r'<img ', page)), len(images))
            self.assertEqual(re.findall(r'src="(?!data:image/png;base64,)', page), [])
            self.assertEqual(re.findall(r'href="(?!#)', page), [])

            probe = os.path.join(out, "probe.html")
            with open(probe, "w", encoding="utf-8") as f:
                f.write(page.replace("</body>", PROBE + "</body>"))
            with tempfile.TemporaryDirectory() as profile:
                dom = chromium(profile, f"--window-size={WINDOW[0]},{WINDOW[1]}", "--dump-dom", "file://" + probe)
            found = re.search(r'<pre id="render-check">(.*?)</pre>', dom.stdout, re.S)
            self.assertIsNotNone(found, f"Chromium gave no result: {dom.stderr[-2000:]}")
            result = json.loads(html.unescape(found.group(1)))

            self.assertEqual(len(result["images"]), len(images))
            for img in result["images"]:
                self.assertTrue(img["complete"] and img["width"] > 0, f"image does not load: {img['alt']}")
                self.assertEqual((img["width"], img["height"]), (800, 500), img["alt"])
            self.assertGreater(result["toc_links"], 0, "no contents list")
            self.assertEqual(result["missing_anchors"], [], "links to anchors the page does not have")
            self.assertEqual(result["tables"], result["wrapped_tables"], "a table outside its scrolling wrapper")
            self.assertLessEqual(result["page_width"], result["window_width"], "the page is wider than the window")

            shots = os.environ.get("GEMMLAB_REPORT_SCREENSHOTS")
            if shots:
                os.makedirs(shots, exist_ok=True)
                height = min(int(result["page_height"]) + 20, 30000)
                with tempfile.TemporaryDirectory() as profile:
                    chromium(profile, f"--window-size={WINDOW[0]},{height}",
                             f"--screenshot={os.path.join(os.path.abspath(shots), name + '.png')}",
                             "file://" + os.path.join(out, "report.html"))


if __name__ == "__main__":
    unittest.main()
