#!/usr/bin/env python3
"""plot_memory.py: draws a memory plan as address over time, one rectangle per buffer, to PNG.

Reads a memory_plan.csv (written by `strider plan` / `strider run`) with the columns
tensor,kind,offset,size,first,last: `first` and `last` are schedule steps (inclusive), `offset`
and `size` bytes. Each buffer is a rectangle from step `first` to `last + 1` and from `offset` to
`offset + size`, coloured by kind (activation, scratch, weight). A dashed line marks the peak
(max offset + size).

usage: plot_memory.py memory_plan.csv [-o OUT.png] [--title TITLE] [--labels]
Uses Debian's /usr/bin/python3 with matplotlib (Agg backend, no display needed).
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

COLUMNS = ["tensor", "kind", "offset", "size", "first", "last"]
COLOURS = {"activation": "#4C72B0", "scratch": "#DD8452", "weight": "#55A868"}
OTHER_COLOUR = "#8172B3"


class PlanError(Exception):
    pass


def read_plan(path):
    """Returns a list of dicts; raises PlanError naming the file, line and column on bad input."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise PlanError(f"{path}: cannot open: {e.strerror}")
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            raise PlanError(f"{path}:1: empty file, expected header {','.join(COLUMNS)}")
        header = [h.strip() for h in header]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise PlanError(f"{path}:1: missing column(s) {', '.join(missing)}; "
                            f"expected {','.join(COLUMNS)}")
        index = {c: header.index(c) for c in COLUMNS}
        rows = []
        for line_no, cells in enumerate(reader, start=2):
            if not cells or all(not c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise PlanError(f"{path}:{line_no}: expected {len(header)} columns, "
                                f"got {len(cells)}")
            row = {"tensor": cells[index["tensor"]].strip(), "kind": cells[index["kind"]].strip()}
            for col in ("offset", "size", "first", "last"):
                text = cells[index[col]].strip()
                try:
                    row[col] = int(text)
                except ValueError:
                    raise PlanError(f"{path}:{line_no}: column '{col}': expected an integer, "
                                    f"got '{text}'")
                if row[col] < 0:
                    raise PlanError(f"{path}:{line_no}: column '{col}': expected a "
                                    f"non-negative integer, got '{text}'")
            if row["last"] < row["first"]:
                raise PlanError(f"{path}:{line_no}: column 'last': {row['last']} is before "
                                f"first {row['first']}")
            rows.append(row)
    return rows


def plot(rows, out, title, labels):
    fig, ax = plt.subplots(figsize=(12, 6))
    peak = 0
    steps = 1
    kinds = set()
    for r in rows:
        x0, x1 = r["first"], r["last"] + 1
        y0, y1 = r["offset"], r["offset"] + r["size"]
        colour = COLOURS.get(r["kind"], OTHER_COLOUR)
        kinds.add(r["kind"])
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=colour, edgecolor="black",
                               linewidth=0.3, alpha=0.85))
        if labels and r["size"] > 0:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, r["tensor"], ha="center", va="center",
                    fontsize=6, clip_on=True)
        peak = max(peak, y1)
        steps = max(steps, x1)
    ax.set_xlim(0, steps)
    ax.set_ylim(0, max(peak, 1) * 1.05)
    if peak > 0:
        ax.axhline(peak, color="red", linestyle="--", linewidth=0.8)
        ax.text(steps, peak, f" peak {peak} B", color="red", va="bottom", ha="right", fontsize=8)
    ax.set_xlabel("schedule step")
    ax.set_ylabel("address (bytes)")
    ax.set_title(title)
    handles = [Patch(facecolor=COLOURS.get(k, OTHER_COLOUR), label=k) for k in sorted(kinds)]
    if handles:
        ax.legend(handles=handles, loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description="Draw a memory_plan.csv as address over time.")
    parser.add_argument("plan", help="memory_plan.csv (tensor,kind,offset,size,first,last)")
    parser.add_argument("-o", "--out", help="output PNG (default: the plan's name with .png)")
    parser.add_argument("--title", help="figure title (default: the plan's path)")
    parser.add_argument("--labels", action="store_true", help="write tensor names in rectangles")
    args = parser.parse_args(argv)
    out = args.out or (args.plan[:-4] if args.plan.endswith(".csv") else args.plan) + ".png"
    try:
        rows = read_plan(args.plan)
    except PlanError as e:
        print(f"plot_memory.py: {e}", file=sys.stderr)
        return 1
    plot(rows, out, args.title or args.plan, args.labels)
    print(f"wrote {out} ({len(rows)} buffers)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
