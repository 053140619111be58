#!/usr/bin/python3
"""Plots of one `strider run` result directory.

usage: scripts/plot_run.py RESULTS_DIR [--out DIR] [--overview FILE]

Reads summary.json, occupancy.csv, layers.csv and memory_plan.csv and writes, into DIR (default:
RESULTS_DIR):
  occupancy.png     L2 occupancy (planned buffers live as executed) and line-buffer occupancy
                    over time, with the L2 capacity and planned peak;
  layer_cycles.png  per layer: its span (first start to last retirement) split into the neuron
                    array's compute, its waits for line-buffer fills and the rest (neurons idle),
                    and beside it the other units' stalls by cause (L2 bank conflicts, DRAM,
                    back-pressure), which overlap the span;
  memory_map.png    the L2 memory map: address over schedule steps, one rectangle per buffer
                    (activations, scratch, weight staging);
  overview.png      (or --overview FILE) the three in one small figure, e.g. for the README;
  energy.png        the energy breakdown: by unit (dynamic and leakage, from summary.json) and
                    by layer class (layers.csv's class, else op; from its energy_pj), with TOPS/W and area;
                    skipped (with a note) for results written before energy was reported.
Uses Debian's matplotlib with the Agg backend (no display needed).
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

# The neuron array's time in a layer: compute, waiting for line-buffer fills, and the rest of the
# layer's span (neurons idle: waiting for loads, the DMA or dependencies). These add up to the span.
NEURON_PARTS = [
    ("compute_cycles", "neurons: compute", "#4c72b0"),
    ("stall_line_buffer", "neurons: wait for line-buffer fills", "#8172b3"),
]
# Stalls of the other units (they overlap the neurons' time, so they are drawn beside it).
OTHER_STALLS = [
    ("stall_l2_conflict", "load/store/DMA: L2 bank conflicts", "#dd8452"),
    ("stall_dram", "DMA: DRAM bandwidth", "#c44e52"),
    ("stall_backpressure", "load: back-pressure", "#937860"),
]
STALLS = NEURON_PARTS + OTHER_STALLS
KIND_COLOURS = {"activation": "#4c72b0", "scratch": "#dd8452", "weight": "#55a868"}


def fail(msg):
    sys.stderr.write("plot_run.py: " + msg + "\n")
    sys.exit(1)


def read_csv(path, columns):
    if not os.path.isfile(path):
        fail(path + ": not found (is this a `strider run` output directory?)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            fail("%s: missing column(s) %s" % (path, ", ".join(missing)))
        return list(reader)


def load(results):
    path = os.path.join(results, "summary.json")
    if not os.path.isfile(path):
        fail(path + ": not found (is this a `strider run` output directory?)")
    with open(path) as f:
        summary = json.load(f)
    occupancy = read_csv(os.path.join(results, "occupancy.csv"), ["cycle", "l2_bytes"])
    layers = read_csv(os.path.join(results, "layers.csv"),
                      ["layer", "start", "end", "cycles"] + [k for k, _, _ in STALLS])
    plan = read_csv(os.path.join(results, "memory_plan.csv"),
                    ["tensor", "kind", "offset", "size", "first", "last"])
    return summary, occupancy, layers, plan


def time_axis(summary):
    """Cycles to the most readable unit at the clock: (scale, label)."""
    seconds = summary.get("seconds_at_clock", 0.0)
    cycles = max(summary.get("cycles", 1), 1)
    per_cycle = seconds / cycles if seconds else 1e-9
    if seconds >= 1e-2:
        return per_cycle * 1e3, "time at clock (ms)"
    return per_cycle * 1e6, "time at clock (us)"


def step_xy(rows, key, end_cycle, scale):
    xs, ys = [], []
    for row in rows:
        if row.get(key, "") == "":
            continue
        xs.append(int(row["cycle"]) * scale)
        ys.append(int(row[key]))
    if xs:
        xs.append(max(end_cycle * scale, xs[-1]))
        ys.append(ys[-1])
    return xs, ys


def plot_occupancy(axes, summary, occupancy):
    ax_l2, ax_lb = axes
    scale, label = time_axis(summary)
    end = summary.get("cycles", 0)
    kib = 1.0 / 1024
    xs, ys = step_xy(occupancy, "l2_bytes", end, scale)
    ax_l2.step(xs, [y * kib for y in ys], where="post", color="#4c72b0", lw=1, label="observed")
    ax_l2.fill_between(xs, [y * kib for y in ys], step="post", color="#4c72b0", alpha=0.25)
    l2 = summary.get("l2", {})
    if l2.get("capacity_bytes"):
        ax_l2.axhline(l2["capacity_bytes"] * kib, color="#c44e52", ls="--", lw=1, label="capacity")
    if l2.get("peak_planned_bytes"):
        ax_l2.axhline(l2["peak_planned_bytes"] * kib, color="#55a868", ls=":", lw=1,
                      label="planned peak")
    ax_l2.set_ylabel("L2 (KiB)")
    ax_l2.set_title("L2 occupancy")
    ax_l2.legend(loc="upper right", fontsize="x-small")
    if occupancy and "line_buffer_bytes" in occupancy[0]:
        xs, ys = step_xy(occupancy, "line_buffer_bytes", end, scale)
        ax_lb.step(xs, ys, where="post", color="#8172b3", lw=0.6)
        ax_lb.fill_between(xs, ys, step="post", color="#8172b3", alpha=0.3)
    ax_lb.set_ylabel("line buffer (B)")
    ax_lb.set_title("line-buffer occupancy (fill being written + fill being read)")
    ax_lb.set_xlabel(label)


def plot_layers(ax, summary, layers, max_labels=60):
    rows = [r for r in layers if int(r["cycles"]) > 0]
    idx = list(range(len(rows)))
    left = [i - 0.2 for i in idx]
    right = [i + 0.22 for i in idx]
    bottom = [0] * len(rows)
    for key, label, colour in NEURON_PARTS:
        vals = [int(r[key]) for r in rows]
        ax.bar(left, vals, bottom=bottom, color=colour, label=label, width=0.42)
        bottom = [b + v for b, v in zip(bottom, vals)]
    rest = [max(0, int(r["cycles"]) - b) for r, b in zip(rows, bottom)]
    ax.bar(left, rest, bottom=bottom, color="#cccccc", label="neurons: idle (rest of the span)",
           width=0.42)
    bottom = [0] * len(rows)
    for key, label, colour in OTHER_STALLS:
        vals = [int(r[key]) for r in rows]
        ax.bar(right, vals, bottom=bottom, color=colour, label=label, width=0.38)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("cycles")
    ax.set_title("per-layer cycles: %d layers, %d cycles in the run\n"
                 "left bar: the layer's span (first start to last retirement) as the neurons "
                 "spent it; right bar: other units' stalls (they overlap the span)"
                 % (len(rows), summary.get("cycles", 0)))
    if len(rows) <= max_labels:
        ax.set_xticks(idx)
        ax.set_xticklabels([r["layer"] for r in rows], rotation=90, fontsize="x-small")
    else:
        ax.set_xlabel("layer (in execution order)")
    ax.legend(loc="upper left", fontsize="x-small")


def plot_memory_map(ax, summary, plan):
    kib = 1.0 / 1024
    last_step = max([int(b["last"]) for b in plan] + [0])
    seen = set()
    for b in plan:
        kind = b["kind"]
        x0, x1 = int(b["first"]), int(b["last"]) + 1
        y0, h = int(b["offset"]) * kib, int(b["size"]) * kib
        colour = KIND_COLOURS.get(kind, "#999999")
        ax.add_patch(Rectangle((x0, y0), x1 - x0, h, facecolor=colour, edgecolor="black", lw=0.3,
                               alpha=0.8, label=None if kind in seen else kind))
        seen.add(kind)
    capacity = summary.get("l2", {}).get("capacity_bytes", 0) * kib
    top = max([(int(b["offset"]) + int(b["size"])) * kib for b in plan] + [capacity, 1])
    if capacity:
        ax.axhline(capacity, color="#c44e52", ls="--", lw=1, label="capacity")
    ax.set_xlim(0, last_step + 1)
    ax.set_ylim(0, top * 1.02)
    ax.set_xlabel("schedule step")
    ax.set_ylabel("L2 address (KiB)")
    ax.set_title("memory map: %s, peak %d KiB (lower bound %d KiB)" % (
        summary.get("planner", {}).get("allocator", "?"),
        summary.get("planner", {}).get("peak_bytes", 0) // 1024,
        summary.get("planner", {}).get("lower_bound_bytes", 0) // 1024))
    ax.legend(loc="upper right", fontsize="x-small")


def plot_energy(results, summary, out):
    """energy.png: energy by unit and by layer class (layers.csv energy_pj summed per op)."""
    energy = summary.get("energy")
    if not energy or "by_unit" not in energy:
        print("plot_run.py: %s has no energy section; energy.png not drawn" % results,
              file=sys.stderr)
        return
    with open(os.path.join(results, "layers.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    by_class = {}
    for r in rows:
        if r.get("energy_pj"):
            cls = r.get("class") or r["op"]  # moves-only layers (input, output) have no class
            by_class[cls] = by_class.get(cls, 0.0) + float(r["energy_pj"])
    fig, (ax_u, ax_c) = plt.subplots(1, 2, figsize=(11, 4.5))
    units = sorted(energy["by_unit"].items(), key=lambda kv: -kv[1])
    total = energy["total_pj"] or 1.0
    ax_u.barh([u for u, _ in units], [v * 1e-6 for _, v in units], color="#4c72b0")
    for i, (_, v) in enumerate(units):
        ax_u.text(v * 1e-6, i, " %.1f %%" % (100 * v / total), va="center", fontsize=8)
    ax_u.invert_yaxis()
    ax_u.set_xlabel("energy (uJ)")
    ax_u.set_title("by unit (incl. leakage): %.1f uJ, %.2f TOPS/W, %.2f mm2, %s"
                   % (total * 1e-6, summary.get("tops_per_watt", 0),
                      summary.get("area_mm2", {}).get("total", 0), energy.get("tech", "")),
                   fontsize="small")
    classes = sorted(by_class.items(), key=lambda kv: -kv[1])
    dyn = sum(v for _, v in classes) or 1.0
    ax_c.barh([c for c, _ in classes], [v * 1e-6 for _, v in classes], color="#55a868")
    for i, (_, v) in enumerate(classes):
        ax_c.text(v * 1e-6, i, " %.1f %%" % (100 * v / dyn), va="center", fontsize=8)
    ax_c.invert_yaxis()
    ax_c.set_xlabel("dynamic energy (uJ)")
    ax_c.set_title("by layer class", fontsize="small")
    for ax in (ax_u, ax_c):
        ax.grid(True, axis="x", alpha=0.3)
    save(fig, os.path.join(out, "energy.png"), 110)


def save(fig, path, dpi):
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    print(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", metavar="RESULTS_DIR")
    ap.add_argument("--out", help="where to write the PNGs (default: RESULTS_DIR)")
    ap.add_argument("--overview", help="path of the combined figure (default: DIR/overview.png)")
    args = ap.parse_args()
    summary, occupancy, layers, plan = load(args.results)
    out = args.out or args.results
    os.makedirs(out, exist_ok=True)

    fig, axes = plt.subplots(2, 1, figsize=(10, 5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 1]})
    plot_occupancy(axes, summary, occupancy)
    save(fig, os.path.join(out, "occupancy.png"), 110)

    fig, ax = plt.subplots(figsize=(max(8, min(24, 0.12 * len(layers) + 4)), 5))
    plot_layers(ax, summary, layers)
    save(fig, os.path.join(out, "layer_cycles.png"), 110)

    fig, ax = plt.subplots(figsize=(10, 5))
    plot_memory_map(ax, summary, plan)
    save(fig, os.path.join(out, "memory_map.png"), 110)

    fig = plt.figure(figsize=(11, 7))
    grid = fig.add_gridspec(3, 2, height_ratios=[2, 1, 3])
    ax_l2 = fig.add_subplot(grid[0, 0])
    ax_lb = fig.add_subplot(grid[1, 0], sharex=ax_l2)
    plot_occupancy((ax_l2, ax_lb), summary, occupancy)
    plot_memory_map(fig.add_subplot(grid[0:2, 1]), summary, plan)
    plot_layers(fig.add_subplot(grid[2, :]), summary, layers, max_labels=0)
    for ax in fig.axes:
        ax.title.set_fontsize("small")
    save(fig, args.overview or os.path.join(out, "overview.png"), 80)

    plot_energy(args.results, summary, out)


if __name__ == "__main__":
    main()
