#!/usr/bin/python3
"""Checks that docs/onnx-conformance.md ends with the table `onnx_conformance --markdown` prints
now (every case's status and refusal text), so a change to the importer that moves a case shows
up as a test failure until the table is regenerated.

Usage: check_table.py ONNX_CONFORMANCE_BINARY DOC_FILE
"""
import subprocess
import sys


def main():
    binary, doc = sys.argv[1], sys.argv[2]
    run = subprocess.run([binary, "--markdown"], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        print(f"check_table: {binary} --markdown exited {run.returncode}")
        return 1
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    if not text.endswith(run.stdout):
        want = run.stdout.splitlines()
        have = text.splitlines()[-len(want):]
        for i, (w, h) in enumerate(zip(want, have)):
            if w != h:
                print(f"check_table: {doc}: table line {i + 1} differs:\n  doc: {h}\n  now: {w}")
                break
        print(f"check_table: {doc} does not end with the table of `{binary} --markdown`; "
              "regenerate it (docs/onnx-conformance.md says how)")
        return 1
    print(f"check_table: {doc} matches ({len(run.stdout.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
