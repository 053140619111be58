#!/usr/bin/python3
"""ctest python_module_*: the strider Python package against the strider program.

In-process (no child process: STRIDER_PROGRAM points nowhere while they run): import_network and
inspect against `strider inspect --json`, plan against `strider plan`'s CSV files and its
--emit list byte for byte, the descriptor list as numpy, read / write / validate. In a child
process: resnet50 through strider.run against the CLI's summary.json and layers.csv, --set,
out=None (the run file's output_dir), temp=True leaving nothing behind, pack's numbers. Every
failure a StriderError with the command, exit code and message.

Usage: test_module.py STRIDER_PROGRAM WORK_DIR MODE (with PYTHONPATH=build/python). MODE
`pandas`: pandas must import (else the test is skipped, exit 77; scripts/setup.sh installs
python3-pandas, so CI runs it); MODE `no-pandas`: PYTHONPATH also holds a `pandas` that raises
ImportError. Either way results are plain Python types unless as_frame=True asks for pandas.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

program, work, mode = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    import pandas
except ImportError:
    pandas = None
if mode == "pandas" and pandas is None:
    print("skipped: pandas is not installed (scripts/setup.sh installs python3-pandas)")
    sys.exit(77)

import numpy
import strider

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
tmp = os.path.join(work, "tmp")  # the only temporary folder the package may use here
os.makedirs(tmp)
tempfile.tempdir = tmp
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def cli(*args):
    return subprocess.run([program] + list(args), check=True, capture_output=True, text=True).stdout


def raises(what, fn, code, message, prefix=False):
    """fn() must raise StriderError with exit code `code` and `message` (exactly, or as the start
    of the message with prefix=True, where the rest comes from the operating system)."""
    try:
        fn()
        failures.append(f"{what}: raised nothing")
    except strider.StriderError as e:
        check(f"{what}: exit code", e.returncode, code)
        check(f"{what}: message", str(e)[:len(message)] if prefix else str(e), message)
    except Exception as e:  # any other type is the defect being tested
        failures.append(f"{what}: raised {type(e).__name__}: {e}")


check("program", os.path.realpath(strider.program()), os.path.realpath(program))
check("version", strider.version, cli("--version").split()[1])

# ---- in-process: no strider program may run meanwhile.
os.environ["STRIDER_PROGRAM"] = "/nonexistent/strider"

net = strider.import_network("configs/networks/tiny_cnn.yaml")
check("import layers", [l["name"] for l in net.layers],
      ["conv1", "pool1", "conv2a", "conv2b", "add1", "conv3", "dw3", "cat", "gap", "fc"])
check("import macs", net.macs, 1254720)  # as tests/e2e/inspect_command_test.cpp
w = net.weights("conv1")
check("conv1 weights", (type(w).__name__, w.dtype.name, w.shape), ("ndarray", "int8", (16, 3, 3, 3)))
check("conv1 bias", (net.bias("conv1").dtype.name, net.bias("conv1").shape), ("int32", (16,)))
check("pool1 has no weights", net.weights("pool1"), None)
check("fc weights", net.weights("fc").shape, (10, 32, 1, 1))  # [out][in] of a fully-connected
# The same seed gives the same weights; another seed others.
check("weights deterministic", numpy.array_equal(
    strider.import_network("configs/networks/tiny_cnn.yaml").weights("conv1"), w), True)
check("weights follow the seed", numpy.array_equal(
    strider.import_network("configs/networks/tiny_cnn.yaml", seed=2).weights("conv1"), w), False)

os.environ["STRIDER_PROGRAM"] = program
cli_inspect = json.loads(cli("inspect", "configs/networks/resnet50.onnx", "--json"))
cli_plan_dir = os.path.join(work, "cli_plan")
cli("plan", "configs/runs/default.yaml", "--out", cli_plan_dir, "--emit",
    os.path.join(work, "cli.strd"))
os.environ["STRIDER_PROGRAM"] = "/nonexistent/strider"

check("inspect = CLI inspect --json", strider.inspect("configs/networks/resnet50.onnx"), cli_inspect)

p = strider.plan("configs/runs/default.yaml", emit=os.path.join(work, "py.strd"))
check("memory_plan = plan_memory.csv", p["memory_plan"],
      strider.read_table(os.path.join(cli_plan_dir, "plan_memory.csv")))
check("lowering = plan_lowering.csv", p["lowering"],
      strider.read_table(os.path.join(cli_plan_dir, "plan_lowering.csv")))
# input:x, tiny_cnn's 7 compute layers (add1 fused into conv2b, pool1 into conv1, the concat in
# place), output:fc (no deep prefetch's layer: at background priority conv3's ordinary lead
# covers its first fills, planner/lower/deep_prefetch.cpp)
check("plan lowering rows", len(p["lowering"]), 9)
check("types are plain", (type(p["memory_plan"]), type(p["memory_plan"][0])), (list, dict))
with open(os.path.join(work, "py.strd"), "rb") as a, open(os.path.join(work, "cli.strd"), "rb") as b:
    check("emitted list = CLI --emit", a.read() == b.read(), True)
# Peak: conv2b (add1 fused) reading pool1's output (conv1 pools into it: 16 skewed planes of
# 264 B = 4,224) and conv2a's, writing add1's: 3 x 4,224 = 12,672 (conv1's 16,512 B result, never
# stored, is no longer in it).
check("figures", (p["figures"]["arena_bytes"], p["figures"]["lower_bound_bytes"]), (12672, 12672))
d, deps = p["descriptors"], p["deps"]
check("descriptor records", (len(d), p["figures"]["descriptors"]), (len(p["list"]), len(p["list"])))
check("ids dense", list(d["id"]), list(range(len(d))))
check("deps indexed", int(d["deps_begin"][-1] + d["deps_count"][-1]), len(deps))
check("deps on earlier ids", all(deps[b:b + c].max(initial=0) < i for i, b, c in
                                 zip(d["id"], d["deps_begin"], d["deps_count"]) if c), True)
convs = d[(d["kind"] == 1) & (d["op"] == [k for k, v in strider.OP_NAMES.items() if v == "conv"][0])]
check("first conv op reads the 3x32x32 input", (convs["in_c"][0], convs["in_h"][0], convs["in_w"][0]),
      (3, 32, 32))
back = strider.read_descriptors(os.path.join(work, "py.strd"))
check("read_descriptors round trip", back == p["list"], True)
check("layers of the list", back.layers[:2], ["input:x", "conv1"])
strider.validate(back, "configs/arch/seed.yaml")  # the planner's own list passes
strider.validate(os.path.join(work, "py.strd"), "configs/arch/seed.yaml")
raises("validate for a smaller L2",
       lambda: strider.validate(back, "configs/arch/seed.yaml", set={"arch.l2.size_bytes": 16384}),
       1, "strider validate <list> configs/arch/seed.yaml failed with exit code 1: <list>: "
          "descriptor list refused: ", prefix=True)
raises("plan of a missing run file", lambda: strider.plan("configs/runs/no_such_run.yaml"), 1,
       "strider plan configs/runs/no_such_run.yaml failed with exit code 1: "
       "configs/runs/no_such_run.yaml", prefix=True)
raises("import of a missing network", lambda: strider.import_network("no_such.onnx"), 1,
       "strider import_network no_such.onnx failed with exit code 1: no_such.onnx", prefix=True)
raises("read_descriptors of a YAML file", lambda: strider.read_descriptors("configs/arch/seed.yaml"),
       1, "strider read_descriptors configs/arch/seed.yaml failed with exit code 1: "
          "configs/arch/seed.yaml", prefix=True)

# as_frame=True: a DataFrame with pandas, a StriderError naming the cause without it.
if mode == "pandas":
    frame = strider.plan("configs/runs/default.yaml", as_frame=True)["lowering"]
    check("as_frame type", type(frame).__name__, "DataFrame")
    check("as_frame layers", list(frame["layer"]), [row["layer"] for row in p["lowering"]])
else:
    check("pandas blocked", pandas, None)
    raises("as_frame without pandas", lambda: strider.plan("configs/runs/default.yaml", as_frame=True),
           1, "strider plan configs/runs/default.yaml failed with exit code 1: as_frame=True needs "
              "pandas: pandas is made unimportable for the python_module_no_pandas test")

# ---- child processes.
raises("missing program", lambda: strider.run("configs/runs/default.yaml", temp=True), 127,
       "strider run configs/runs/default.yaml --out " + tmp + "/strider-run-", prefix=True)
try:
    strider.run("configs/runs/default.yaml", temp=True)
except strider.StriderError as e:
    check("missing program named", "failed with exit code 127: /nonexistent/strider: cannot start: "
          "[Errno 2] No such file or directory" in str(e), True)
os.environ["STRIDER_PROGRAM"] = program

# resnet50: the module and the CLI agree on every figure they both report.
r = strider.run("configs/runs/resnet50.yaml", out=os.path.join(work, "py"))
cli("run", "configs/runs/resnet50.yaml", "--out", os.path.join(work, "cli"))
with open(os.path.join(work, "cli", "summary.json")) as f:
    cli_summary = json.load(f)
check("resnet50 cycles", r["summary"]["cycles"], cli_summary["cycles"])
check("resnet50 summary version", r["summary"]["version"], strider.version)
layers = r["layers"]
check("layers is a list of dicts", (type(layers), type(layers[0])), (list, dict))
check("resnet50 layers = layers.csv", layers, strider.read_table(os.path.join(work, "cli", "layers.csv")))

# --set reaches the run, and out=None writes where the run's output_dir says.
od = os.path.join(work, "od")
d = strider.run("configs/runs/default.yaml", set={"arch.l2.size_bytes": 262144, "output_dir": od})
check("set l2 capacity", d["summary"]["l2"]["capacity_bytes"], 262144)
check("out=None: output_dir", (d["out_dir"], os.path.exists(os.path.join(od, "run.json"))), (od, True))

# temp=True: nothing left behind, on success or failure; keep=True keeps it.
t = strider.run("configs/runs/default.yaml", temp=True)
check("temp run", (t["summary"]["cycles"], t["out_dir"]), (6282, None))  # as the default run
kept = strider.run("configs/runs/default.yaml", temp=True, keep=True)
check("kept", os.path.exists(os.path.join(kept["out_dir"], "summary.json")), True)
shutil.rmtree(kept["out_dir"])
raises("missing run file", lambda: strider.run("configs/runs/no_such_run.yaml", temp=True), 1,
       "strider run configs/runs/no_such_run.yaml --out " + tmp + "/strider-run-", prefix=True)
huge = {f"arch.l2.size_bytes_{i:06d}": "x" * 100 for i in range(30000)}  # 3.2 MB of arguments
try:
    strider.run("configs/runs/default.yaml", set=huge, temp=True)
    failures.append("huge set dict: raised nothing")
except strider.StriderError as e:
    check("huge set dict", (e.returncode, "cannot start: [Errno 7] Argument list too long" in str(e),
                            len(str(e)) < 600), (126, True, True))  # the command shown shortened
raises("set as a list", lambda: strider.run("configs/runs/default.yaml", set=["a=1"]), 2,
       "strider run configs/runs/default.yaml failed with exit code 2: set= expects a dict of "
       "key: value, got list ['a=1']")
check("no temporary folder left", os.listdir(tmp), [])

# read_table on what is not a CSV report.
raises("read_table of a missing file", lambda: strider.read_table(os.path.join(work, "none.csv")),
       1, f"strider read_table {work}/none.csv failed with exit code 1: {work}/none.csv: cannot "
          "read: No such file or directory")
with open(os.path.join(work, "binary.csv"), "wb") as f:
    f.write(b"a,b\n\xff\xfe\x00\x01,2\n")
raises("read_table of a binary file", lambda: strider.read_table(os.path.join(work, "binary.csv")),
       1, f"strider read_table {work}/binary.csv failed with exit code 1: {work}/binary.csv: not a "
          "CSV text file (byte 4 is not UTF-8)")

problem = os.path.join(work, "problem.csv")
with open(problem, "w") as f:  # a and b overlap in time, c reuses a's space: peak 96 bytes
    f.write("id,lower,upper,size\na,0,2,64\nb,1,3,32\nc,2,4,64\n")
k = strider.pack(problem, out=os.path.join(work, "solution.csv"))
check("pack numbers", (k["lower_bound"], k["height"], k["gap_percent"], k["optimal"], k["capacity"]),
      (96, 96, 0.0, True, None))
check("pack seconds is a number", isinstance(k["seconds"], float), True)
check("pack solution rows", len(k["solution_rows"]), 3)
raises("bad inspect input", lambda: strider.inspect("configs/networks/tiny_cnn.yaml", input=(0, 4)),
       1, "strider import_network configs/networks/tiny_cnn.yaml failed with exit code 1: ",
       prefix=True)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: resnet50 {cli_summary['cycles']} cycles from the module and the CLI")
