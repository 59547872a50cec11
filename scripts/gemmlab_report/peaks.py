"""The roofs of the roofline: measured peaks (--peaks), the context's theoretical FP32 peak, and
NVIDIA's datasheet figures for the precisions nothing else covers.

The peaks file is JSON with the values at the top level or under "peaks" (what `gemmlab peak
--json` writes, src/analysis/peak.*, src/analysis/roofline.cpp): <precision>_tflops,
mma_<precision>_tflops (the mma.sync microbenchmark), datasheet_<precision>_tflops, dram_gbs.
"""


from .errors import ReportError
from .loading import read_json
from .style import PRECISIONS, number

# Dense tensor-core rates from NVIDIA's datasheets, as src/analysis/gpu_specs.cpp has them (BF16
# and FP16 at the same rate, TF32 at half of it, FP8 at twice it), FP32 on the CUDA cores, and
# the memory bandwidth. Used only where no measured or theoretical roof exists, and labelled so.
_SXM = {"fp32": 66.9, "tf32": 494.5, "bf16": 989.0, "fp16": 989.0, "fp8": 1979.0}
DATASHEETS = {
    "H100 PCIe": dict(fp32=51.2, tf32=378.0, bf16=756.0, fp16=756.0, fp8=1513.0, dram_gbs=2000.0),
    "H100 SXM5": dict(_SXM, dram_gbs=3350.0),
    "H200 SXM": dict(_SXM, dram_gbs=4800.0),
}


def datasheet_for(device):
    """(title, figures) of the datasheet for a device name ("NVIDIA H100 80GB HBM3"), or None."""
    name = str(device or "").upper()
    if "H100" in name:
        key = "H100 PCIe" if "PCIE" in name else "H100 SXM5"
    elif "H200" in name:
        key = "H200 SXM"
    else:
        return None
    return f"{key} datasheet", DATASHEETS[key]


def load_peaks(path, sources):
    """{"source", "dram_gbs", "compute": [(name, tflops), ...]} from --peaks FILE, else from the
    first context with theoretical peaks, else None."""
    if path:
        p = read_json(path, f"--peaks {path}")
        if isinstance(p, dict) and isinstance(p.get("peaks"), dict):
            p = p["peaks"]
        if not isinstance(p, dict):
            raise ReportError(f"--peaks {path}: expected an object like {{\"fp32_tflops\": 51.2, \"dram_gbs\": 3350}}")
        compute = []
        for prec in PRECISIONS:
            # <precision>_tflops as documented; mma_/datasheet_<precision>_tflops as `gemmlab peak --json`
            # writes them (the mma.sync rate it measures, and the datasheet's dense tensor-core rate).
            for key, name in ((f"{prec}_tflops", prec.upper()),
                              (f"mma_{prec}_tflops", f"{prec.upper()} mma.sync, measured"),
                              (f"datasheet_{prec}_tflops", f"{prec.upper()} datasheet")):
                v = number(p.get(key))
                if v is not None and v > 0:
                    compute.append((name, v))
        bw = number(p.get("dram_gbs"))
        if not compute or bw is None or bw <= 0:
            raise ReportError(f"--peaks {path}: needs dram_gbs and at least one of "
                              + ", ".join(f"{x}_tflops" for x in PRECISIONS))
        default = "measured by gemmlab peak" if "mma_bf16_tflops" in p or "memcpy_gbs" in p else "the peaks file"
        return {"source": str(p.get("source", default)), "dram_gbs": bw, "compute": compute}
    for s in sources:
        c = s.context or {}
        t, bw = number(c.get("theoretical_fp32_tflops")), number(c.get("theoretical_dram_gbs"))
        if t and t > 0 and bw and bw > 0:
            return {"source": "theoretical", "dram_gbs": bw, "compute": [("FP32 (CUDA cores)", t)]}
    return None


class Roof:
    def __init__(self, precision, tflops, label, kind):
        self.precision, self.tflops, self.label, self.kind = precision, tflops, label, kind


def roofs(peaks, precisions, device):
    """The compute roofs to draw: those the peaks give for the precisions in the data, then for
    each precision in the data that has none, the datasheet's (when the device is one of DATASHEETS). kind is 'measured',
    'datasheet' or 'theoretical': the plot draws them solid, dashed and dotted."""
    out = []
    for name, tflops in peaks["compute"]:
        prec = name.split()[0].lower()
        if prec not in precisions:
            continue  # a roof no point of the data can reach tells nothing
        if "datasheet" in name:
            kind = "datasheet"
        elif peaks["source"] == "theoretical":
            kind = "theoretical"
        else:
            kind = "measured"
        out.append(Roof(prec, tflops, f"{name}: {tflops:.1f} TFLOPS", kind))
    sheet = datasheet_for(device)
    missing = [p for p in precisions if p in PRECISIONS and not any(r.precision == p for r in out)]
    if sheet:
        title, figures = sheet
        for p in missing:
            out.append(Roof(p, figures[p], f"{p.upper()} {title} (dense, not measured): {figures[p]:.1f} TFLOPS",
                            "datasheet"))
        missing = []
    return out, missing
