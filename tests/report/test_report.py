"""Unit tests of the report package's pure functions, scripts/gemmlab_report (run by CTest:
report_script_unittests).

The records here are hand-made and SYNTHETIC; no number in them is a measurement."""

import json
import os
import sys
import tempfile
import unittest

SCRIPTS = os.environ.get("GEMMLAB_SCRIPTS_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, os.path.abspath(SCRIPTS))

from gemmlab_report import cli, loading, model, page, style  # noqa: E402
from gemmlab_report import peaks as peaks_mod  # noqa: E402
from gemmlab_report.errors import ReportError  # noqa: E402


def rec(kernel, params, n, ms, **extra):
    r = {"kernel": kernel, "params": params, "precision": "fp32", "output": "f32", "m": n, "n": n, "k": n,
         "l2": "hot", "init": "uniform", "status": "ok", "time_median_ms": ms, "family": "x", "_src": 0}
    r.update(extra)
    return r


class ReadingTest(unittest.TestCase):
    def test_csv_cells_are_typed_back(self):
        self.assertIs(loading.typed_cell("true"), True)
        self.assertEqual(loading.typed_cell("1024"), 1024)
        self.assertEqual(loading.typed_cell("2.5e-07"), 2.5e-07)
        self.assertEqual(loading.typed_cell("block=16"), "block=16")

    def test_json_and_csv_files(self):
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "r.json")
            with open(j, "w") as f:
                json.dump({"context": {"device": "X", "date": "2001-02-03T00:00:00Z"}, "results": [rec("a", "", 64, 1.0)]}, f)
            ctx, recs = loading.load_results(j)
            self.assertEqual(ctx["device"], "X")
            self.assertEqual(len(recs), 1)
            c = os.path.join(d, "r.csv")
            with open(c, "w") as f:
                f.write("kernel,params,m,n,k,time_median_ms,status,reason\n"
                        'a,block=16,64,64,64,0.5,ok,\nb,,64,64,64,,skipped,"x, y"\n')
            ctx, recs = loading.load_results(c)
            self.assertIsNone(ctx)
            self.assertEqual(recs[0]["m"], 64)
            self.assertEqual(recs[1]["reason"], "x, y")
            self.assertNotIn("time_median_ms", recs[1])
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write("[1, 2]")
            with self.assertRaises(ReportError):
                loading.load_results(bad)
            with self.assertRaises(ReportError):
                loading.load_results(os.path.join(d, "missing.json"))


class ArithmeticTest(unittest.TestCase):
    def test_intensity_counts_minimum_traffic_in_storage_types(self):
        r = rec("a", "", 1024, 1.0)
        self.assertAlmostEqual(model.arithmetic_intensity(r), 2 * 1024 ** 3 / (3 * 1024 ** 2 * 4))
        r = rec("a", "", 1024, 1.0, precision="bf16", output="bf16")
        self.assertAlmostEqual(model.arithmetic_intensity(r), 2 * 1024 ** 3 / (3 * 1024 ** 2 * 2))
        r = rec("a", "", 1024, 1.0, beta=1.0)  # C is read too
        self.assertAlmostEqual(model.arithmetic_intensity(r), 2 * 1024 ** 3 / (4 * 1024 ** 2 * 4))

    def test_gflops_from_time_when_the_field_is_missing(self):
        self.assertAlmostEqual(model.gflops(rec("a", "", 1000, 2.0)), 2e9 / 2e-3 / 1e9)
        self.assertEqual(model.gflops(rec("a", "", 1000, 2.0, gflops=5.0)), 5.0)

    def test_params(self):
        self.assertEqual(model.parse_params("block=16 outputs=4"), {"block": 16, "outputs": 4})
        self.assertEqual(model.parse_params(""), {})


def data_of(records, context=None):
    return model.Data([loading.Source("f.json", context or {"device": "D", "date": "2001-02-03"}, records)])


