#!/usr/bin/env python3
"""Draws hopgemm-bench CSVs as an SVG chart: one bar per product, the chosen
kernel's ratio to cuBLAS-best (the CSV's `ratio` column; above 1 is faster),
with lines at 1.00 and 0.90 and the geomean in the title.

    tools/plot.py bench/results/FILE.csv [...] -o docs/sweep.svg [--kernel auto]

Needs matplotlib (optional: nothing else in the project does); says so and
exits 2 without it. Rows of other kernels are ignored; a product measured
twice keeps its last row.
"""
import argparse
import csv
import math
import sys


def load(paths, kernel):
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r.get("kernel") != kernel or not r.get("ratio"):
                    continue
                key = (int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["dtype"], float(r.get("beta") or 0))
                rows[key] = float(r["ratio"])
    return rows


def label(key):
    m, n, k, layout, dtype, beta = key
    return f"{m}x{n}x{k} {layout} {dtype}" + (f" b={beta:g}" if beta else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--out", required=True, help="the SVG to write")
    ap.add_argument("--kernel", default="auto", help="whose ratio to draw (default: auto)")
    args = ap.parse_args()
    rows = load(args.csv, args.kernel)
    if not rows:
        sys.exit(f"plot.py: no rows of kernel '{args.kernel}' with a ratio in {', '.join(args.csv)}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: needs matplotlib (pip install matplotlib); nothing drawn", file=sys.stderr)
        sys.exit(2)
    keys = list(rows)
    ratios = [rows[k] for k in keys]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    fig, ax = plt.subplots(figsize=(max(8, 0.28 * len(keys)), 5))
    colors = ["#2a7" if r >= 1.0 else "#e90" if r >= 0.9 else "#c33" for r in ratios]
    ax.bar(range(len(keys)), ratios, color=colors)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.9, color="gray", linewidth=0.6, linestyle="--")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([label(k) for k in keys], rotation=90, fontsize=7)
    ax.set_ylabel("cuBLAS-best ms / hopgemm ms")
    ax.set_title(f"{args.kernel} against cuBLAS-best: geomean {geo:.3f} over {len(keys)} products")
    fig.tight_layout()
    fig.savefig(args.out, format="svg")
    print(f"plot.py: {args.out}: {len(keys)} products, geomean {geo:.3f}")


if __name__ == "__main__":
    main()
