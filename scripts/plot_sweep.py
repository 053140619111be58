#!/usr/bin/python3
"""Plot one figure of a sweep's results.csv (written by `strider sweep`) against a varied key.

  scripts/plot_sweep.py results.csv --x KEY --y METRIC [--hue KEY] [--where KEY=VALUE]...
                        [--out PNG] [--logx | --linx] [--logy | --liny] [--title TEXT]

--x: a column (usually a varied run key, e.g. arch.l2.size_bytes); numeric columns give a line
plot (log2 axis when the values are positive and span 16x or more, unless --linx), others a bar
chart in the order the values first appear. --y: a numeric column (cycles, dram.read_bytes, ...),
on a log10 axis when its values are positive and span 100x or more (--logy forces it, --liny not).
--hue: one line (or bar group) per value of this column. --where: keep only rows whose column
equals VALUE (repeatable), to take a slice of a multi-dimensional sweep. Rows with an error are
left out (and counted on stderr). When several rows share an (x, hue) pair, because another
varied key was not fixed with --where, their mean is plotted and a note names the keys.
The PNG goes to --out, default <results dir>/<y>_vs_<x>[_by_<hue>].png. Uses matplotlib (Agg).
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def fail(msg, code=2):
    print(f"plot_sweep.py: {msg}", file=sys.stderr)
    sys.exit(code)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--x", required=True)
    ap.add_argument("--y", required=True)
    ap.add_argument("--hue")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--out")
    ap.add_argument("--title")
    scale = ap.add_mutually_exclusive_group()
    scale.add_argument("--logx", action="store_true")
    scale.add_argument("--linx", action="store_true")
    yscale = ap.add_mutually_exclusive_group()
    yscale.add_argument("--logy", action="store_true")
    yscale.add_argument("--liny", action="store_true")
    a = ap.parse_args()

    try:
        with open(a.results, newline="") as f:
            text = f.read()
    except OSError as e:
        fail(f"{a.results}: {e.strerror}", 1)
    lines = text.split("\n")
    if not text.endswith("\n"):
        lines = lines[:-1]  # a torn last row (sweep still running or killed): not data
    rows = list(csv.DictReader([ln for ln in lines if ln]))
    if not rows:
        fail(f"{a.results}: no rows", 1)
    columns = list(rows[0].keys())
    for key in [a.x, a.y] + ([a.hue] if a.hue else []):
        if key not in columns:
            fail(f"{a.results}: no column '{key}'; columns: {', '.join(columns)}")
    for w in a.where:
        key, sep, value = w.partition("=")
        if not sep or key not in columns:
            fail(f"--where {w}: expected KEY=VALUE with KEY one of: {', '.join(columns)}")
        rows = [r for r in rows if r[key] == value]

    failed = [r for r in rows if r.get("error")]
    rows = [r for r in rows if not r.get("error")]
    if failed:
        print(f"plot_sweep.py: left out {len(failed)} failed point(s): "
              + ", ".join(r["point"] for r in failed), file=sys.stderr)
    if not rows:
        fail("no successful points to plot", 1)
    bad = [r["point"] for r in rows if number(r[a.y]) is None]
    if bad:
        fail(f"--y {a.y}: not a number in point(s) {', '.join(bad)}")

    # Mean over rows sharing (hue, x); note which other keys made them differ.
    varied = columns[1:columns.index("cycles")] if "cycles" in columns else []
    groups = {}
    for r in rows:
        groups.setdefault((r[a.hue] if a.hue else "", r[a.x]), []).append(r)
    mixed = sorted({k for g in groups.values() if len(g) > 1 for k in varied
                    if k not in (a.x, a.hue) and len({r[k] for r in g}) > 1})
    if mixed:
        print(f"plot_sweep.py: several points per ({a.hue or ''} {a.x}) differ in "
              f"{', '.join(mixed)}; plotting their mean (fix them with --where)", file=sys.stderr)
    hues = list(dict.fromkeys(h for h, _ in groups))
    xs = list(dict.fromkeys(x for _, x in groups))
    numeric_x = all(number(x) is not None for x in xs)
    mean = {k: sum(float(r[a.y]) for r in g) / len(g) for k, g in groups.items()}

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    if numeric_x:
        for h in hues:
            pts = sorted((number(x), mean[(h, x)]) for (hh, x) in groups if hh == h)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    label=f"{a.hue}={h}" if a.hue else None)
        vals = [number(x) for x in xs]
        if a.logx or (not a.linx and min(vals) > 0 and max(vals) / min(vals) >= 16):
            ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(vals))
        ax.set_xticklabels([x for _, x in sorted(zip(vals, xs))], rotation=30, ha="right")
    else:
        width = 0.8 / max(len(hues), 1)
        for i, h in enumerate(hues):
            pos = [j + (i - (len(hues) - 1) / 2) * width for j in range(len(xs))]
            ax.bar(pos, [mean.get((h, x), 0.0) for x in xs], width,
                   label=f"{a.hue}={h}" if a.hue else None)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([os.path.basename(x) for x in xs], rotation=30, ha="right")
    ys = list(mean.values())
    if a.logy or (not a.liny and min(ys) > 0 and max(ys) / min(ys) >= 100):
        ax.set_yscale("log")
    ax.set_xlabel(a.x)
    ax.set_ylabel(a.y + (" (log scale)" if ax.get_yscale() == "log" else ""))
    ax.set_title(a.title or f"{a.y} vs {a.x}" + (f" by {a.hue}" if a.hue else ""))
    ax.grid(True, alpha=0.3)
    if a.hue:
        ax.legend(fontsize=8)
    fig.tight_layout()

    def clean(s):
        return "".join(c if c.isalnum() or c in "._-" else "_" for c in s)

    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.results)),
                                f"{clean(a.y)}_vs_{clean(a.x)}"
                                + (f"_by_{clean(a.hue)}" if a.hue else "") + ".png")
    fig.savefig(out)
    print(out)


if __name__ == "__main__":
    main()
