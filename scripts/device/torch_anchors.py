#!/usr/bin/env python3
"""PyTorch's figures for the cases of `gemmlab bench` that the API issue names a torch anchor for.

Run on the GPU machine next to `gemmlab bench` (same call, same GPU): torch.bmm for the strided
batched cases, torch._grouped_mm for the grouped ones (the same uneven group sizes as the bench),
and cuBLASLt's fused bias + GELU through torch._addmm_activation against a plain matmul. CUDA events
around each run after warm-up, median of the runs, random inputs (never zeros). Prints a table and
writes JSON to the path given as the first argument (optional).
"""
import json
import math
import sys

import torch


def uneven_ends(groups, total):
    """Cumulative group ends: the same sequence as uneven_groups() in src/cli/cmd_bench.cpp."""
    w = []
    for i in range(groups):
        x = (i + 1) * 0.6180339887498949
        w.append(0.33 + 1.67 * (x - math.floor(x)))
    s, run, ends = sum(w), 0.0, []
    for i in range(groups):
        run += w[i]
        ends.append(total if i + 1 == groups else int(math.floor(run / s * total + 0.5)))
    return ends


def median_ms(fn, iters=30, warmup=3, flush=None):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        if flush is not None:
            flush.sum()  # a read: evicts the operands and leaves no dirty line (src/harness/l2_flush.hpp)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    dev = torch.device("cuda")
    torch.manual_seed(1)
    bf16 = torch.bfloat16
    rows = []
    flush = torch.zeros(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4 + 1, dtype=torch.float32, device=dev)
    flush.sum(), flush.sum()  # the zeros' written lines evicted before the first timed run

    for batch, n in ((256, 128), (1024, 64)):
        a = torch.rand(batch, n, n, device=dev, dtype=bf16) * 2 - 1
        b = torch.rand(batch, n, n, device=dev, dtype=bf16) * 2 - 1
        ms = median_ms(lambda: torch.bmm(a, b))
        rows.append(("batched", f"bf16 {batch} x {n}^3", "torch.bmm", ms, 2.0 * batch * n ** 3))

    for groups, total, n, k, cold in ((8, 16384, 4096, 7168, False), (64, 8192, 2048, 7168, True)):
        ends = uneven_ends(groups, total)
        a = torch.rand(total, k, device=dev, dtype=bf16) * 2 - 1
        b = (torch.rand(groups, k, n, device=dev, dtype=bf16) * 2 - 1).transpose(-2, -1).contiguous().transpose(-2, -1)
        offs = torch.tensor(ends, device=dev, dtype=torch.int32)
        try:
            ms = median_ms(lambda: torch._grouped_mm(a, b, offs=offs), flush=flush if cold else None)
        except (RuntimeError, AttributeError) as e:
            print(f"torch._grouped_mm failed: {e}")
            continue
        rows.append(("grouped", f"bf16 {groups} groups, {total} rows, N={n} K={k}{' (L2 flushed)' if cold else ''}",
                     "torch._grouped_mm", ms, 2.0 * total * n * k))

    m = 4096
    a = torch.rand(m, m, device=dev, dtype=bf16) * 2 - 1
    b = torch.rand(m, m, device=dev, dtype=bf16) * 2 - 1
    bias = torch.rand(m, device=dev, dtype=bf16) * 2 - 1
    plain = median_ms(lambda: torch.matmul(a, b))
    fused = median_ms(lambda: torch._addmm_activation(bias, a, b, use_gelu=True))
    rows.append(("epilogue", f"bf16 {m}^3 plain", "torch.matmul", plain, 2.0 * m ** 3))
    rows.append(("epilogue", f"bf16 {m}^3 bias+gelu", "torch._addmm_activation(use_gelu)", fused, 2.0 * m ** 3))

    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    for suite, case, what, ms, flops in rows:
        print(f"  {suite:<9} {case:<48} {what:<34} {ms:9.4f} ms  {flops / ms / 1e9:8.1f} TFLOPS")
    print(f"  torch fused bias+GELU costs {100 * (fused / plain - 1):+.1f}% ({fused:.4f} against {plain:.4f} ms)")
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                       "records": [{"suite": s, "case": c, "call": w, "median_ms": ms, "flops": fl}
                                   for s, c, w, ms, fl in rows]}, f, indent=1)


if __name__ == "__main__":
    main()
