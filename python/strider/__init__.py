"""Strider from Python: run, plan, inspect and pack as the `strider` program does.

Every call runs the `strider` program in a child process (SystemC elaborates once per process,
so a simulation cannot run twice in one), waits for it and reads what it wrote:

    import strider
    r = strider.run("configs/runs/resnet50.yaml", set={"arch.l2.size_bytes": 524288})
    r["summary"]["cycles"]      # summary.json as a dict
    r["layers"]                 # layers.csv: a list of dicts (as_frame=True: a pandas DataFrame)

The program is the one this package was built or installed with; the environment variable
STRIDER_PROGRAM names another. A failed call raises StriderError with the program's message.
"""

import json
import os
import re
import tempfile

from . import _paths
from ._strider import git_revision, read_csv as _read_csv, run_program as _run_program, version

__all__ = ["run", "plan", "inspect", "pack", "program", "version", "git_revision", "StriderError",
           "read_table"]
__version__ = version


class StriderError(RuntimeError):
    """A strider command failed: `returncode` (1 error, 2 usage) and `stderr` say why."""

    def __init__(self, args, returncode, stderr):
        super().__init__(f"strider {' '.join(args)} failed with exit code {returncode}: "
                         f"{stderr.strip()}")
        self.returncode = returncode
        self.stderr = stderr


def program():
    """The path of the strider program the calls run."""
    return os.environ.get("STRIDER_PROGRAM") or _paths.PROGRAM


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _call(args):
    code, out, err = _run_program([program()] + list(args))
    if code != 0:
        raise StriderError(list(args), code, err)
    return out


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_table(path, as_frame=False):
    """A CSV report as a list of dicts (numbers converted); with as_frame=True a pandas DataFrame
    (StriderError when pandas is not installed). Plain types by default, so the result is the
    same whether or not pandas happens to be installed."""
    header, rows = _read_csv(str(path))
    records = [{h: _number(v) for h, v in zip(header, row)} for row in rows]
    if not as_frame:
        return records
    try:
        import pandas
    except ImportError as e:
        raise StriderError(["read_table", str(path)], 1, f"as_frame=True needs pandas: {e}")
    return pandas.DataFrame.from_records(records, columns=header)


def _sets(set):
    args = []
    for key, value in (set or {}).items():
        args += ["--set", f"{key}={_value(value)}"]
    return args


def _out_dir(out, prefix):
    return str(out) if out is not None else tempfile.mkdtemp(prefix=prefix)


def run(run_file, set=None, out=None, arch=None, as_frame=False):
    """Simulates a run file (or a .strd list with `arch`); returns a dict with the summary
    (summary.json), the layer table (layers.csv), the output directory and the printed log."""
    out = _out_dir(out, "strider-run-")
    args = ["run", str(run_file), "--out", out] + _sets(set)
    if arch is not None:
        args += ["--arch", str(arch)]
    log = _call(args)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return {"summary": summary, "layers": read_table(os.path.join(out, "layers.csv"), as_frame),
            "out_dir": out, "log": log}


def plan(run_file, set=None, out=None, emit=None, as_frame=False):
    """Plans and lowers a run without simulating; returns the memory plan and the lowering
    tables, the output directory and the printed plan."""
    out = _out_dir(out, "strider-plan-")
    args = ["plan", str(run_file), "--out", out] + _sets(set)
    if emit is not None:
        args += ["--emit", str(emit)]
    log = _call(args)
    return {"memory_plan": read_table(os.path.join(out, "plan_memory.csv"), as_frame),
            "lowering": read_table(os.path.join(out, "plan_lowering.csv"), as_frame), "out_dir": out,
            "log": log}


def inspect(network, input=None):
    """A network's layers, shapes, MACs and weights (`strider inspect --json`) as a dict."""
    args = ["inspect", str(network), "--json"]
    if input is not None:
        args += ["--input", f"{input[0]},{input[1]}"]
    return json.loads(_call(args))


def pack(problem_csv, capacity=None, allocator=None, time_limit=None, seed=None, out=None):
    """Solves a memory-planning problem; returns the report's figures as a dict (lower_bound,
    height, gap, capacity, allocator, optimal, ...) and, with `out`, the solution table."""
    args = ["pack", str(problem_csv)]
    for flag, value in (("--capacity", capacity), ("--allocator", allocator),
                        ("--time-limit", time_limit), ("--seed", seed), ("--out", out)):
        if value is not None:
            args += [flag, _value(value)]
    log = _call(args)
    report = {}
    for line in log.splitlines()[1:]:  # "  lower bound  1234": name and value 2+ spaces apart
        parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if len(parts) == 2:
            report[parts[0].replace(" ", "_")] = _number(parts[1])
    result = {"report": report, "log": log}
    if out is not None:
        result["solution"] = read_table(out)
    return result
