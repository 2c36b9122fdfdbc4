#!/usr/bin/env python3
"""Checks AUTO's picks against what the tool measured (#12: hg_plan never picks a
configuration measured more than 5% slower than another one that could serve the
product). Reads hopgemm-bench CSVs that hold, per product, an `auto` row (its note
names the kernel AUTO ran) and rows of the other hopgemm kernels timed on the same
product (for example `--kernel auto,family`); kernels that cannot serve the
product have no time and are left out.

    tools/auto_check.py bench/results/FILE.csv [...] [--tolerance 0.05]
                        [--replan build/hopgemm-bench] [--since 2026-12-02]

With --replan, AUTO's pick is not the kernel the CSV's auto row ran but the one
the given tool's model picks now (`--plan`, no GPU needed), looked up among the
timed rows: a change to the model is checked against stored measurements before
it is timed again. A pick the CSV never timed is reported as unmeasured.

With --since DATE (YYYY-MM-DD), only rows measured on or after DATE count (the
CSV's date column): a kernel timed faster by an older build, or in one lucky
process long ago, is no bar for today's pick.

Prints one line per product: AUTO's kernel and time, the fastest kernel and
time, and AUTO's excess over it; marks the products where the excess passes the
tolerance, and exits 1 if any does (0 otherwise, 2 on unusable input). A product
measured in several files or runs keeps the fastest row of each kernel. Standard
library only.
"""
import argparse
import csv
import datetime
import subprocess
import sys

HG_PREFIXES = ("sm90_", "v", "generic")


def product_key(r):
    """A product and what the call asks of a kernel beyond it (an epilogue, the
    accumulation, C's type, a batch's shared or strided operands: not every
    kernel serves each, and they move other bytes), so rows of different calls
    are never compared; CSVs older than a column read as its default (a
    stride empty: packed)."""
    return (int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["dtype"], float(r.get("beta") or 0),
            r.get("lda"), r.get("ldb"), r.get("ldc"), int(r.get("batch") or 1), r.get("epilogue") or "none",
            r.get("compute") or "32f", r.get("c_type") or "inputs", r.get("share") or "none",
            r.get("stride_a") or "", r.get("stride_b") or "")


def load(paths, since=None):
    """{product: {"auto": (ms, kernel AUTO ran), kernel: ms, ...}}; with
    since, only the rows dated on or after it."""
    prods = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r.get("status") != "ok" or not r.get("ms"):
                    continue
                if since and (r.get("date") or "")[:10] < since:
                    continue
                # --stream-k off times whole tiles for every kernel, a plan
                # AUTO makes only for some (hg_internal.h): not comparable.
                # A scratch build's timings (a mechanism measured and not
                # kept) are not the registered kernels' either.
                if any(s in (r.get("note") or "") for s in ("whole tiles", "experiment build")):
                    continue
                ms = float(r["ms"])
                p = prods.setdefault(product_key(r), {})
                name = r["kernel"]
                if name == "auto":
                    note = r.get("note") or ""
                    ran = note[len("auto runs "):].split()[0] if note.startswith("auto runs ") else "?"
                    if "auto" not in p or ms < p["auto"][0]:
                        p["auto"] = (ms, ran)
                elif name.startswith(HG_PREFIXES):
                    p[name] = min(ms, p.get(name, ms))
    return prods


def replan(bench, key):
    """The kernel the tool's model picks for the product now (its --plan line
    marked '<- auto'), or None."""
    m, n, k, layout, dtype, beta, lda, ldb, ldc, batch, epilogue, compute, c_type, share, stride_a, stride_b = key
    cmd = [bench, "--plan", "-m", str(m), "-n", str(n), "-k", str(k), "--layout", layout, "--dtype", dtype,
           "--beta", f"{beta:g}", "--batch", str(batch), "--compute", compute, "--c-type", c_type,
           "--share", share]
    for flag, v in (("--lda", lda), ("--ldb", ldb), ("--ldc", ldc), ("--stride-a", stride_a),
                    ("--stride-b", stride_b)):
        if v:
            cmd += [flag, v]
    parts = epilogue.split("+")
    if "bias" in parts:
        cmd += ["--bias"]
    for act in ("relu", "gelu"):
        if act in parts:
            cmd += ["--act", act]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.rstrip().endswith("<- auto"):
            return line.split()[0]
    return None


def label(key):
    m, n, k, layout, dtype, beta = key[:6]
    batch, epilogue, compute, c_type, share, stride_a, stride_b = key[9:]
    return ((f"{batch} x ({m}x{n}x{k})" if batch > 1 else f"{m}x{n}x{k}") + f" {layout} {dtype}" +
            (f" b={beta:g}" if beta else "") + (f" {epilogue}" if epilogue != "none" else "") +
            (f" {compute}" if compute != "32f" else "") + (" c=f32" if c_type == "f32" else "") +
            (f" share={share}" if share != "none" else "") + (f" sa={stride_a}" if stride_a else "") +
            (f" sb={stride_b}" if stride_b else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--tolerance", type=float, default=0.05, help="allowed excess of AUTO's time (default 0.05)")
    ap.add_argument("--replan", metavar="BENCH", help="take AUTO's pick from BENCH --plan instead of the CSV")
    ap.add_argument("--since", metavar="DATE", type=datetime.date.fromisoformat,
                    help="only rows measured on or after DATE (YYYY-MM-DD)")
    args = ap.parse_args()
    prods = load(args.csv, args.since.isoformat() if args.since else None)
    checked = bad = unmeasured = 0
    for key in sorted(prods, key=lambda k: k[:6] + k[9:]):
        p = prods[key]
        others = {k: v for k, v in p.items() if k != "auto"}
        if not others or ("auto" not in p and not args.replan):
            continue
        if args.replan:
            ran = replan(args.replan, key) or "?"
            if ran not in others:
                unmeasured += 1
                print(f"?    {label(key):36s} the plan picks {ran}, which this CSV did not time")
                continue
            auto_ms = others[ran]
        else:
            auto_ms, ran = p["auto"]
            # AUTO's own kernel, timed as itself, counts at the better of its two times
            if ran in others:
                auto_ms = min(auto_ms, others[ran])
        best = min(others, key=others.get)
        excess = auto_ms / others[best] - 1.0
        flag = excess > args.tolerance
        checked += 1
        bad += flag
        verb = "plan picks" if args.replan else "auto runs"
        print(f"{'OVER ' if flag else 'ok   '}{label(key):36s} {verb} {ran:36s} {auto_ms:9.4f} ms; "
              f"fastest {best:36s} {others[best]:9.4f} ms; excess {100 * excess:+6.1f}%")
    if checked == 0:
        print("auto_check.py: no product has both an auto row and another kernel's row", file=sys.stderr)
        return 2
    print(f"{checked} products, {bad} where AUTO's pick is more than {100 * args.tolerance:.0f}% slower"
          + (f", {unmeasured} whose pick was not timed" if unmeasured else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
