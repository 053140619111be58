"""Strider from Python.

In-process (the compiled module `_strider`: the planner and the descriptor contract, no
SystemC): import a network, plan and lower a run, read / write / check descriptor lists.

    import strider
    net = strider.import_network("configs/networks/tiny_cnn.yaml")
    net.layers[0]["macs"], net.weights("conv1").shape        # numpy int8 [out][in/groups][kh][kw]
    p = strider.plan("configs/runs/default.yaml")
    p["memory_plan"][0]                                       # tensor, kind, offset, size, first, last
    p["descriptors"]["kind"], p["deps"]                       # numpy structured array, flat deps

A simulation runs the `strider` program in a child process (SystemC elaborates once per
process) and reads what it wrote:

    r = strider.run("configs/runs/resnet50.yaml", set={"arch.l2.size_bytes": 524288})
    r["summary"]["cycles"]      # summary.json as a dict
    r["layers"]                 # layers.csv: a list of dicts (as_frame=True: a pandas DataFrame)

`out=None` writes where the run file's `output_dir` says (as the program does); `temp=True`
uses a temporary directory that is removed once the results are read (kept with `keep=True`).
The program is the one this package was built or installed with; the environment variable
STRIDER_PROGRAM names another. Every failure raises StriderError with the command, the exit
code (the program's, or 1 for an in-process error, 2 for a bad argument, 126 / 127 when the
program cannot be started) and the message.
"""

import collections.abc
import csv
import json
import os
import shutil
import subprocess
import tempfile

from . import _paths
from . import _strider
from ._strider import DescriptorList, git_revision, version

__all__ = ["run", "plan", "inspect", "pack", "import_network", "read_descriptors", "validate",
           "Network", "DescriptorList", "program", "version", "git_revision", "StriderError",
           "read_table", "OP_NAMES"]
__version__ = version
OP_NAMES = dict(_strider.OP_NAMES)  # descriptor op code -> name ("conv", "add", ...)


class StriderError(RuntimeError):
    """A strider command failed: `command` (its words), `returncode` (1 error, 2 usage, 126 / 127
    the program could not be started) and `stderr` (the message) say why."""

    def __init__(self, command, returncode, stderr):
        shown = " ".join(command)
        if len(shown) > 300:
            shown = shown[:300] + " ..."
        super().__init__(f"strider {shown} failed with exit code {returncode}: {stderr.strip()}")
        self.command = list(command)
        self.returncode = returncode
        self.stderr = stderr


def program():
    """The path of the strider program the simulations run."""
    return os.environ.get("STRIDER_PROGRAM") or _paths.PROGRAM


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _sets(command, set):
    """`set=` as --set assignments; a dict (mapping) of key: value, else StriderError (usage)."""
    if set is None:
        return []
    if not isinstance(set, collections.abc.Mapping):
        raise StriderError(command, 2, f"set= expects a dict of key: value, got "
                                       f"{type(set).__name__} {set!r:.80}")
    return [f"{key}={_value(value)}" for key, value in set.items()]


def _set_args(sets):
    args = []
    for s in sets:
        args += ["--set", s]
    return args


def _in_process(command, fn, *args):
    """Calls the compiled module, turning its errors into StriderError (exit code 1)."""
    try:
        return fn(*args)
    except (_strider.Error, MemoryError, OSError) as e:
        raise StriderError(command, 1, str(e) or type(e).__name__) from None


