#!/usr/bin/env bash
# Shift-stride writes on and off over the network zoo (seed accelerator, full input sizes):
# runs every network with arch.l1.shift_stride true and false and prints a Markdown table of
# line-buffer write cycles and cycles per network and per layer class (layers.csv `class`: conv
# = k>1 convolutions, depthwise, pool, pointwise = 1x1 convolutions and fully-connected, eltwise),
# class cycles being the sum of those layers' spans (the README table).
# With --functional each point also runs in functional mode, and the script checks that every
# layer matches the reference and that the cycles equal the timing run's (a column says so).
# Usage: scripts/compare_shift_stride.sh [--functional] [NETWORK...]
#   NETWORK: a zoo name (tiny_cnn mobilenet_v1 mobilenet_v2 resnet50 googlenet inception_v3
#            densenet121, the default being all of them)
#   STRIDER (default build/strider)  the binary to run
#   MAPPING (default: the run file's) arch.lowering.mapping; MAPPING=search compares each side at
#            its own best mapping (planner/lower/mapper.h): "off" is then the best the search
#            finds without shifted writes, im2col included. The last column counts the layers of
#            each class per mapping on each side (layers.csv `mapping`).
#   SETS (default none) more KEY=VALUE overrides for both sides, space-separated
#            (e.g. SETS=arch.lowering.weight_slot_bytes=262144)
# Exit status 1 when a run fails or a functional check does not hold.
set -euo pipefail
cd "$(dirname "$0")/.."

functional=0
if [[ "${1:-}" == "--functional" ]]; then
  functional=1
  shift
fi
nets=("${@:-tiny_cnn mobilenet_v1 mobilenet_v2 resnet50 googlenet inception_v3 densenet121}")
read -r -a nets <<< "${nets[*]}"
strider=${STRIDER:-build/strider}
if [[ ! -x "$strider" ]]; then
  echo "compare_shift_stride: $strider not found; build it first (or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_shift.XXXXXX")
trap 'rm -rf "$out"' EXIT

# The run file of a zoo network: configs/runs/<net>.yaml, else the default run with its network
# replaced (a path given with --set is relative to the current directory).
run_args() {
  local net=$1
  if [[ -f "configs/runs/$net.yaml" ]]; then
    echo "configs/runs/$net.yaml"
  elif [[ "$net" == tiny_cnn ]]; then
    echo "configs/runs/default.yaml"
  elif [[ -f "configs/networks/$net.yaml" ]]; then
    echo "configs/runs/default.yaml --set networks[0].path=configs/networks/$net.yaml"
  elif [[ -f "configs/networks/$net.onnx" ]]; then
    echo "configs/runs/default.yaml --set networks[0].path=configs/networks/$net.onnx"
  else
    echo "compare_shift_stride: unknown network '$net'" >&2
    return 1
  fi
}

status=0
point() {  # point NET SHIFT FUNCTIONAL -> writes $out/NET.SHIFT.FUNCTIONAL/summary.json
  local dir="$out/$1.$2.$3" args s
  args=$(run_args "$1") || return 1
  if [[ -n "${MAPPING:-}" ]]; then args="$args --set arch.lowering.mapping=$MAPPING"; fi
  for s in ${SETS:-}; do args="$args --set $s"; done
  # shellcheck disable=SC2086
  if ! "$strider" run $args --set "arch.l1.shift_stride=$2" --set "sim.functional=$3" \
      --set sim.trace=false --out "$dir" > "$dir.log" 2>&1; then
    echo "compare_shift_stride: $1 shift_stride=$2 functional=$3 failed:" >&2
    tail -n 20 "$dir.log" >&2
    return 1
  fi
}

for net in "${nets[@]}"; do
  for shift in true false; do
    point "$net" "$shift" false || status=1
    if [[ $functional == 1 ]]; then point "$net" "$shift" true || status=1; fi
  done
done

/usr/bin/python3 - "$out" "$functional" "${nets[@]}" <<'EOF' || status=1
import json, os, sys
out, functional, nets = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
def load(net, shift, func):
    p = os.path.join(out, f"{net}.{shift}.{func}", "summary.json")
    return json.load(open(p)) if os.path.exists(p) else None
import csv
def classes(net, shift):
    rows = csv.DictReader(open(os.path.join(out, f"{net}.{shift}.false", "layers.csv")))
    agg = {}
    for r in rows:
        if not r["class"]:
            continue
        a = agg.setdefault(r["class"], [0, 0, {}])
        a[0] += int(r["lb_write_cycles"])
        a[1] += int(r["cycles"])
        a[2][r["mapping"]] = a[2].get(r["mapping"], 0) + 1
    return agg
def mappings(counts):
    return ", ".join(f"{m} {n}" for m, n in sorted(counts.items()))
head = ("| network | layers | LB write cycles (shift) | LB write cycles (per line) | ratio | "
        "cycles (shift) | cycles (per line) | speed-up | mappings (shift / per line) |")
rule = "|---|---|---:|---:|---:|---:|---:|---:|---|"
if functional:
    head += " functional (shift / per line) |"
    rule += "---|"
print(head)
print(rule)
ok = True
def ratio(a, b):
    return f"{b / a:.2f}x" if a else "-"
for net in nets:
    on, off = load(net, "true", "false"), load(net, "false", "false")
    if not on or not off:
        print(f"| {net} | failed | | | | | | | |" + (" |" if functional else ""))
        ok = False
        continue
    c_on, c_off = classes(net, "true"), classes(net, "false")
    for cls in ("conv", "depthwise", "pool", "pointwise", "eltwise"):
        if cls not in c_on:
            continue
        (lb1, cy1, m1), (lb2, cy2, m2) = c_on[cls], c_off.get(cls, [0, 0, {}])
        print(f"| {net} | {cls} | {lb1:,} | {lb2:,} | {ratio(lb1, lb2)} | {cy1:,} | {cy2:,} | "
              f"{ratio(cy1, cy2)} | {mappings(m1)} / {mappings(m2)} |" + (" |" if functional else ""))
    lb_on, lb_off = on["line_buffer"]["write_cycles"], off["line_buffer"]["write_cycles"]
    row = (f"| {net} | **all** | {lb_on:,} | {lb_off:,} | {ratio(lb_on, lb_off)} | "
           f"{on['cycles']:,} | {off['cycles']:,} | {ratio(on['cycles'], off['cycles'])} | |")
    if functional:
        cells = []
        for shift, timing in (("true", on), ("false", off)):
            f = load(net, shift, "true")
            if not f:
                cells.append("failed")
                ok = False
                continue
            fc = f["functional"]
            same = f["cycles"] == timing["cycles"]
            good = same and fc["mismatches"] == 0 and fc["checked_tensors"] > 0
            ok &= good
            cells.append(f"{fc['checked_tensors']} layers, {fc['mismatches']} mismatches"
                         + ("" if same else f", cycles {f['cycles']:,} != {timing['cycles']:,}"))
        row += " " + " / ".join(cells) + " |"
    print(row)
sys.exit(0 if ok else 1)
EOF
exit $status
