#!/usr/bin/python3
"""bench_import.py: ONNX import time against the number of nodes (issue 31 item 5: linear; a
200,000-node chain under 5 s).

Writes, in a temporary directory, ONNX graphs of N nodes: a chain x -> Relu -> Sigmoid -> Relu
-> ... on a [1, 8, 8, 8] input (each node reads the previous one's output), and imports each with
`strider inspect` RUNS times (default 3). Prints per size the median wall time, the median CPU
time (user + sys), the microseconds per node and the peak RSS. With -o, plots time against nodes
(PNG). Exit status 1 when the median CPU time of the largest size is over LIMIT seconds (the CPU
time does not depend on what else the machine runs; on an idle machine wall time is about CPU
time plus 0.01 s).
Needs Debian's python3-onnx (scripts/setup.sh with STRIDER_EXPORT_DEPS=1).

usage: bench_import.py [--runs N] [--sizes 1000,10000,...] [--limit S] [-o OUT.png]
  STRIDER (default build/strider) names the binary.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_chain(path, nodes):
    from onnx import TensorProto, helper, save
    names = ["x"] + [f"t{i}" for i in range(nodes)]
    ops = ["Relu", "Sigmoid"]
    graph = helper.make_graph(
        [helper.make_node(ops[i % 2], [names[i]], [names[i + 1]], name=f"n{i}")
         for i in range(nodes)],
        f"chain{nodes}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
        [helper.make_tensor_value_info(names[-1], TensorProto.FLOAT, [1, 8, 8, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    save(model, path)


def time_once(strider, path):
    cmd = ["/usr/bin/time", "-f", "TIME %e %U %S %M", strider, "inspect", path]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"TIME ([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9]+)", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit(f"bench_import: {' '.join(cmd)} failed:\n{p.stderr}")
    return float(m.group(1)), float(m.group(2)) + float(m.group(3)), int(m.group(4)) * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="1000,10000,20000,50000,100000,200000")
    ap.add_argument("--limit", type=float, default=5.0)
    ap.add_argument("-o", "--output", help="plot (PNG)")
    a = ap.parse_args()
    strider = os.environ.get("STRIDER", os.path.join(ROOT, "build", "strider"))
    if not os.access(strider, os.X_OK):
        sys.exit(f"bench_import: {strider} not found; build it first")
    sizes = [int(s) for s in a.sizes.split(",")]
    table = []
    with tempfile.TemporaryDirectory(prefix="strider_import.") as d:
        print(f"{'nodes':>8} {'median s':>9} {'CPU s':>7} {'us/node':>8} {'peak MB':>8}")
        for n in sizes:
            path = os.path.join(d, f"chain{n}.onnx")
            write_chain(path, n)
            runs = [time_once(strider, path) for _ in range(a.runs)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            peak = max(r[2] for r in runs)
            table.append((n, wall, cpu, peak))
            print(f"{n:>8} {wall:>9.2f} {cpu:>7.2f} {1e6 * wall / n:>8.1f} {peak / 1e6:>8.0f}")
    if a.output:
        from loglog_plot import save_loglog
        save_loglog(a.output, [t[0] for t in table],
                    [("median wall", [t[1] for t in table], "o-"),
                     ("median CPU", [t[2] for t in table], "s--")],
                    lambda slope: f"linear, {1e6 * slope:.1f} us per node",
                    "ONNX nodes (chain)", "strider inspect (s)", "ONNX import time against nodes")
    if table[-1][2] > a.limit:
        print(f"bench_import: {table[-1][0]} nodes took {table[-1][2]:.2f} s CPU, over {a.limit} s",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