def _call(args):
    """Runs the program with `args`; its stdout, or StriderError."""
    try:
        p = subprocess.run([program()] + list(args), capture_output=True, text=True,
                           errors="replace")
    except OSError as e:  # missing program, argument list too long, ...
        code = 127 if isinstance(e, FileNotFoundError) else 126
        raise StriderError(list(args), code, f"{program()}: cannot start: {e}") from None
    if p.returncode != 0:
        code = p.returncode if p.returncode > 0 else 128 - p.returncode  # killed by signal N
        raise StriderError(list(args), code, p.stderr)
    return p.stdout


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_table(path, as_frame=False):
    """A CSV report (with a header) as a list of dicts, numbers converted; with as_frame=True a
    pandas DataFrame. Plain types by default, whether or not pandas is installed."""
    command = ["read_table", str(path)]
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, [])
            records = []
            for row in reader:
                if row == [] or row == [""]:
                    continue
                if len(row) != len(header):
                    raise StriderError(command, 1, f"{path}:{reader.line_num}: expected "
                                                   f"{len(header)} fields, got {len(row)}")
                records.append({h: _number(v) for h, v in zip(header, row)})
    except OSError as e:
        raise StriderError(command, 1, f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise StriderError(command, 1, f"{path}: not a CSV text file (byte {e.start} is not "
                                       "UTF-8)") from None
    except csv.Error as e:
        raise StriderError(command, 1, f"{path}: not a CSV text file ({e})") from None
    if not as_frame:
        return records
    try:
        import pandas
    except ImportError as e:
        raise StriderError(command, 1, f"as_frame=True needs pandas: {e}") from None
    return pandas.DataFrame.from_records(records, columns=header)


def _tables(d, keys, as_frame, command):
    if not as_frame:
        return
    try:
        import pandas
    except ImportError as e:
        raise StriderError(command, 1, f"as_frame=True needs pandas: {e}") from None
    for k in keys:
        d[k] = pandas.DataFrame.from_records(d[k])


class Network:
    """An imported network: `layers` (one dict per layer, as `strider inspect --json`), `tensors`
    (name, kind, shape (n, c, h, w), bytes, scale), totals (`macs`, `weights`, `weight_bytes`,
    `activation_bytes`) and the weights and biases as numpy arrays (`weights(layer)`,
    `bias(layer)`, `arrays` by tensor name)."""

    def __init__(self, path, d):
        self.path = str(path)
        summary = json.loads(d["summary"])
        self.name = summary["network"]
        self.layers = summary["layers"]
        self.macs = summary["macs"]
        self.weight_count = summary["weights"]
        self.executed_macs = summary["executed_macs"]
        self.weight_bytes = summary["weight_bytes"]
        self.activation_bytes = summary["activation_bytes"]
        self.summary = summary
        self.tensors = d["tensors"]
        self.arrays = d["arrays"]
        self.warnings = d["warnings"]
        self._nodes = {n["name"]: n for n in d["nodes"]}

    def _array(self, layer, what):
        if layer not in self._nodes:
            raise StriderError(["import_network", self.path], 1, f"no layer named {layer!r}")
        name = self._nodes[layer][what]
        return None if name is None else self.arrays.get(name)

    def weights(self, layer):
        """The layer's int8 weights (conv: [out][in/groups][kh][kw]; fc: [out][in][1][1]), or
        None for a layer without weights."""
        return self._array(layer, "weights")

    def bias(self, layer):
        """The layer's int32 biases, or None."""
        return self._array(layer, "bias")

    def __repr__(self):
        return f"<strider.Network {self.name}: {len(self.layers)} layers, {self.macs} MACs>"


def import_network(path, input=None, batch=None, seed=1, weights=True):
    """Imports a network file (ONNX, YAML or SCALE-Sim CSV) in-process. `input`: (H, W) of every
    graph input; `weights`: materialise the weights (seeded pseudo-random where the file has
    none, as a run does)."""
    command = ["import_network", str(path)]
    h, w = (0, 0) if input is None else (int(input[0]), int(input[1]))
    d = _in_process(command, _strider.import_network, str(path), h, w, int(batch or 0), int(seed),
                    bool(weights))
    return Network(path, d)


def inspect(network, input=None):
    """A network's layers, shapes, MACs and weights: the `strider inspect --json` document,
    computed in-process."""
    return import_network(network, input=input, weights=False).summary


def plan(run_file, set=None, emit=None, as_frame=False):
    """Plans and lowers a run in-process (as `strider plan`); returns memory_plan (tensor, kind,
    offset, size, first, last: lifetimes in schedule steps), lowering (per layer), figures
    (allocator, arena and lower-bound bytes, ...), models, warnings, list (a DescriptorList),
    descriptors (a numpy structured array, one record per descriptor) and deps (the flat
    dependency array the records index). `emit` writes the list as a .strd file."""
    command = ["plan", str(run_file)]
    sets = _sets(command, set)
    command += _set_args(sets)
    d = _in_process(command, _strider.plan, str(run_file), sets)
    d["descriptors"], d["deps"] = d["list"].to_numpy()
    if emit is not None:
        _in_process(command + ["--emit", str(emit)], d["list"].write, str(emit))
    _tables(d, ("memory_plan", "lowering"), as_frame, command)
    return d


def read_descriptors(path):
    """A binary .strd descriptor list (as `strider plan --emit` writes it)."""
    return _in_process(["read_descriptors", str(path)], DescriptorList.read, str(path))


def validate(descriptors, arch, set=None):
    """Checks a descriptor list (a DescriptorList or a .strd path) for the arch file `arch`, as
    every simulation does first; StriderError naming the descriptor, layer and field."""
    command = ["validate", str(descriptors) if isinstance(descriptors, (str, os.PathLike))
               else "<list>", str(arch)]
    sets = _sets(command, set)
    if not isinstance(descriptors, DescriptorList):
        descriptors = read_descriptors(descriptors)
    _in_process(command, descriptors.validate, str(arch), sets, command[1])


def _output_dir(run_file, sets, command):
    """Where the program writes without --out: the run file's output_dir (a .strd run: the
    output_dir set, else the default results/default)."""
    if str(run_file).endswith(".strd"):
        dirs = [s.split("=", 1)[1] for s in sets if s.startswith("output_dir=")]
        return dirs[-1] if dirs else "results/default"
    return _in_process(command, _strider.run_info, str(run_file), sets)["output_dir"]


def run(run_file, set=None, out=None, arch=None, temp=False, keep=False, as_frame=False):
    """Simulates a run file (or a .strd list with `arch`) in a child process; returns a dict
    with the summary (summary.json), the layer table (layers.csv), the output directory (None
    when a temporary one was removed) and the printed log. See the module doc for `out`,
    `temp` and `keep`."""
    command = ["run", str(run_file)]
    sets = _sets(command, set)
    args = command + _set_args(sets)
    if arch is not None:
        args += ["--arch", str(arch)]
    made = None
    if out is not None:
        out_dir = str(out)
    elif temp:
        made = out_dir = tempfile.mkdtemp(prefix="strider-run-")
    else:
        out_dir = _output_dir(run_file, sets, args)
    if out is not None or made is not None:
        args += ["--out", out_dir]
    try:
        log = _call(args)
        try:
            with open(os.path.join(out_dir, "summary.json")) as f:
                summary = json.load(f)
        except (OSError, ValueError) as e:
            raise StriderError(args, 1, f"{out_dir}/summary.json: cannot read: {e}") from None
        result = {"summary": summary, "layers": read_table(os.path.join(out_dir, "layers.csv"),
                                                           as_frame),
                  "out_dir": out_dir, "log": log}
    except BaseException:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
        raise
    if made is not None and not keep:
        shutil.rmtree(made, ignore_errors=True)
        result["out_dir"] = None
    return result


def pack(problem_csv, capacity=None, allocator=None, time_limit=None, seed=None, out=None):
    """Solves a memory-planning problem (`strider pack --json` in a child process); returns the
    report's figures as numbers (buffers, lower_bound, height, gap_percent, capacity (None:
    unbounded), allocator, optimal, proven_by_search, stacked (buffers placed on top once the
    time limit passed), seconds, read_seconds) and, with `out`,
    the solution table under "solution_rows"."""
    args = ["pack", str(problem_csv), "--json"]
    for flag, value in (("--capacity", capacity), ("--allocator", allocator),
                        ("--time-limit", time_limit), ("--seed", seed), ("--out", out)):
        if value is not None:
            args += [flag, _value(value)]
    report = json.loads(_call(args))
    if out is not None:
        report["solution_rows"] = read_table(out)
    return report
