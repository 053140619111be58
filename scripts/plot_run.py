#!/usr/bin/python3
"""Plots of one `strider run` result directory.

usage: scripts/plot_run.py RESULTS_DIR [--out DIR] [--overview FILE] [--top N]

Reads summary.json, layers.csv, memory_plan.csv, effective_config.yaml and (when the run wrote it,
sim.detail: full) occupancy.csv, and writes into DIR (default: RESULTS_DIR):
  roofline.png      each layer a point: MACs per DRAM byte against MACs per cycle achieved, under
                    the roofs of the peak compute and the DRAM bandwidth, and again (hollow) at
                    its MACs per L2 byte under the L2 roof (3 ports); coloured by bottleneck,
                    the 10 most expensive layers numbered at their points and named in a key in
                    the top left (above the DRAM roof, where no layer can be);
  layer_cycles.png  the --top (default 40) most expensive layers, sorted by cycles (log axis) and named: the
                    span as the neurons spent it (compute, line-buffer waits, idle), the
                    bottleneck cause written beside each bar (layers.csv's `bottleneck` column,
                    else the largest of compute and the stall counters), a tick at `bound_cycles`
                    when layers.csv has it;
  bandwidth.png     DRAM and L2 bandwidth over time (each layer's bytes spread over its span),
                    against the arch's peaks (L2: the three ports' bytes against their summed
                    peak, one port's peak dotted);
  occupancy.png     L2 and line-buffer occupancy over time (only with occupancy.csv);
  memory_map.png    the L2 memory map: address over schedule steps, one rectangle per buffer,
                    with the row bands and staging the console counts in the peak;
  FILE              with --overview FILE: a summary figure of four of them, e.g. for the README.
  energy.png        the energy breakdown: by unit (dynamic and leakage, from summary.json), by
                    action (the largest 14 of energy.by_action), by layer class (layers.csv's
                    class, else op; from its energy_pj) and per layer stacked by storage level
                    (energy_breakdown.csv, when present), with TOPS/W and area; skipped (with a
                    note) for results written before energy was reported.
Uses Debian's matplotlib with the Agg backend (no display needed); the figures are drawn by two
forked workers (scripts/bench_plot.sh times it).
"""
import argparse
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

# The neuron array's time in a layer: compute, waiting for line-buffer fills, and the rest of the
# layer's span (neurons idle: waiting for loads, the DMA or dependencies). These add up to the span.
NEURON_PARTS = [
    ("compute_cycles", "neurons: compute", "#4c72b0"),
    ("stall_line_buffer", "neurons: wait for line-buffer fills", "#8172b3"),
]
# Bottleneck causes (layers.csv's `bottleneck` column) and their colours.
CAUSE_COLOURS = {"compute": "#4c72b0", "dram": "#c44e52", "l2_port": "#dd8452",
                 "line_buffer": "#8172b3", "latency": "#999999"}
# Without a `bottleneck` column: the largest of these counters names the cause.
CAUSE_COUNTERS = [("compute", "compute_cycles"), ("dram", "stall_dram"),
                  ("l2_port", "stall_l2_conflict"), ("line_buffer", "stall_line_buffer")]
KIND_COLOURS = {"activation": "#4c72b0", "scratch": "#dd8452", "weight": "#55a868"}
LAYER_COLUMNS = ["layer", "start", "end", "cycles", "macs", "dram_bytes", "l2_bytes",
                 "compute_cycles", "stall_line_buffer", "stall_dram", "stall_l2_conflict"]


def fail(msg):
    sys.stderr.write("plot_run.py: " + msg + "\n")
    sys.exit(1)


