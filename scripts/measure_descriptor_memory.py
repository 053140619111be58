#!/usr/bin/python3
"""measure_descriptor_memory.py: peak host memory and wall time of `strider run` against the
number of descriptors (issue 27: linear in descriptors; within 2 GB and 60 s or refused).

Generates SCALE-Sim conv topologies in a temporary directory: ROWS independent rows of an
HxH x 64 -> 64 3x3 conv, planned on the seed accelerator with L2 at 64 KiB (so each row is cut
into many row-band tiles: about 66 descriptors per 10x10 row, 4,984 per 58x58 row), and runs
`strider run` (timing mode, no trace) RUNS times per point under /usr/bin/time. Prints per point
the descriptors, the median wall and CPU (user + sys) times, the largest peak RSS and the bytes
per descriptor; a run
refused by the descriptor limit is reported with the time and memory it took to refuse.
Writes the table as CSV and a plot (PNG) when -o is given.

usage: measure_descriptor_memory.py [--runs N] [--points R:H,...] [-o OUT.png] [--csv OUT.csv]
  STRIDER (default build/strider) names the binary.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (rows, height): about 1 k, 10 k, 100 k, 1 M, 1.9 M and 10 M descriptors.
DEFAULT_POINTS = "15:10,2:58,20:58,200:58,380:58,2000:58"
HEADER = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"


def write_case(d, rows, h):
    csv = os.path.join(d, f"rows{rows}_h{h}.csv")
    with open(csv, "w") as f:
        f.write(HEADER)
        for i in range(rows):
            f.write(f"L{i}, {h}, {h}, 3, 3, 64, 64, 1,\n")
    run = os.path.join(d, f"rows{rows}_h{h}.yaml")
    with open(run, "w") as f:
        f.write(f"arch: {ROOT}/configs/arch/seed.yaml\n"
                f"networks:\n  - {{path: {csv}}}\n"
                "planner: {allocator: auto, schedule: dfs, time_limit_s: 10}\n"
                "sim: {functional: false, trace: false, vcd: false, watchdog_cycles: 100000000000}\n")
    return run


def run_once(strider, run, out):
    cmd = ["/usr/bin/time", "-f", "TIME %e %M %U %S", strider, "run", run, "--set",
           "arch.l2.size_bytes=65536", "--out", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"TIME ([0-9.]+) ([0-9]+) ([0-9.]+) ([0-9.]+)", p.stderr)
    if not m:
        sys.exit(f"measure_descriptor_memory: no timing from {' '.join(cmd)}:\n{p.stderr}")
    wall, rss_kb = float(m.group(1)), int(m.group(2))
    cpu = float(m.group(3)) + float(m.group(4))
    refused = re.search(r"descriptor count passes the limit of ([0-9]+)", p.stderr)
    if p.returncode != 0 and not refused:
        sys.exit(f"measure_descriptor_memory: {run} failed:\n{p.stderr}")
    desc = None
    if not refused:
        with open(os.path.join(out, "summary.json")) as f:
            desc = int(json.load(f)["descriptors"])
    return wall, rss_kb * 1024, desc, refused, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--points", default=DEFAULT_POINTS)
    ap.add_argument("-o", "--output", help="plot (PNG)")
    ap.add_argument("--csv", help="table (CSV)")
    a = ap.parse_args()
    strider = os.environ.get("STRIDER", os.path.join(ROOT, "build", "strider"))
    if not os.access(strider, os.X_OK):
        sys.exit(f"measure_descriptor_memory: {strider} not found; build it first")
    points = [tuple(int(x) for x in p.split(":")) for p in a.points.split(",")]
    rows_out = []
    with tempfile.TemporaryDirectory(prefix="strider_descmem.") as d:
        print(f"{'rows':>6} {'H':>4} {'descriptors':>12} {'median s':>9} {'CPU s':>7} "
              f"{'peak MB':>8} {'B/desc':>7}  result")
        for rows, h in points:
            run = write_case(d, rows, h)
            results = [run_once(strider, run, os.path.join(d, f"out_{rows}_{h}_{i}"))
                       for i in range(a.runs)]
            wall = statistics.median(r[0] for r in results)
            cpu = statistics.median(r[4] for r in results)
            peak = max(r[1] for r in results)
            desc, refused = results[0][2], results[0][3]
            if refused:
                shown, per, note = "-", "-", f"refused at the limit of {refused.group(1)}"
            else:
                shown, per, note = str(desc), f"{peak / desc:.0f}", "ran"
            print(f"{rows:>6} {h:>4} {shown:>12} {wall:>9.2f} {cpu:>7.2f} {peak / 1e6:>8.0f} "
                  f"{per:>7}  {note}")
            rows_out.append((rows, h, desc if not refused else "", wall, peak, note, cpu))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("rows,height,descriptors,median_wall_s,peak_rss_bytes,result,median_cpu_s\n")
            for r in rows_out:
                f.write(",".join(str(x) for x in r) + "\n")
    if a.output:
        from loglog_plot import save_loglog
        ran = [r for r in rows_out if r[2] != ""]
        save_loglog(a.output, [r[2] for r in ran],
                    [("strider run, peak RSS", [r[4] / 1e6 for r in ran], "o-")],
                    lambda slope: f"linear, {1e6 * slope:.0f} B per descriptor", "descriptors",
                    "peak memory (MB)", "Host memory against descriptors (seed, L2 64 KiB)",
                    hline=(2000, "2 GB"))


if __name__ == "__main__":
    main()
