"""Unit tests of scripts/report.py's pure functions (run by CTest: report_script_unittests).

The records here are hand-made and SYNTHETIC; no number in them is a measurement."""

import json
import os
import sys
import tempfile
import unittest

SCRIPTS = os.environ.get("GEMMLAB_SCRIPTS_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, os.path.abspath(SCRIPTS))

import report  # noqa: E402


def rec(kernel, params, n, ms, **extra):
    r = {"kernel": kernel, "params": params, "precision": "fp32", "output": "f32", "m": n, "n": n, "k": n,
         "l2": "hot", "init": "uniform", "status": "ok", "time_median_ms": ms, "family": "x", "_src": 0}
    r.update(extra)
    return r


class ReadingTest(unittest.TestCase):
    def test_csv_cells_are_typed_back(self):
        self.assertIs(report.typed_cell("true"), True)
        self.assertEqual(report.typed_cell("1024"), 1024)
        self.assertEqual(report.typed_cell("2.5e-07"), 2.5e-07)
        self.assertEqual(report.typed_cell("block=16"), "block=16")

    def test_json_and_csv_files(self):
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "r.json")
            with open(j, "w") as f:
                json.dump({"context": {"device": "X", "date": "2001-02-03T00:00:00Z"}, "results": [rec("a", "", 64, 1.0)]}, f)
            ctx, recs = report.load_results(j)
            self.assertEqual(ctx["device"], "X")
            self.assertEqual(len(recs), 1)
            c = os.path.join(d, "r.csv")
            with open(c, "w") as f:
                f.write("kernel,params,m,n,k,time_median_ms,status,reason\n"
                        'a,block=16,64,64,64,0.5,ok,\nb,,64,64,64,,skipped,"x, y"\n')
            ctx, recs = report.load_results(c)
            self.assertIsNone(ctx)
            self.assertEqual(recs[0]["m"], 64)
            self.assertEqual(recs[1]["reason"], "x, y")
            self.assertNotIn("time_median_ms", recs[1])
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write("[1, 2]")
            with self.assertRaises(report.ReportError):
                report.load_results(bad)
            with self.assertRaises(report.ReportError):
                report.load_results(os.path.join(d, "missing.json"))


class ArithmeticTest(unittest.TestCase):
    def test_intensity_counts_minimum_traffic_in_storage_types(self):
        r = rec("a", "", 1024, 1.0)
        self.assertAlmostEqual(report.arithmetic_intensity(r), 2 * 1024 ** 3 / (3 * 1024 ** 2 * 4))
        r = rec("a", "", 1024, 1.0, precision="bf16", output="bf16")
        self.assertAlmostEqual(report.arithmetic_intensity(r), 2 * 1024 ** 3 / (3 * 1024 ** 2 * 2))
        r = rec("a", "", 1024, 1.0, beta=1.0)  # C is read too
        self.assertAlmostEqual(report.arithmetic_intensity(r), 2 * 1024 ** 3 / (4 * 1024 ** 2 * 4))

    def test_gflops_from_time_when_the_field_is_missing(self):
        self.assertAlmostEqual(report.gflops(rec("a", "", 1000, 2.0)), 2e9 / 2e-3 / 1e9)
        self.assertEqual(report.gflops(rec("a", "", 1000, 2.0, gflops=5.0)), 5.0)

    def test_params(self):
        self.assertEqual(report.parse_params("block=16 outputs=4"), {"block": 16, "outputs": 4})
        self.assertEqual(report.parse_params(""), {})


def data_of(records, context=None):
    return report.Data([report.Source("f.json", context or {"device": "D", "date": "2001-02-03"}, records)])


class SpeedupTest(unittest.TestCase):
    def test_same_block_is_compared_like_seed_004(self):
        records = [rec("sample", "block=16", 1024, 2.0), rec("sample", "block=32", 1024, 1.0),
                   rec("quad", "block=16 outputs=4", 1024, 1.0), rec("quad", "block=32 outputs=4", 1024, 0.5),
                   rec("other", "", 1024, 0.25)]
        series = report.speedup_rows(data_of(records), "sample")
        by_label = {k: v[0][1] for k, v in series.items()}
        self.assertEqual(by_label["quad block=16 outputs=4"], 2.0)  # 2.0 / 1.0: the block=16 sample
        self.assertEqual(by_label["quad block=32 outputs=4"], 2.0)  # 1.0 / 0.5: the block=32 sample
        self.assertEqual(by_label["other"], 4.0)  # no shared parameter: the fastest sample
        with self.assertRaises(report.ReportError):
            report.speedup_rows(data_of(records), "nope")

    def test_only_the_baselines_precision_is_compared(self):
        records = [rec("sample", "", 1024, 2.0), rec("fast", "", 1024, 1.0),
                   rec("tensor", "", 1024, 0.1, precision="bf16")]
        self.assertEqual(list(report.speedup_rows(data_of(records), "sample")), ["fast"])

    def test_ratio_to_cublas_from_the_baseline_record(self):
        records = [rec("cublas.fp32", "", 512, 1.0, family="baseline"), rec("k", "", 512, 4.0)]
        d = data_of(records)
        self.assertEqual(d.ratio_to_cublas(records[1]), 0.25)
        self.assertEqual(d.ratio_to_cublas(records[0]), 1.0)