def read_csv(path, columns, required=True):
    if not os.path.isfile(path):
        if not required:
            return None
        fail(path + ": not found (is this a `strider run` output directory?)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            fail("%s: missing column(s) %s" % (path, ", ".join(missing)))
        return list(reader)


def read_arch(results):
    """The arch section of effective_config.yaml (empty when absent)."""
    path = os.path.join(results, "effective_config.yaml")
    if not os.path.isfile(path):
        return {}
    import yaml
    with open(path) as f:
        return (yaml.safe_load(f) or {}).get("arch", {})


class Layer:
    """One row of layers.csv with numbers parsed and the bottleneck cause named."""

    def __init__(self, row):
        self.name = row["layer"]
        self.mapping = row.get("mapping", "")
        for key in LAYER_COLUMNS[1:]:
            setattr(self, key, int(row[key]))
        self.bound = int(row["bound_cycles"]) if row.get("bound_cycles") else None
        if row.get("bottleneck"):
            self.cause = row["bottleneck"]
        else:
            counts = [(int(row[c]), cause) for cause, c in CAUSE_COUNTERS]
            top, cause = max(counts)
            self.cause = cause if top * 2 >= self.cycles else "latency"

    def label(self):
        return "%s [%s]" % (self.name, self.mapping) if self.mapping else self.name


def load(results):
    path = os.path.join(results, "summary.json")
    if not os.path.isfile(path):
        fail(path + ": not found (is this a `strider run` output directory?)")
    with open(path) as f:
        summary = json.load(f)
    occupancy = read_csv(os.path.join(results, "occupancy.csv"), ["cycle", "l2_bytes"], False)
    rows = read_csv(os.path.join(results, "layers.csv"), LAYER_COLUMNS)
    layers = [Layer(r) for r in rows]
    plan = read_csv(os.path.join(results, "memory_plan.csv"),
                    ["tensor", "kind", "offset", "size", "first", "last"])
    explained = bool(rows) and "bottleneck" in rows[0]
    return summary, occupancy, layers, plan, read_arch(results), explained


def time_axis(summary):
    """Cycles to the most readable unit at the clock: (scale, label)."""
    seconds = summary.get("seconds_at_clock", 0.0)
    cycles = max(summary.get("cycles", 1), 1)
    per_cycle = seconds / cycles if seconds else 1e-9
    if seconds >= 1e-2:
        return per_cycle * 1e3, "time at clock (ms)"
    return per_cycle * 1e6, "time at clock (us)"


def step_xy(rows, key, end_cycle, scale, points=1500):
    """A step series; above `points` changes, one step per 1/points of the run holding the
    maximum in force there (peaks stay visible, drawing stays fast)."""
    xs, ys = [], []
    for row in rows:
        if row.get(key, "") == "":
            continue
        xs.append(int(row["cycle"]))
        ys.append(int(row[key]))
    if len(xs) > points and end_cycle > 0:
        width = end_cycle / points
        peak = [None] * points
        for i, (x, y) in enumerate(zip(xs, ys)):
            # value y holds from x until the next change
            until = xs[i + 1] if i + 1 < len(xs) else end_cycle
            for b in range(min(int(x / width), points - 1), min(int(max(until - 1, x) / width),
                                                                 points - 1) + 1):
                peak[b] = y if peak[b] is None else max(peak[b], y)
        xs = [b * width for b in range(points) if peak[b] is not None]
        ys = [p for p in peak if p is not None]
    xs = [x * scale for x in xs]
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


def short(name, width):
    """The name cut in the middle to at most `width` characters."""
    if len(name) <= width:
        return name
    keep = width - 3
    return name[:keep // 2] + "..." + name[len(name) - (keep - keep // 2):]


def cause_legend(ax, causes, explained, loc):
    handles = [Patch(color=CAUSE_COLOURS.get(c, "#999999"), label=c) for c in causes]
    ax.legend(handles=handles, loc=loc, fontsize="x-small",
              title="bottleneck" + ("" if explained else " (largest counter)"),
              title_fontsize="x-small")


def plot_layer_ranking(ax, summary, layers, explained, top):
    """The `top` most expensive layers, sorted, named, with their bottleneck."""
    ranked = sorted((l for l in layers if l.cycles > 0), key=lambda l: -l.cycles)
    shown = ranked[:top][::-1]  # the most expensive at the top
    ys = list(range(len(shown)))
    left = [0] * len(shown)
    for key, label, colour in NEURON_PARTS:
        vals = [getattr(l, key) for l in shown]
        ax.barh(ys, vals, left=left, color=colour, label=label, height=0.7)
        left = [a + v for a, v in zip(left, vals)]
    rest = [max(0, l.cycles - a) for l, a in zip(shown, left)]
    ax.barh(ys, rest, left=left, color="#dddddd", label="neurons: idle (rest of the span)",
            height=0.7)
    for y, l in zip(ys, shown):
        ax.text(l.cycles, y, " " + l.cause, va="center", fontsize=6,
                color=CAUSE_COLOURS.get(l.cause, "#555555"))
        if l.bound is not None:
            ax.plot([l.bound, l.bound], [y - 0.4, y + 0.4], color="black", lw=1)
    ax.set_yticks(ys)
    ax.set_yticklabels([l.label() for l in shown], fontsize=6)
    ax.set_ylim(-0.6, len(shown) - 0.4)
    # A log axis: one layer many times the others' cycles no longer flattens the rest. The stacked
    # parts keep their order; the first starts at the axis' left edge.
    ax.set_xscale("log")
    # Three decades of room right of the longest bar: the cause labels and the legend go there.
    ax.set_xlim(max(1, min([l.cycles for l in shown] + [10]) / 4),
                max([l.cycles for l in shown] + [1]) * 1000)
    ax.set_xlabel("cycles (span: first start to last retirement; log scale)")
    share = sum(l.cycles for l in shown) / max(1, sum(l.cycles for l in ranked))
    ax.set_title("the %d most expensive of %d layers (%.0f %% of the layer cycles); %d cycles in "
                 "the run%s" % (len(shown), len(ranked), share * 100, summary.get("cycles", 0),
                                "; | = bound_cycles" if any(l.bound for l in shown) else ""),
                 fontsize="small")
    ax.legend(loc="lower right", fontsize="x-small")


def roofs(arch, summary):
    """(peak MACs per cycle, DRAM bytes per cycle, L2 port bytes per cycle); None if unknown."""
    neurons = arch.get("neurons", {})
    peak = neurons.get("count", 0) * neurons.get("macs_per_cycle", 0)
    if not peak and summary.get("utilization"):
        peak = summary["macs"] / (summary["utilization"] * max(summary["cycles"], 1))
    dram = arch.get("dram", {}).get("bytes_per_cycle")
    l2 = arch.get("l2", {}).get("port_bytes_per_cycle")
    return peak or None, dram, l2


def plot_roofline(ax, summary, layers, arch, explained, named=10, key_chars=48):
    peak, dram_bw, l2_bw = roofs(arch, summary)
    points = [l for l in layers if l.macs > 0 and l.cycles > 0]
    xs = [l.macs / max(l.dram_bytes, 1) for l in points]
    ys = [l.macs / l.cycles for l in points]
    colours = [CAUSE_COLOURS.get(l.cause, "#999999") for l in points]
    ax.scatter(xs, ys, s=14, c=colours, edgecolors="none", alpha=0.85)
    # The L2 level of a hierarchical roofline: each layer again at its MACs per L2 byte (hollow),
    # under the roof of the three L2 ports together.
    l2_xs = [l.macs / max(l.l2_bytes, 1) for l in points]
    ax.scatter(l2_xs, ys, s=14, facecolors="none", edgecolors=colours, linewidths=0.6, alpha=0.7)
    xs = xs + l2_xs
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):  # labelled minor ticks cost more than the rest
        axis.set_minor_formatter(NullFormatter())
    lo, hi = min(xs + [0.1]) / 2, max(xs + [10]) * 2
    if peak and dram_bw:
        ridge = peak / dram_bw
        grid = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
        ax.plot(grid, [min(peak, x * dram_bw) for x in grid], color="black", lw=1.2)
        ax.text(hi, peak, "peak %g MACs/cycle " % peak, ha="right", va="bottom", fontsize=7)
        ax.text(lo * 1.1, lo * dram_bw * 1.2, "DRAM %g B/cycle" % dram_bw, fontsize=7,
                rotation=0, va="bottom")
    if peak and l2_bw:
        l2_roof = 3 * l2_bw
        ridge = peak / l2_roof
        grid = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
        ax.plot(grid, [min(peak, x * l2_roof) for x in grid], color="#dd8452", lw=1.2, ls="--")
        ax.text(lo * 1.1, lo * l2_roof * 1.2, "L2 3 x %g B/cycle (hollow: MACs per L2 byte)"
                % l2_bw, fontsize=7, color="#dd8452", va="bottom")
    # The most expensive layers are numbered at their points (points within 0.08 decades of each
    # other share one label, "2,5") and named in a key in the top left, the region above the DRAM
    # roof where no layer can be.
    top = sorted(points, key=lambda l: -l.cycles)[:named]
    clusters = []  # [log x, log y, numbers]
    for rank, l in enumerate(top, 1):
        lx, ly = math.log10(l.macs / max(l.dram_bytes, 1)), math.log10(l.macs / l.cycles)
        near = [c for c in clusters if abs(c[0] - lx) < 0.08 and abs(c[1] - ly) < 0.08]
        if near:
            near[0][2].append(rank)
        else:
            clusters.append([lx, ly, [rank]])
    for lx, ly, ranks in clusters:
        ax.annotate(",".join(map(str, ranks)), (10 ** lx, 10 ** ly), fontsize=6,
                    xytext=(3, 2), textcoords="offset points")
    if top:
        cycles = key_chars >= 40  # a small key (the overview) leaves out the cycles
        key = "\n".join("%d  %s" % (rank, short(l.name, key_chars)) +
                        ("  (%s cycles)" % "{:,}".format(l.cycles) if cycles else "")
                        for rank, l in enumerate(top, 1))
        ax.text(0.015, 0.985, key, transform=ax.transAxes, ha="left", va="top", fontsize=6,
                family="monospace", bbox=dict(facecolor="white", edgecolor="#cccccc", alpha=0.9))
    ax.set_xlim(lo, hi)
    ax.set_xlabel("operational intensity (MACs per DRAM byte; hollow: per L2 byte)")
    ax.set_ylabel("achieved MACs per cycle")
    ax.set_title("roofline: %d layers with MACs, the %d most expensive named"
                 % (len(points), min(named, len(points))), fontsize="small")
    cause_legend(ax, [c for c in CAUSE_COLOURS if any(l.cause == c for l in points)], explained,
                 "lower right")


def plot_bandwidth(ax, summary, layers, arch, bins=400):
    """Bytes per cycle over time: each layer's DRAM and L2 bytes spread evenly over its span."""
    _, dram_bw, l2_bw = roofs(arch, summary)
    end = max([summary.get("cycles", 0)] + [l.end for l in layers] + [1])
    width = end / bins
    series = {}
    for key in ("dram_bytes", "l2_bytes"):
        acc = [0.0] * bins
        for l in layers:
            nbytes = getattr(l, key)
            if nbytes == 0 or l.end <= l.start:
                continue
            rate = nbytes / (l.end - l.start)
            first, last = int(l.start / width), min(int((l.end - 1) / width), bins - 1)
            for b in range(first, last + 1):
                overlap = min(l.end, (b + 1) * width) - max(l.start, b * width)
                acc[b] += rate * overlap / width
        series[key] = acc
    scale, label = time_axis(summary)
    xs = [b * width * scale for b in range(bins + 1)]
    # layers.csv's l2_bytes sum the DMA, load and store ports, so the L2 line is their sum too
    # (one port's peak dotted).
    for key, name, colour, bw, what in (
            ("l2_bytes", "L2 (3 ports)", "#dd8452", l2_bw and 3 * l2_bw, "3 ports x %g" % (l2_bw or 0)),
            ("dram_bytes", "DRAM", "#c44e52", dram_bw, "")):
        ax.stairs(series[key], xs, color=colour, label=name, fill=True, alpha=0.45)
        if bw:
            ax.axhline(bw, color=colour, ls="--", lw=1,
                       label="%s peak %g B/cycle%s" % (name, bw, " (%s)" % what if what else ""))
    if l2_bw:
        ax.axhline(l2_bw, color="#dd8452", ls=":", lw=1, label="one L2 port %g B/cycle" % l2_bw)
    ax.set_xlabel(label)
    ax.set_ylabel("bytes per cycle")
    ax.set_title("DRAM and L2 bandwidth over time (each layer's bytes spread over its span)",
                 fontsize="small")
    ax.legend(loc="upper right", fontsize="x-small")


def plot_memory_map(ax, summary, plan):
    kib = 1.0 / 1024
    last_step = max([int(b["last"]) for b in plan] + [0])
    patches = {}
    for b in plan:
        x0, x1 = int(b["first"]), int(b["last"]) + 1
        patches.setdefault(b["kind"], []).append(
            Rectangle((x0, int(b["offset"]) * kib), x1 - x0, int(b["size"]) * kib))
    for kind, rects in patches.items():
        colour = KIND_COLOURS.get(kind, "#999999")
        ax.add_collection(PatchCollection(rects, facecolor=colour, edgecolor="black", lw=0.3,
                                          alpha=0.8))
        ax.add_patch(Rectangle((0, 0), 0, 0, color=colour, label=kind))  # legend entry
    capacity = summary.get("l2", {}).get("capacity_bytes", 0) * kib
    top = max([(int(b["offset"]) + int(b["size"])) * kib for b in plan] + [capacity, 1])
    if capacity:
        ax.axhline(capacity, color="#c44e52", ls="--", lw=1, label="capacity")
    planner = summary.get("planner", {})
    bands, staging = planner.get("band_bytes", 0), planner.get("staging_bytes", 0)
    total = planner.get("peak_bytes", 0) + bands + staging
    ax.set_xlim(0, last_step + 1)
    ax.set_ylim(0, top * 1.02)
    ax.set_xlabel("schedule step")
    ax.set_ylabel("L2 address (KiB)")
    ax.set_title("memory map (%s): L2 in use %d KiB = activations %d KiB (lower bound %d KiB)\n"
                 "+ row bands %d KiB + weight staging %d KiB" % (
                     planner.get("allocator", "?"), total // 1024,
                     planner.get("peak_bytes", 0) // 1024,
                     planner.get("lower_bound_bytes", 0) // 1024, bands // 1024,
                     staging // 1024), fontsize="small")
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
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    (ax_u, ax_a), (ax_c, ax_l) = axes
    total = energy["total_pj"] or 1.0
    units = sorted(energy["by_unit"].items(), key=lambda kv: -kv[1])
    bars(ax_u, units, total, "#4c72b0", "energy (uJ)",
         "by unit (incl. leakage): %.1f uJ, %.2f TOPS/W, %.2f mm2, %s"
         % (total * 1e-6, summary.get("tops_per_watt", 0),
            summary.get("area_mm2", {}).get("total", 0), energy.get("tech", "")))
    actions = sorted(((a, v["pj"]) for a, v in energy.get("by_action", {}).items()),
                     key=lambda kv: -kv[1])[:14]
    bars(ax_a, actions, total, "#8172b2", "energy (uJ)", "by action (largest 14)")
    classes = sorted(by_class.items(), key=lambda kv: -kv[1])
    bars(ax_c, classes, sum(v for _, v in classes) or 1.0, "#55a868", "dynamic energy (uJ)",
         "by layer class")
    plot_levels(results, ax_l)
    return save(fig, os.path.join(out, "energy.png"), 110)


def bars(ax, items, whole, color, xlabel, title):
    """Horizontal bars of (name, pJ) in uJ, each labelled with its share of `whole`."""
    ax.barh([k for k, _ in items], [v * 1e-6 for _, v in items], color=color)
    for i, (_, v) in enumerate(items):
        ax.text(v * 1e-6, i, " %.1f %%" % (100 * v / whole), va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize="small")
    ax.grid(True, axis="x", alpha=0.3)


def plot_levels(results, ax):
    """Per layer energy stacked by storage level (energy_breakdown.csv), in layer order."""
    path = os.path.join(results, "energy_breakdown.csv")
    if not os.path.exists(path):
        ax.set_axis_off()
        ax.set_title("no energy_breakdown.csv", fontsize="small")
        return
    layers, by_level = [], {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["layer"] == "(run)":
                continue
            if r["layer"] not in layers:
                layers.append(r["layer"])
            cells = by_level.setdefault(r["level"], {})
            cells[r["layer"]] = cells.get(r["layer"], 0.0) + float(r["energy_pj"])
    x = range(len(layers))
    bottom = [0.0] * len(layers)
    for level in ("dram", "l2", "kernel_region", "line_buffer", "accumulators"):
        if level not in by_level:
            continue
        vals = [by_level[level].get(l, 0.0) * 1e-6 for l in layers]
        ax.bar(x, vals, bottom=bottom, label=level, width=1.0)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xlabel("layer (%d, in order)" % len(layers))
    ax.set_ylabel("storage energy (uJ)")
    ax.set_title("per layer, stacked by storage level", fontsize="small")
    if len(layers) <= 20:
        ax.set_xticks(list(x))
        ax.set_xticklabels(layers, rotation=90, fontsize=6)
    ax.legend(fontsize="small")


def save(fig, path, dpi, tight=True):
    if tight:
        fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def run_jobs(jobs):
    """Runs the drawing jobs (each returns the path it wrote, or None) in up to two forked
    workers, as the figures are independent; prints the paths in job order. Exits 1 when a
    worker failed (its traceback is on stderr)."""
    workers = min(2, os.cpu_count() or 1, len(jobs))
    if workers <= 1 or not hasattr(os, "fork"):
        paths = [job() for job in jobs]
    else:
        sys.stdout.flush()
        children = []
        for w in range(workers):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read_end)
                code = 0
                try:
                    done = {i: jobs[i]() for i in range(w, len(jobs), workers)}
                    os.write(write_end, json.dumps(done).encode())
                except BaseException:  # noqa: B902 -- reported, then the worker exits 1
                    import traceback
                    traceback.print_exc()
                    code = 1
                os._exit(code)
            os.close(write_end)
            children.append((pid, read_end))
        done, failed = {}, False
        for pid, read_end in children:
            with os.fdopen(read_end, "rb") as f:
                data = f.read()
            failed |= os.waitpid(pid, 0)[1] != 0
            if data:
                done.update({int(k): v for k, v in json.loads(data).items()})
        if failed:
            sys.exit(1)
        paths = [done[i] for i in range(len(jobs))]
    for path in paths:
        if path:
            print(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", metavar="RESULTS_DIR")
    ap.add_argument("--out", help="where to write the PNGs (default: RESULTS_DIR)")
    ap.add_argument("--overview", help="also write a combined figure to this path")
    ap.add_argument("--top", type=int, default=40, help="layers in layer_cycles.png (default 40)")
    args = ap.parse_args()
    summary, occupancy, layers, plan, arch, explained = load(args.results)
    out = args.out or args.results
    os.makedirs(out, exist_ok=True)

    def roofline():
        fig, ax = plt.subplots(figsize=(8, 6))
        fig.subplots_adjust(left=0.1, right=0.97, bottom=0.09, top=0.94)  # tight_layout: 0.2 s
        plot_roofline(ax, summary, layers, arch, explained)
        return save(fig, os.path.join(out, "roofline.png"), 100, tight=False)

    def layer_cycles():
        shown = min(args.top, len(layers))
        fig, ax = plt.subplots(figsize=(9, 1.5 + 0.16 * shown))
        plot_layer_ranking(ax, summary, layers, explained, args.top)
        return save(fig, os.path.join(out, "layer_cycles.png"), 100)

    def bandwidth():
        fig, ax = plt.subplots(figsize=(10, 3.5))
        plot_bandwidth(ax, summary, layers, arch)
        return save(fig, os.path.join(out, "bandwidth.png"), 100)

    def occupancy_plot():
        fig, axes = plt.subplots(2, 1, figsize=(10, 5), sharex=True,
                                 gridspec_kw={"height_ratios": [3, 1]})
        plot_occupancy(axes, summary, occupancy)
        return save(fig, os.path.join(out, "occupancy.png"), 100)

    def memory_map():
        fig, ax = plt.subplots(figsize=(10, 5))
        plot_memory_map(ax, summary, plan)
        return save(fig, os.path.join(out, "memory_map.png"), 100)

    def overview():
        return draw_overview(args.overview, summary, layers, plan, arch, explained)

    jobs = [roofline, layer_cycles, bandwidth]
    if occupancy is not None:
        jobs.append(occupancy_plot)
    jobs += [memory_map, lambda: plot_energy(args.results, summary, out)]
    if args.overview:
        jobs.append(overview)
    run_jobs(jobs)


def draw_overview(path, summary, layers, plan, arch, explained):
    fig = plt.figure(figsize=(11, 7))
    grid = fig.add_gridspec(2, 2)
    plot_roofline(fig.add_subplot(grid[0, 0]), summary, layers, arch, explained, named=5,
                  key_chars=26)
    plot_memory_map(fig.add_subplot(grid[0, 1]), summary, plan)
    plot_layer_ranking(fig.add_subplot(grid[1, 0]), summary, layers, explained, 12)
    plot_bandwidth(fig.add_subplot(grid[1, 1]), summary, layers, arch, bins=200)
    for ax in fig.axes:
        ax.title.set_fontsize("x-small")
    return save(fig, path, 80)


if __name__ == "__main__":
    main()
