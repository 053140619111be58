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

--pareto: a scatter of every point in (x, y) (two numeric metrics, e.g. --x cycles --y
energy.total_pj), the Pareto front (points no other point beats in both) joined and circled and
its points labelled by --label KEY (repeatable; default: the varied keys that differ along the
front). Both metrics are minimised unless --maximize x|y (e.g. tops_per_watt). --hue colours
the points by a key. Default PNG: <results dir>/pareto_<y>_vs_<x>.png; the front is also printed
as CSV rows on stdout after the PNG path.
"""
import argparse
import csv
import os
import sys
import textwrap

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


def pareto_front(points, maximize):
    """Indices of the points no other point dominates; points are (x, y), minimised unless in
    `maximize` ("x", "y"). Sorted by x."""
    sign = (-1 if "x" in maximize else 1, -1 if "y" in maximize else 1)
    keyed = sorted(range(len(points)),
                   key=lambda i: (sign[0] * points[i][0], sign[1] * points[i][1]))
    front, best_y = [], None
    for i in keyed:
        y = sign[1] * points[i][1]
        if best_y is None or y < best_y:
            front.append(i)
            best_y = y
    return sorted(front, key=lambda i: points[i][0])


def pareto_plot(rows, columns, a):
    for key in (a.x, a.y):
        bad = [r["point"] for r in rows if number(r[key]) is None]
        if bad:
            fail(f"--pareto: {key} is not a number in point(s) {', '.join(bad)}")
    pts = [(float(r[a.x]), float(r[a.y])) for r in rows]
    front = pareto_front(pts, a.maximize)
    varied = columns[1:columns.index("cycles")] if "cycles" in columns else []
    labels = a.label or [k for k in varied if len({rows[i][k] for i in front}) > 1] or varied
    fig, ax = plt.subplots(figsize=(7.5, 5), dpi=120)
    if a.hue:
        for h in dict.fromkeys(r[a.hue] for r in rows):
            sel = [i for i, r in enumerate(rows) if r[a.hue] == h]
            ax.scatter([pts[i][0] for i in sel], [pts[i][1] for i in sel], s=18, alpha=0.7,
                       label=f"{a.hue}={h}")
    else:
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=18, alpha=0.6, color="grey",
                   label="design points")
    ax.plot([pts[i][0] for i in front], [pts[i][1] for i in front], color="red", lw=1.2,
            marker="o", markersize=9, markerfacecolor="none", label="Pareto front")
    # The front's points are numbered along the front (points closer than 12 pixels share one
    # label, "2,3") and their settings listed in a key beside the axes, so no two labels overlap.
    fig.subplots_adjust(left=0.1, right=0.62, top=0.9, bottom=0.12)
    ax.set_xlabel(a.x + (" (higher is better)" if "x" in a.maximize else ""))
    ax.set_ylabel(a.y + (" (higher is better)" if "y" in a.maximize else ""))
    ax.set_title(a.title or f"Pareto front: {a.y} vs {a.x}", fontsize="small")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.canvas.draw()  # settles the axis limits, so data maps to pixels
    clusters = []  # [pixel x, pixel y, data point, numbers]
    for n, i in enumerate(front, 1):
        px, py = ax.transData.transform(pts[i])
        near = [c for c in clusters if abs(c[0] - px) < 12 and abs(c[1] - py) < 12]
        if near:
            near[0][3].append(n)
        else:
            clusters.append([px, py, pts[i], [n]])
    for _, _, xy, numbers in clusters:
        ax.annotate(",".join(map(str, numbers)), xy, textcoords="offset points", xytext=(5, 3),
                    fontsize=7, color="red")
    key = "\n".join(textwrap.fill(", ".join(f"{k.split('.')[-1]}={rows[i][k]}" for k in labels),
                                   width=36, initial_indent=f"{n:2d}  ", subsequent_indent="    ")
                     for n, i in enumerate(front, 1))
    fig.text(0.64, 0.9, "Pareto front\n" + key, ha="left", va="top", fontsize=6.5,
             family="monospace")
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.results)),
                                f"pareto_{clean(a.y)}_vs_{clean(a.x)}.png")
    fig.savefig(out)
    print(out)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["point"] + labels + [a.x, a.y])
    for i in front:
        w.writerow([rows[i]["point"]] + [rows[i][k] for k in labels] + [rows[i][a.x], rows[i][a.y]])


def clean(s):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in s)


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
    ap.add_argument("--pareto", action="store_true")
    ap.add_argument("--maximize", action="append", default=[], choices=["x", "y"])
    ap.add_argument("--label", action="append", default=[], metavar="KEY")
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

    if a.pareto:
        pareto_plot(rows, columns, a)
        return

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

    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.results)),
                                f"{clean(a.y)}_vs_{clean(a.x)}"
                                + (f"_by_{clean(a.hue)}" if a.hue else "") + ".png")
    fig.savefig(out)
    print(out)


if __name__ == "__main__":
    main()