class LabelsAndStylesTest(unittest.TestCase):
    def test_parameters_only_for_kernels_with_several(self):
        records = [rec("quad", "block=16", 512, 1.0), rec("quad", "block=32", 512, 1.0),
                   rec("raster", "group=8 stages=4 tile_m=128", 512, 1.0), rec("plain", "", 512, 1.0)]
        label_of = data_of(records).series_labels(records)
        self.assertEqual([label_of(r) for r in records], ["quad block=16", "quad block=32", "raster", "plain"])

    def test_a_single_configuration_names_its_parameters_or_its_kernel(self):
        d = data_of([])
        self.assertEqual(d.label(rec("k", "block=16 outputs=4", 64, 1.0), []), "block=16 outputs=4")
        self.assertEqual(d.label(rec("k", "", 64, 1.0), []), "k")

    def test_fifty_lines_have_fifty_styles(self):
        styles = {(s["color"], s["marker"], s["linestyle"]) for s in map(report.line_style, range(50))}
        self.assertEqual(len(styles), 50)

    def test_tflops_once_gflops_ticks_get_long(self):
        self.assertEqual(report.flops_unit([9.0, 5000.0]), ("GFLOPS", 1.0))
        self.assertEqual(report.flops_unit([9.0, 757000.0]), ("TFLOPS", 1e-3))


class PeaksTest(unittest.TestCase):
    def test_the_keys_gemmlab_peak_writes(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "peaks.json")
            with open(p, "w") as f:
                json.dump({"peaks": {"fp32_tflops": 66.6, "mma_bf16_tflops": 666.5, "datasheet_bf16_tflops": 989.0,
                                     "dram_gbs": 2834.9, "theoretical_fp32_tflops": 66.9}}, f)
            peaks = report.load_peaks(p, [])
            self.assertEqual([n for n, _ in peaks["compute"]], ["FP32", "BF16 mma.sync, measured", "BF16 datasheet"])
            self.assertEqual([t for _, t in peaks["compute"]], [66.6, 666.5, 989.0])

    def test_file_then_context_then_none(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "peaks.json")
            with open(p, "w") as f:
                json.dump({"peaks": {"fp32_tflops": 50, "bf16_tflops": 800, "dram_gbs": 3000}}, f)
            peaks = report.load_peaks(p, [])
            self.assertEqual(peaks["dram_gbs"], 3000)
            self.assertEqual([n for n, _ in peaks["compute"]], ["FP32", "BF16"])
            with open(p, "w") as f:
                json.dump({"fp32_tflops": 50}, f)
            with self.assertRaises(report.ReportError):
                report.load_peaks(p, [])
        src = report.Source("x.json", {"theoretical_fp32_tflops": 60.0, "theoretical_dram_gbs": 3350.0}, [])
        self.assertEqual(report.load_peaks(None, [src])["source"], "theoretical")
        self.assertIsNone(report.load_peaks(None, [report.Source("x.csv", None, [])]))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


class ManyKernelsTest(unittest.TestCase):
    """A sweep of many kernels (SYNTHETIC times): the overview is split so that it stays readable."""

    def test_overview_per_precision_and_at_the_largest_size(self):
        records = []
        for n in (256, 512, 1024):
            records.append(rec("cublas.fp32", "", n, 1.0, family="baseline"))
            records.append(rec("cublas.bf16", "", n, 0.1, family="baseline", precision="bf16"))
            for i in range(12):
                records.append(rec(f"f{i}", "", n, 2.0 + i))
            for i in range(3):
                records.append(rec(f"t{i}", "", n, 0.2 + i, precision="bf16"))
        records.append(rec("slow", "", 256, 50.0))
        records.append({"kernel": "slow", "precision": "fp32", "m": 1024, "n": 1024, "k": 1024, "status": "skipped",
                        "reason": "slow by design"})
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "many.json")
            with open(src, "w") as f:
                json.dump({"context": {"device": "Synthetic", "date": "2001-02-03T00:00:00Z", "theoretical_fp32_tflops": 60.0,
                                       "theoretical_dram_gbs": 3000.0}, "results": records}, f)
            out = os.path.join(d, "report")
            with open(os.devnull, "w") as quiet:
                stdout, sys.stdout = sys.stdout, quiet
                try:
                    status = report.main([src, "-o", out])
                finally:
                    sys.stdout = stdout
            self.assertEqual(status, 0)
            pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
            for p in ("overview.png", "overview_fp32.png", "overview_bf16.png", "roofline.png", "gflops_slow.png"):
                self.assertIn(p, pngs)
            for p in pngs:
                self.assertEqual(png_size(os.path.join(out, p)), (800, 500), p)
            with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
                md = f.read()
            self.assertIn("## All kernels at the largest size", md)
            self.assertIn("(overview_bf16.png)", md)


class DocTest(unittest.TestCase):
    def test_markdown_escapes_and_html_is_escaped(self):
        doc = report.Doc()
        doc.h(1, "T <1>")
        doc.table(["a|b", "c"], [["x|y", 1]])
        md = doc.markdown()
        self.assertIn("a\\|b", md)
        self.assertIn("x\\|y", md)
        html = doc.html(".", "T")
        self.assertIn("T &lt;1&gt;", html)

    def test_cells(self):
        self.assertEqual(report.check_cell(rec("a", "", 1, 1.0, kernel_rel_error=2e-7)), "ok (2.0e-07)")
        self.assertEqual(report.check_cell({"status": "skipped", "reason": "r"}), "skipped: r")
        self.assertTrue(report.check_cell({"status": "verification-failed", "kernel_nonfinite": 3}).startswith("FAIL"))
        self.assertEqual(report.fmt_percent(0.5), "50.0%")
        self.assertEqual(report.fmt_percent(0.0001), "0.01%")
        self.assertEqual(report.fmt_percent(None), "-")


if __name__ == "__main__":
    unittest.main()
