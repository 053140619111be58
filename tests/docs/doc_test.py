#!/usr/bin/python3
"""ctest doc_commands: every shell command shown in README.md and docs/*.md runs.

Each fenced ```sh block of the documents is split into commands (one a line, a trailing
backslash continuing it) and each runs with bash in WORK_DIR, which links the source tree's
configs/, scripts/, tests/ and docs/ and names the build under test `build/`: the commands run as
written, and what they write (results/...) stays in WORK_DIR, never in the source tree. A
command must exit 0 within its time limit (60 s, or the block's `timeout`), else the test fails
naming the document, line and output.

Markers, an HTML comment on the line right before the block (invisible on GitHub):
  <!-- doc-test: skip REASON -->        the block is not run (REASON says what runs it instead)
  <!-- doc-test: reduced COMMAND -->     the block runs COMMAND instead (a deliberately long
                                          command in a short form, e.g. one shard of a sweep)
  <!-- doc-test: timeout SECONDS -->     the block's per-command limit

Besides, every stat in the tour run's summary.json must have its row in docs/model.md.

Usage: doc_test.py BUILD_DIR WORK_DIR [DOC...] from the source directory (default: README.md and
docs/*.md).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import time

build, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
docs = sys.argv[3:] or ["README.md"] + sorted(glob.glob("docs/*.md"))
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
for name in ("configs", "scripts", "tests", "docs"):
    os.symlink(os.path.abspath(name), os.path.join(work, name))
os.symlink(build, os.path.join(work, "build"))

MARKER = re.compile(r"<!--\s*doc-test:\s*(skip|reduced|timeout)\s*(.*?)\s*-->")


def blocks(path):
    """(line of the first command, [commands], marker, argument) per ```sh block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() in ("```sh", "```bash", "```shell"):
            m = MARKER.search(lines[i - 1]) if i > 0 else None
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            commands, current = [], ""
            for line in body:
                if line.rstrip().endswith("\\"):
                    current += line.rstrip()[:-1] + " "
                    continue
                current += line
                if current.strip() and not current.strip().startswith("#"):
                    commands.append(current.strip())
                current = ""
            yield start + 1, commands, (m.group(1) if m else None), (m.group(2) if m else "")
        i += 1


failures, ran, skipped = [], 0, 0
started = time.time()
for doc in docs:
    for line, commands, marker, arg in blocks(doc):
        if marker == "skip":
            skipped += len(commands)
            print(f"{doc}:{line}: skipped {arg}")
            continue
        limit = float(arg) if marker == "timeout" else 60.0
        if marker == "reduced":
            commands = [arg]
        for command in commands:
            t0 = time.time()
            try:
                p = subprocess.run(["bash", "-c", "set -o pipefail; " + command], cwd=work,
                                   capture_output=True, text=True, timeout=limit,
                                   errors="replace")
                ok, output = p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
                why = f"exit {p.returncode}"
            except subprocess.TimeoutExpired:
                ok, output, why = False, "", f"over {limit:g} s"
            ran += 1
            print(f"{doc}:{line}: {time.time() - t0:6.2f} s  {command}")
            if not ok:
                failures.append(f"{doc}:{line}: {command}: {why}\n{output}")
# The model reference lists every stat a run reports (docs/model.md "Every stat"), so a stat added
# to a unit without its line in the reference fails here.
summary = os.path.join(work, "results", "tour", "summary.json")
if "docs/model.md" in docs and os.path.exists(summary):
    import json
    reference = open("docs/model.md", encoding="utf-8").read()
    for stat in json.load(open(summary))["stats"]:
        if f"| `{stat}` |" not in reference:
            failures.append(f"docs/model.md: stat {stat} (summary.json of the tour's run) is not "
                            "in the table 'Every stat'")
print(f"{ran} commands run, {skipped} skipped, {time.time() - started:.1f} s")
if failures:
    print("\n".join(failures))
    sys.exit(1)
