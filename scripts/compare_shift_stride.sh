#!/usr/bin/env bash
# Shift-stride writes on and off over the network zoo (seed accelerator, full input sizes):
# runs every network with arch.l1.shift_stride true and false and prints a Markdown table of
# line-buffer write cycles and total cycles per network (the README table of issue 7).
# With --functional each point also runs in functional mode, and the script checks that every
# layer matches the reference and that the cycles equal the timing run's (a column says so).
# Usage: scripts/compare_shift_stride.sh [--functional] [NETWORK...]
#   NETWORK: a zoo name (tiny_cnn mobilenet_v1 mobilenet_v2 resnet50 googlenet inception_v3
#            densenet121, the default being all of them)
#   STRIDER (default build/strider)  the binary to run
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
  local dir="$out/$1.$2.$3" args
  args=$(run_args "$1") || return 1
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
head = "| network | LB write cycles (shift) | LB write cycles (per line) | ratio | cycles (shift) | cycles (per line) | speed-up |"
rule = "|---|---:|---:|---:|---:|---:|---:|"
if functional:
    head += " functional (shift / per line) |"
    rule += "---|"
print(head)
print(rule)
ok = True
for net in nets:
    on, off = load(net, "true", "false"), load(net, "false", "false")
    if not on or not off:
        print(f"| {net} | failed | | | | | |" + (" |" if functional else ""))
        ok = False
        continue
    lb_on, lb_off = on["line_buffer"]["write_cycles"], off["line_buffer"]["write_cycles"]
    c_on, c_off = on["cycles"], off["cycles"]
    row = (f"| {net} | {lb_on:,} | {lb_off:,} | {lb_off / max(lb_on, 1):.2f}x | {c_on:,} | "
           f"{c_off:,} | {c_off / max(c_on, 1):.2f}x |")
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
