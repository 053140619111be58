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

Commands quoted inline in the prose (a `code span` that starts with a program: strider,
build/strider, make, scripts/..., /usr/bin/python3) are checked as well:
  - a synopsis (it has a placeholder: an upper-case word such as NET, FILE.csv, K/N, or [...] or
    ...) must name a program that exists, and every --option it shows must be one the program
    knows (in `strider SUB --help`, or in the script's source);
  - a mention of a program, a subcommand or an option (`scripts/bench_sim.sh`, `strider plan`,
    `strider pack --json`) must name ones that exist;
  - a concrete command runs like a block's command, unless INLINE below says how it is shortened
    (reduced) or why it is not run here (skip, naming what runs it instead).

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

# Concrete inline commands that are too long for a test, or would write into the source tree
# (tests/ and docs/ are links to it): the short form run instead, or why none is.
INLINE = {
    "make test": ("skip", "ctest is this very test run"),
    "make test-asan": ("skip", "CI's .ci/run runs it after make test"),
    "strider sweep configs/sweeps/dataflow.yaml -j 2":
        ("reduced", "build/strider sweep configs/sweeps/dataflow.yaml -j 2 --shard 1/60 "
                    "--out results/doc_dataflow"),
    "build/strider sweep configs/sweeps/bert_seq.yaml -j 1":
        ("reduced", "build/strider sweep configs/sweeps/bert_seq.yaml -j 1 --shard 1/8 "
                    "--out results/doc_bert_seq"),
    "scripts/export_models.py --out-dir results/zoo efficientnet_b0 mobilenet_v3_small":
        ("reduced", "/usr/bin/python3 scripts/export_models.py --help"),
    "/usr/bin/python3 scripts/export_models.py --out-dir tests/e2e/data tiny_qdq_cnn":
        ("reduced", "/usr/bin/python3 scripts/export_models.py --out-dir results/qdq tiny_qdq_cnn"),
    "/usr/bin/python3 scripts/measure_descriptor_memory.py --runs 3 -o "
    "docs/img/memory_descriptors.png":
        ("skip", "minutes long, and it rewrites the figure in docs/img/ that the docs show"),
    "scripts/bench_scale.sh 3": ("skip", "a benchmark of minutes (1 M descriptors a run); run by hand for "
                                   "the figures it prints"),
    "FUZZ_BUILD=build-fuzz scripts/fuzz.sh 600 fuzz_onnx fuzz_scalesim_csv":
        ("skip", "needs clang and 20 min; ctest FuzzReplay.* replays every target's corpus"),
    "scripts/fuzz.sh 600": ("skip", "70 min; ctest FuzzReplay.* replays every target's corpus"),
    # Benchmarks: their speed limits are checked when run by hand on a quiet machine, not on a
    # loaded ctest one; here they run once, with a wide limit.
    "scripts/bench_sim.sh 3": ("reduced", "LIMIT=60 scripts/bench_sim.sh 1"),
    "scripts/bench_sim.sh 5": ("reduced", "LIMIT=60 scripts/bench_sim.sh 1"),
    "MAPPING=search scripts/compare_shift_stride.sh resnet50 mobilenet_v2 googlenet vit_b_16":
        ("reduced", "MAPPING=search scripts/compare_shift_stride.sh mobilenet_v2"),
}

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


PROGRAM = re.compile(r"^(?:[A-Z_]+=\S+\s+)*(build/strider|strider|make|scripts/[\w./-]*|/usr/bin/python3)"
                     r"(?:\s|$)")
PLACEHOLDER = re.compile(r"\.\.\.|\[|(?<![\w.-])[A-Z][A-Z0-9_]*(?![a-z0-9_])")


def inline_spans(path):
    """(line, text) of every inline code span outside fenced blocks that starts with a program."""
    fenced = False
    for number, text in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if text.strip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            for span in re.findall(r"`([^`]+)`", text):
                if PROGRAM.match(span.strip()):
                    yield number, span.strip()


def run(command, limit):
    """(ok, why, output) of one command run in WORK_DIR."""
    try:
        p = subprocess.run(["bash", "-c", "set -o pipefail; " + command], cwd=work, env=env,
                           capture_output=True, text=True, timeout=limit, errors="replace")
        return p.returncode == 0, f"exit {p.returncode}", p.stdout[-2000:] + p.stderr[-2000:]
    except subprocess.TimeoutExpired:
        return False, f"over {limit:g} s", ""


# `strider` in the prose is the program the build made (as installed, it is on PATH).
env = dict(os.environ, PATH=os.path.join(work, "build") + os.pathsep + os.environ.get("PATH", ""))
help_text = {}


def program_text(command):
    """What a synopsis' options are checked against: `strider SUB --help`, a script's source."""
    words = re.sub(r"^(?:[A-Z_]+=\S+\s+)*", "", command).split()
    if words[0] == "/usr/bin/python3" and len(words) > 1:
        words = words[1:]
    if words[0] in ("strider", "build/strider"):
        sub = words[1] if len(words) > 1 and not words[1].startswith("-") and \
            not PLACEHOLDER.match(words[1]) else ""
        if sub not in help_text:
            ok, why, out = run(f"build/strider {sub} --help", 60)
            help_text[sub] = out if ok else None
        return help_text[sub], f"strider {sub} --help".replace("  ", " ")
    if words[0].startswith("scripts/"):
        path = words[0].rstrip("/")
        if os.path.exists(path):
            return (open(path, encoding="utf-8").read() if os.path.isfile(path) else ""), path
        return None, path
    return "", words[0]


failures, ran, skipped, checked, done = [], 0, 0, 0, set()
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
            ok, why, output = run(command, limit)
            ran += 1
            print(f"{doc}:{line}: {time.time() - t0:6.2f} s  {command}")
            done.add(command)
            if not ok:
                failures.append(f"{doc}:{line}: {command}: {why}\n{output}")
# Inline commands after every block ran: one a block runs already is not run twice.
for doc in docs:
    for line, span in inline_spans(doc):
        text, program = program_text(span)
        if text is None:
            failures.append(f"{doc}:{line}: `{span}`: {program} does not exist or fails")
            continue
        words = re.sub(r"^(?:[A-Z_]+=\S+\s+)*", "", span).split()[1:]
        mention = all(w.startswith("-") or (i == 0 and re.fullmatch(r"[a-z]+", w))
                      for i, w in enumerate(words))
        if mention or PLACEHOLDER.search(" ".join(words)):
            checked += 1
            for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", span):
                if option not in text:
                    failures.append(f"{doc}:{line}: `{span}`: {program} knows no {option}")
            continue
        kind, arg = INLINE.get(span, ("run", span))
        if arg in done or re.sub(r"^strider ", "build/strider ", arg) in done:
            continue
        if kind == "skip":
            skipped += 1
            print(f"{doc}:{line}: skipped inline `{span}`: {arg}")
            continue
        t0 = time.time()
        ok, why, output = run(arg, 60.0)
        ran += 1
        done.add(arg)
        print(f"{doc}:{line}: {time.time() - t0:6.2f} s  inline {arg}")
        if not ok:
            failures.append(f"{doc}:{line}: inline `{span}` (ran {arg}): {why}\n{output}")
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
print(f"{ran} commands run, {checked} synopses checked, {skipped} skipped, "
      f"{time.time() - started:.1f} s")
if failures:
    print("\n".join(failures))
    sys.exit(1)