class SpeedupTest(unittest.TestCase):
    def test_same_block_is_compared_like_seed_004(self):
        records = [rec("sample", "block=16", 1024, 2.0), rec("sample", "block=32", 1024, 1.0),
                   rec("quad", "block=16 outputs=4", 1024, 1.0), rec("quad", "block=32 outputs=4", 1024, 0.5),
                   rec("other", "", 1024, 0.25)]
        series = model.speedup_rows(data_of(records), "sample")
        by_label = {k: v[0][1] for k, v in series.items()}
        self.assertEqual(by_label["quad block=16 outputs=4"], 2.0)  # 2.0 / 1.0: the block=16 sample
        self.assertEqual(by_label["quad block=32 outputs=4"], 2.0)  # 1.0 / 0.5: the block=32 sample
        self.assertEqual(by_label["other"], 4.0)  # no shared parameter: the fastest sample
        with self.assertRaises(ReportError):
            model.speedup_rows(data_of(records), "nope")

    def test_only_the_baselines_precision_is_compared(self):
        records = [rec("sample", "", 1024, 2.0), rec("fast", "", 1024, 1.0),
                   rec("tensor", "", 1024, 0.1, precision="bf16")]
        self.assertEqual(list(model.speedup_rows(data_of(records), "sample")), ["fast"])

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
        styles = {(s["color"], s["marker"], s["linestyle"]) for s in map(style.line_style, range(50))}
        self.assertEqual(len(styles), 50)

    def test_one_unit_tflops_in_plots_and_tables(self):
        self.assertAlmostEqual(model.tflops(rec("a", "", 1000, 2.0)), 1.0)
        self.assertEqual(style.fmt_tflops(757.3), "757")
        self.assertEqual(style.fmt_tflops(52.46), "52.5")
        self.assertEqual(style.fmt_tflops(5.0), "5.00")
        self.assertEqual(style.fmt_tflops(0.00912), "0.0091")
        self.assertEqual(style.fmt_tflops(None), "-")


class PeaksTest(unittest.TestCase):
    def test_the_keys_gemmlab_peak_writes(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "peaks.json")
            with open(p, "w") as f:
                json.dump({"peaks": {"fp32_tflops": 66.6, "mma_bf16_tflops": 666.5, "datasheet_bf16_tflops": 989.0,
                                     "dram_gbs": 2834.9, "theoretical_fp32_tflops": 66.9}}, f)
            peaks = peaks_mod.load_peaks(p, [])
            self.assertEqual([n for n, _ in peaks["compute"]], ["FP32", "BF16 mma.sync, measured", "BF16 datasheet"])
            self.assertEqual([t for _, t in peaks["compute"]], [66.6, 666.5, 989.0])

    def test_file_then_context_then_none(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "peaks.json")
            with open(p, "w") as f:
                json.dump({"peaks": {"fp32_tflops": 50, "bf16_tflops": 800, "dram_gbs": 3000}}, f)
            peaks = peaks_mod.load_peaks(p, [])
            self.assertEqual(peaks["dram_gbs"], 3000)
            self.assertEqual([n for n, _ in peaks["compute"]], ["FP32", "BF16"])
            with open(p, "w") as f:
                json.dump({"fp32_tflops": 50}, f)
            with self.assertRaises(ReportError):
                peaks_mod.load_peaks(p, [])
        src = loading.Source("x.json", {"theoretical_fp32_tflops": 60.0, "theoretical_dram_gbs": 3350.0}, [])
        self.assertEqual(peaks_mod.load_peaks(None, [src])["source"], "theoretical")
        self.assertIsNone(peaks_mod.load_peaks(None, [loading.Source("x.csv", None, [])]))


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
                    status = cli.main([src, "-o", out])
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


