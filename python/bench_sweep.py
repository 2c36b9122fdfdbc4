"""Times hopgemm.matmul against torch.matmul over a sweep file (the format of
shared/bench/sweep.txt: `m n k layout dtype [beta]` a line), each product
with operands laid out as its layout says (time per call over --repeat calls
back to back, the median of 5 such runs, after warm-up), and prints a CSV: product, both times, the ratio.
A product with beta != 0 is timed as its plain product (the Python API has
no beta), which the note column says. The C tool (hopgemm-bench) is the
yardstick; this shows what a PyTorch user gets.

    python3 python/bench_sweep.py SWEEP_FILE [--repeat 30] [--csv out.csv]
"""
import argparse
import csv
import statistics
import sys

import torch

import hopgemm

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def operands(m, n, k, layout, dtype):
    """A (m x k) and B (k x n) as the layout lays them out: first letter A,
    second B; T is row-major A / a transposed view for B, as in DESIGN.md."""
    a = torch.rand(m, k, device="cuda", dtype=dtype) * 2 - 1
    b = torch.rand(k, n, device="cuda", dtype=dtype) * 2 - 1
    if layout[0] == "N":
        a = a.t().contiguous().t()
    if layout[1] == "N":
        b = b.t().contiguous().t()
    return a, b


def time_ms(fn, repeat, warmup=5, batches=5):
    """Milliseconds per call: `repeat` calls back to back between two events
    (the host's per-call work hides behind the GPU's where it is shorter, as
    in a model's forward pass), the median of `batches` such runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeat):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / repeat)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweep")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--csv")
    args = ap.parse_args()
    rows = []
    lines = [ln.split() for ln in open(args.sweep) if ln.strip() and not ln.lstrip().startswith("#")]
    for i, f in enumerate(lines):
        m, n, k, layout, dt = int(f[0]), int(f[1]), int(f[2]), f[3], f[4]
        beta = float(f[5]) if len(f) > 5 else 0.0
        a, b = operands(m, n, k, layout, DTYPES[dt])
        t_hg = time_ms(lambda: hopgemm.matmul(a, b), args.repeat)
        t_torch = time_ms(lambda: torch.matmul(a, b), args.repeat)
        row = {"m": m, "n": n, "k": k, "layout": layout, "dtype": dt, "hopgemm_ms": f"{t_hg:.4f}",
               "torch_ms": f"{t_torch:.4f}", "torch_over_hopgemm": f"{t_torch / t_hg:.3f}",
               "note": f"beta {beta:g} timed as beta 0" if beta else ""}
        rows.append(row)
        print(f"[{i + 1}/{len(lines)}] {m}x{n}x{k} {layout} {dt}: hopgemm {t_hg:.4f} ms, torch {t_torch:.4f} ms",
              file=sys.stderr)
        del a, b
    out = open(args.csv, "w", newline="") if args.csv else sys.stdout
    w = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
    ratios = [float(r["torch_over_hopgemm"]) for r in rows]
    print(f"geomean torch/hopgemm: {statistics.geometric_mean(ratios):.3f} over {len(rows)} products",
          file=sys.stderr)


if __name__ == "__main__":
    main()
