#!/usr/bin/python3
"""The mapping search's cost spread per layer, from a run's mapping.csv.

usage: scripts/plot_mapping.py RESULTS_DIR [--out FILE] [--top N]

Reads RESULTS_DIR/mapping.csv (a run with arch.lowering.mapping: search) and writes FILE
(default RESULTS_DIR/mapping_spread.png): for the --top (default 40) layers with the most
predicted cycles, a bar from the chosen candidate's predicted cycles to the worst legal
candidate's (the spread of the layer's mapping space), a tick at auto's predicted cycles, a dot at
the simulated cycles, and the chosen mapping / block / rows beside each bar. Log axis. Uses
Debian's matplotlib with the Agg backend.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--out")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    path = os.path.join(a.results, "mapping.csv")
    if not os.path.isfile(path):
        sys.exit(f"plot_mapping.py: {path}: no such file (run with arch.lowering.mapping: search)")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_mapping.py: {path}: no searched layer")
    rows.sort(key=lambda r: -int(r["predicted_cycles"]))
    rows = rows[: a.top][::-1]
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(rows) + 1.5))
    y = range(len(rows))
    best = [int(r["predicted_cycles"]) for r in rows]
    worst = [int(r["worst_cycles"]) for r in rows]
    ax.barh(y, [w - b for b, w in zip(best, worst)], left=best, color="#c6dbef",
            label="legal candidates (predicted)")
    ax.scatter([int(r["auto_cycles"]) for r in rows], y, marker="|", s=120, color="#d62728",
               label="auto (predicted)", zorder=3)
    ax.scatter(best, y, marker="|", s=120, color="#2171b5", label="chosen (predicted)", zorder=3)
    sim = [(int(r["simulated_cycles"]), i) for i, r in enumerate(rows) if r["simulated_cycles"]]
    ax.scatter([s for s, _ in sim], [i for _, i in sim], s=12, color="black",
               label="chosen (simulated)", zorder=4)
    ax.set_yticks(list(y))
    ax.set_yticklabels([r["layer"][-40:] for r in rows], fontsize=7)
    for i, r in enumerate(rows):
        ax.annotate(f'{r["mapping"]} {r["block"]}ch {r["rows"]}r ({r["candidates"]})',
                    (worst[i], i), xytext=(3, -3), textcoords="offset points", fontsize=6)
    ax.set_xscale("log")
    ax.set_xlabel("cycles")
    ax.set_title("mapping search: cost spread per layer")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    out = a.out or os.path.join(a.results, "mapping_spread.png")
    tmp = os.path.join(os.path.dirname(out) or ".", "." + os.path.basename(out) + ".partial.png")
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, out)
    print(out)


if __name__ == "__main__":
    main()