def quiet_main(argv):
    """cli.main with stdout and stderr captured: (status, stderr text)."""
    import io
    err = io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), err
    try:
        status = cli.main(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    return status, err.getvalue()


def write_results(d, name, records, context=None):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump({"context": context or {"device": "Synthetic", "date": "2001-02-03T00:00:00Z"}, "results": records}, f)
    return path


def transfer_rec(n, mode, total, **phases):
    """A record in the layout src/transfer/report.cpp writes (SYNTHETIC times)."""
    r = {"record": "transfer", "kernel": "k", "params": "block=32", "precision": "fp32", "host_mode": mode,
         "m": n, "n": n, "k": n, "status": "ok", "total_median_ms": total, "time_median_ms": total,
         "window_median_ms": phases.pop("window", None), "kernel_verified": True, "kernel_rel_error": 1e-7}
    for key, v in phases.items():
        r[f"{key}_median_ms"] = v
    return r


class TransferTest(unittest.TestCase):
    def records(self):
        seq = dict(host_alloc=0.1, device_alloc=0.2, copy_ab=1.0, kernel=2.0, copy_c=0.5, sync=0.01,
                   device_free=0.1, host_free=0.05)
        out = []
        for n in (1024, 2048):
            for mode in ("overlapped", "pinned", "pageable", "pinned-c"):  # not in the documented order
                if mode == "overlapped":
                    out.append(transfer_rec(n, mode, 3.0, window=2.5, **seq))
                else:
                    out.append(transfer_rec(n, mode, 4.0, **seq))
        return out

    def test_one_bar_per_size_and_mode_from_the_writers_fields(self):
        from gemmlab_report.transfers import transfer_bars
        bars = transfer_bars(self.records())
        self.assertEqual([b.name for b in bars[:4]], ["pageable 1024x1024x1024", "pinned-c 1024x1024x1024",
                                                      "pinned 1024x1024x1024", "overlapped 1024x1024x1024"])
        self.assertEqual(len(bars), 8)
        pinned = bars[2]
        self.assertEqual(list(pinned.segments)[:5], ["host_alloc", "device_alloc", "copy_ab", "kernel", "copy_c"])
        self.assertEqual(pinned.segments["copy_ab"], ("Memcpy AB", 1.0))
        # every bar is as tall as the measured total: what the phases leave is its own segment
        self.assertAlmostEqual(sum(v for _, v in pinned.segments.values()), 4.0)
        overlapped = bars[3]
        self.assertIn("window", overlapped.segments)
        self.assertNotIn("copy_ab", overlapped.segments)  # its copies overlap the kernel: not stacked
        self.assertAlmostEqual(sum(v for _, v in overlapped.segments.values()), 3.0)

    def test_the_report_draws_modes_apart(self):
        with tempfile.TemporaryDirectory() as d:
            src = write_results(d, "t.json", self.records())
            out = os.path.join(d, "r")
            status, err = quiet_main([src, "-o", out])
            self.assertEqual(status, 0, err)
            with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
                md = f.read()
            for mode in ("pageable", "pinned-c", "pinned", "overlapped"):
                self.assertEqual(md.count(f"| {mode} 2048x2048x2048 |"), 2, mode)  # breakdown and end-to-end tables
            self.assertIn("transfer_end_to_end.png", md)
            self.assertIn("transfer_1.png", md)
            self.assertNotIn("gflops_k.png", md)  # transfer records are not drawn as GEMM kernels


class RobustnessTest(unittest.TestCase):
    def test_link_json_gives_a_page(self):
        recs = [{"record": "link", "bytes": b, "direction": d, "host_memory": h, "gbs": g, "runs": 20,
                 "time_median_ms": b / g / 1e6}
                for b, g in ((65536, 10.0), (1 << 20, 40.0)) for d in ("H2D", "D2H") for h in ("pinned", "pageable")]
        with tempfile.TemporaryDirectory() as d:
            src = write_results(d, "link.json", recs, {"device": "Synthetic", "date": "2001-02-03",
                                                       "theoretical_fp32_tflops": 60.0, "theoretical_dram_gbs": 3000.0,
                                                       "link_peak": {"h2d_gbs": 40.0, "d2h_gbs": 41.0}})
            status, err = quiet_main([src, "-o", os.path.join(d, "r")])
            self.assertEqual(status, 0, err)
            self.assertTrue(os.path.exists(os.path.join(d, "r", "link.png")))
            self.assertFalse(os.path.exists(os.path.join(d, "r", "roofline.png")))

    def test_odd_records_give_a_page_and_bad_files_one_line(self):
        odd = [{"kernel": "a", "m": 0, "n": 64, "k": 64, "time_median_ms": 1.0},
               {"kernel": "b", "m": "64", "n": None, "k": 64, "time_median_ms": "fast", "status": "ok"},
               {"kernel": "c", "m": 64, "n": 64, "k": 64, "time_median_ms": 0.0, "gflops": float("inf")},
               {"note": "no kernel at all"}, {"kernel": "d", "m": 64, "n": 64, "k": 64, "time_median_ms": 0.5,
                                              "precision": "fp64", "beta": "x"}]
        with tempfile.TemporaryDirectory() as d:
            status, err = quiet_main([write_results(d, "odd.json", odd), "-o", os.path.join(d, "r")])
            self.assertEqual(status, 0, err)
            with open(os.path.join(d, "r", "report.md"), encoding="utf-8") as f:
                self.assertIn("Other records", f.read())
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write('{"hello": 1}')
            status, err = quiet_main([bad, "-o", os.path.join(d, "r2")])
            self.assertEqual(status, 1)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn("not a gemmlab results file", err)
            self.assertNotIn("Traceback", err)


def bench_rec(case, ms, anchor_ms, suite="shapes", **extra):
    """A record in the layout `gemmlab bench --json` writes (src/cli/cmd_bench.cpp; SYNTHETIC times)."""
    r = {"suite": suite, "case": case, "plan": "sm90.bf16.bf16 tile=128x128", "median_ms": ms, "p10_ms": ms * 0.9,
         "p90_ms": ms * 1.1, "anchor": "cublasGemmEx", "anchor_median_ms": anchor_ms, "ratio_to_anchor": anchor_ms / ms,
         "flops": 2.0 * 1024 ** 3, "min_bytes": 6.0 * 1024 ** 2, "passed": True, "anchor_passed": True,
         "timing_order": "interleaved", "l2_flushed": False}
    r.update(extra)
    return r


class BenchTest(unittest.TestCase):
    def test_kind_status_and_timing(self):
        r = bench_rec("bf16 1024x1024x1024 square", 0.01, 0.008)
        self.assertEqual(loading.record_kind(r), "bench")
        self.assertEqual(model.status(r), "ok")
        self.assertEqual(model.status(dict(r, passed=False)), "verification-failed")
        self.assertIn("timed alternately", loading.timing_description([r]))

    def test_cases_per_suite_with_plots_and_a_summary(self):
        recs = [bench_rec(f"bf16 {n}x{n}x{n} square", 1.0, 0.5 * (1 + i % 2)) for i, n in enumerate(range(64, 64 * 26, 64))]
        recs += [bench_rec("fp32 4096^3", 2.0, 2.0, suite="squares"),
                 bench_rec("bf16 256 x 128^3", 0.01, 0.009, suite="batched", passed=False)]
        with tempfile.TemporaryDirectory() as d:
            status, err = quiet_main([write_results(d, "bench.json", recs), "-o", os.path.join(d, "r")])
            self.assertEqual(status, 0, err)
            with open(os.path.join(d, "r", "report.md"), encoding="utf-8") as f:
                md = f.read()
            self.assertIn("## Library against its anchor (gemmlab bench)", md)
            for suite in ("shapes", "squares", "batched"):
                self.assertIn(f"### {suite}", md)
            self.assertNotIn("Other records", md)
            self.assertIn("| bf16 | 25 | 69.7% | 50.0% | bf16 64x64x64 square | 13 |", md)  # 0.5 ** (13 / 25)
            self.assertIn("FAIL (gemmlab)", md)
            self.assertIn("1 verification-failed", md)
            # 25 shapes: two plots of at most 20 cases, then one per small suite
            self.assertEqual(sorted(f for f in os.listdir(os.path.join(d, "r")) if f.endswith(".png")),
                             [f"bench_{i}.png" for i in range(1, 5)])


class AxisTest(unittest.TestCase):
    def test_square_one_dimension_and_suite(self):
        self.assertEqual(model.Axis([(64, 64, 64), (128, 128, 128)]).kind, "square")
        a = model.Axis([(4096, 4096, 256), (4096, 4096, 512)])
        self.assertEqual((a.kind, a.x((4096, 4096, 512))), ("dim", 512.0))
        self.assertIn("K (M = 4096, N = 4096)", a.label())
        s = model.Axis([(4096, 4096, 1024), (1000, 1000, 1000), (8192, 1024, 8192)])
        self.assertTrue(s.bars)
        self.assertEqual(s.x((1000, 1000, 1000)), 1.0)  # the order of the files


class PairedCublasTest(unittest.TestCase):
    def test_interleaved_records_give_a_cublas_line(self):
        records = [rec("k1", "", 512, 2.0, cublas_kernel="cublas.fp32", cublas_time_median_ms=1.0, ratio_to_cublas=0.5),
                   rec("k2", "", 512, 1.0, cublas_kernel="cublas.fp32", cublas_time_median_ms=1.2, ratio_to_cublas=1.2),
                   rec("k3", "", 512, 1.0, cublas_kernel="cublas.fp32", cublas_time_median_ms=1.1, ratio_to_cublas=1.1)]
        d = data_of(records)
        made = [r for r in d.measured if model.is_baseline(r)]
        self.assertEqual(len(made), 1)
        self.assertEqual((made[0]["kernel"], made[0]["time_median_ms"], made[0]["_paired"]), ("cublas.fp32", 1.1, 3))
        self.assertEqual(d.ratio_to_cublas(records[0]), 0.5)  # the pair's own ratio, not the median's
        # a file with its own cuBLAS record gets none made up
        d = data_of(records + [rec("cublas.fp32", "", 512, 1.0, family="baseline")])
        self.assertEqual(len([r for r in d.measured if model.is_baseline(r)]), 1)


class RoofsTest(unittest.TestCase):
    def test_datasheet_roofs_for_the_precisions_present(self):
        theoretical = {"source": "theoretical", "dram_gbs": 3352.0, "compute": [("FP32 (CUDA cores)", 66.9)]}
        roofs, missing = peaks_mod.roofs(theoretical, ["fp32", "bf16", "tf32"], "NVIDIA H100 80GB HBM3")
        by = {r.precision: r for r in roofs}
        self.assertEqual((by["bf16"].tflops, by["bf16"].kind), (989.0, "datasheet"))
        self.assertEqual(by["tf32"].tflops, 494.5)
        self.assertIn("datasheet", by["bf16"].label)
        self.assertEqual(by["fp32"].kind, "theoretical")
        self.assertEqual(missing, [])
        # only the precisions present; another GPU gets no made-up roof, and says so
        roofs, missing = peaks_mod.roofs(theoretical, ["bf16"], "Some other GPU")
        self.assertEqual((roofs, missing), ([], ["bf16"]))


class StyleTest(unittest.TestCase):
    def test_precision_colours_are_fixed(self):
        self.assertEqual(style.precision_color("fp32"), "#1f77b4")
        self.assertEqual(style.precision_color("bf16"), "#2ca02c")
        self.assertEqual(style.line_style(0, style.precision_color("bf16"))["color"], "#2ca02c")
        self.assertEqual(style.cublas_style()["linestyle"], "--")

    def test_formats(self):
        self.assertEqual(style.fmt(2.0, "ratio"), "2.00x")
        self.assertEqual(style.fmt(1 << 20, "bytes"), "1 MiB")
        self.assertEqual(style.fmt(-0.5, "gain"), "-50.0%")
        self.assertEqual(style.fmt(float("nan"), "ms"), "-")
        # significant zeros kept, so that a column's figures line up: 0.40 beside 0.42
        self.assertEqual((style.fmt(0.4, "tflops"), style.fmt(0.0057, "ms")), ("0.40", "0.00570"))
        self.assertTrue(style.is_numeric_cell("98.4%"))
        self.assertTrue(style.is_numeric_cell("+61.0%"))
        self.assertFalse(style.is_numeric_cell("ok (2.5e-07)"))

    def test_timing_of_a_file(self):
        text = loading.timing_description([rec("a", "", 64, 1.0, iters=20, warmup=3, l2="cold",
                                               timing_order="interleaved")])
        self.assertIn("cold L2", text)
        self.assertIn("3 warm-up + 20 timed runs", text)
        self.assertIn("--interleave", text)
        self.assertEqual(loading.record_kind({"record": "link", "bytes": 1, "direction": "H2D"}), "link")
        self.assertEqual(loading.record_kind({"host_mode": "pinned", "kernel": "k"}), "transfer")


class DocTest(unittest.TestCase):
    def test_markdown_escapes_and_html_is_escaped(self):
        doc = page.Doc()
        doc.h(1, "T <1>")
        doc.table(["a|b", "c"], [["x|y", 1]])
        md = doc.markdown()
        self.assertIn("a\\|b", md)
        self.assertIn("x\\|y", md)
        html = doc.html(".", "T")
        self.assertIn("T &lt;1&gt;", html)

    def test_contents_anchors_and_details(self):
        doc = page.Doc()
        doc.h(1, "Title", toc=False)
        doc.contents()
        a = doc.h(2, "Speed-up over seed.shared")
        b = doc.h(2, "Speed-up over seed.shared")
        doc.details("Kernel x")
        doc.h(3, "inside")
        doc.table(["k", "ms"], [["x", "1.25"]])
        doc.end_details()
        self.assertEqual((a, b), ("speed-up-over-seedshared", "speed-up-over-seedshared-1"))  # as GitHub
        html = doc.html(".", "T")
        self.assertIn(f'<a href="#{a}">', html)
        self.assertIn(f'id="{b}"', html)
        self.assertNotIn('href="#inside"', html)  # headings inside collapsed detail stay out of the contents
        self.assertIn('<details id="kernel-x"><summary>Kernel x</summary>', html)
        self.assertIn('<td class="num">1.25</td>', html)
        self.assertIn(f"- [Speed-up over seed.shared](#{a})", doc.markdown())

    def test_code_breaks_between_words_only(self):
        doc = page.Doc()
        doc.p("command `gemmlab sweep --json s.json`.")
        self.assertIn('<code><span class="w">gemmlab</span> <span class="w">sweep</span> '
                      '<span class="w">--json</span> <span class="w">s.json</span></code>', doc.html(".", "T"))

    def test_cells(self):
        self.assertEqual(style.check_cell(rec("a", "", 1, 1.0, kernel_rel_error=2e-7)), "ok (2.0e-07)")
        self.assertEqual(style.check_cell({"status": "skipped", "reason": "r"}), "skipped: r")
        self.assertTrue(style.check_cell({"status": "verification-failed", "kernel_nonfinite": 3}).startswith("FAIL"))
        self.assertEqual(style.fmt_percent(0.5), "50.0%")
        self.assertEqual(style.fmt_percent(0.0001), "0.01%")
        self.assertEqual(style.fmt_percent(None), "-")


if __name__ == "__main__":
    unittest.main()
