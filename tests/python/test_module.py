#!/usr/bin/python3
"""ctest python_module: the strider Python package against the strider program.

Runs resnet50 through strider.run and checks its cycles (and every layer's) against the
summary.json and layers.csv the CLI writes for the same run; checks --set goes through, and
plan, inspect, pack and the errors. Usage: test_module.py STRIDER_PROGRAM WORK_DIR MODE (with
PYTHONPATH=build/python). MODE `pandas`: pandas must import (else the test is skipped, exit 77;
scripts/setup.sh installs python3-pandas, so CI runs it); MODE `no-pandas`: PYTHONPATH also holds
a `pandas` that raises ImportError. Either way the results are plain Python types unless
as_frame=True asks for a DataFrame.
"""
import json
import os
import shutil
import subprocess
import sys

import strider

program, work, mode = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    import pandas
except ImportError:
    pandas = None
if mode == "pandas" and pandas is None:
    print("skipped: pandas is not installed (scripts/setup.sh installs python3-pandas)")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


check("program", os.path.realpath(strider.program()), os.path.realpath(program))
check("version", strider.version, subprocess.run([program, "--version"], capture_output=True,
                                                 text=True).stdout.split()[1])

# resnet50: the module and the CLI agree on every figure they both report.
r = strider.run("configs/runs/resnet50.yaml", out=os.path.join(work, "py"))
subprocess.run([program, "run", "configs/runs/resnet50.yaml", "--out", os.path.join(work, "cli")],
               check=True, capture_output=True)
with open(os.path.join(work, "cli", "summary.json")) as f:
    cli = json.load(f)
check("resnet50 cycles", r["summary"]["cycles"], cli["cycles"])
check("resnet50 summary version", r["summary"]["version"], strider.version)
with open(os.path.join(work, "cli", "layers.csv")) as f:
    cli_layers = f.read().splitlines()[1:]
layers = r["layers"]
check("layers is a list of dicts", (type(layers), type(layers[0])), (list, dict))
check("resnet50 layer count", len(layers), len(cli_layers))
check("resnet50 layer cycles", [l["cycles"] for l in layers],
      [int(line.split(",")[5]) for line in cli_layers])

# --set reaches the run: the tiny default run with a 256 KiB L2.
d = strider.run("configs/runs/default.yaml", set={"arch.l2.size_bytes": 262144},
                out=os.path.join(work, "set"))
check("set l2 capacity", d["summary"]["l2"]["capacity_bytes"], 262144)

p = strider.plan("configs/runs/default.yaml", out=os.path.join(work, "plan"))
check("plan lowering rows", len(p["lowering"]), 11)  # the input x and the 10 layers of tiny_cnn
check("plan lowering has layer names", all(isinstance(row["layer"], str) for row in p["lowering"]), True)

# as_frame=True: a DataFrame with pandas, a StriderError naming the cause without it.
if mode == "pandas":
    frame = strider.plan("configs/runs/default.yaml", out=os.path.join(work, "plan_frame"),
                         as_frame=True)["lowering"]
    check("as_frame type", type(frame).__name__, "DataFrame")
    check("as_frame layers", list(frame["layer"]), [row["layer"] for row in p["lowering"]])
else:
    check("pandas blocked", pandas, None)
    try:
        strider.read_table(os.path.join(work, "plan", "plan_lowering.csv"), as_frame=True)
        failures.append("as_frame=True without pandas raised nothing")
    except strider.StriderError as e:
        check("as_frame without pandas", str(e).startswith(
            "strider read_table " + os.path.join(work, "plan", "plan_lowering.csv") +
            " failed with exit code 1: as_frame=True needs pandas: "), True)

i = strider.inspect("configs/networks/tiny_cnn.yaml")
check("inspect tiny_cnn macs", i["macs"], 1254720)  # as tests/e2e/inspect_command_test.cpp
check("inspect tiny_cnn conv1 output", i["layers"][0]["outputs"], ["1x16x32x32"])

problem = os.path.join(work, "problem.csv")
with open(problem, "w") as f:  # a and b overlap in time, c reuses a's space: peak 96 bytes
    f.write("id,lower,upper,size\na,0,2,64\nb,1,3,32\nc,2,4,64\n")
k = strider.pack(problem, out=os.path.join(work, "solution.csv"))
check("pack lower bound", k["report"]["lower_bound"], 96)
check("pack height", k["report"]["height"], 96)
check("pack solution rows", len(k["solution"]), 3)

try:
    strider.run("configs/runs/no_such_run.yaml")
    failures.append("a missing run file raised nothing")
except strider.StriderError as e:
    check("missing run file exit code", e.returncode, 1)
try:
    strider.inspect("configs/networks/tiny_cnn.yaml", input=(0, 4))
    failures.append("a bad --input raised nothing")
except strider.StriderError as e:
    check("bad input exit code", e.returncode, 2)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: resnet50 {cli['cycles']} cycles from the module and the CLI")
