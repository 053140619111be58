#!/usr/bin/env bash
# Functional mode across the DNN module's dataflow options (issue 14): every zoo network in
# several mappings x accumulator counts x shift-stride settings, at 1 MiB and (for two networks)
# 128 KiB L2. Each point must check every layer bit-exactly against the C++ reference with zero
# mismatches and report the same cycles as the timing-only run. Prints a Markdown table.
# Usage: scripts/check_functional_matrix.sh [NETWORK...]   (STRIDER: the binary, build/strider)
set -euo pipefail
cd "$(dirname "$0")/.."
strider=${STRIDER:-build/strider}
nets=("${@:-tiny_cnn mobilenet_v1 mobilenet_v2 resnet50 googlenet inception_v3 densenet121}")
read -r -a nets <<< "${nets[*]}"
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_fmatrix.XXXXXX")
trap 'rm -rf "$out"' EXIT
run_file() {
  case $1 in
    tiny_cnn) echo "configs/runs/default.yaml" ;;
    mobilenet_v1) echo "configs/runs/default.yaml --set networks[0].path=configs/networks/mobilenet_v1.yaml" ;;
    *) echo "configs/runs/$1.yaml" ;;
  esac
}
# name|overrides
points=(
  "auto A8 shift|"
  "channels A4 per-line|--set arch.lowering.mapping=channels --set arch.neurons.accumulators=4 --set arch.l1.shift_stride=false"
  "positions A1 no-pad|--set arch.lowering.mapping=positions --set arch.neurons.accumulators=1 --set arch.l1.pad_in_block=false"
  "auto A16|--set arch.neurons.accumulators=16 --set arch.l1.size_bytes=10240"
)
status=0
echo "| network | L2 | point | layers checked | mismatches | cycles (functional = timing) |"
echo "|---|---:|---|---:|---:|---|"
check() {  # check NET L2 NAME OVERRIDES
  local net=$1 l2=$2 name=$3 over=$4 d="$out/$1.$2.${3// /_}" args
  args=$(run_file "$net")
  # shellcheck disable=SC2086
  if ! "$strider" run $args $over --set arch.l2.size_bytes=$l2 --set sim.trace=false \
        --out "$d.t" > "$d.t.log" 2>&1 ||
     ! "$strider" run $args $over --set arch.l2.size_bytes=$l2 --set sim.trace=false \
        --set sim.functional=true --out "$d.f" > "$d.f.log" 2>&1; then
    echo "| $net | $l2 | $name | failed | | |"; tail -n 5 "$d.t.log" "$d.f.log" >&2; status=1; return
  fi
  /usr/bin/python3 - "$d" "$net" "$l2" "$name" <<'PY' || status=1
import json, sys
d, net, l2, name = sys.argv[1:]
t, f = (json.load(open(f"{d}.{k}/summary.json")) for k in "tf")
fc = f["functional"]
same = t["cycles"] == f["cycles"]
print(f"| {net} | {int(l2) // 1024} KiB | {name} | {fc['checked_tensors']} | {fc['mismatches']} | "
      f"{f['cycles']:,} {'=' if same else '!='} {t['cycles']:,} |")
sys.exit(0 if same and fc["mismatches"] == 0 and fc["checked_tensors"] > 0 else 1)
PY
}
for net in "${nets[@]}"; do
  for p in "${points[@]}"; do check "$net" 1048576 "${p%%|*}" "${p#*|}"; done
done
for net in resnet50 mobilenet_v2; do
  for p in "${points[0]}" "${points[1]}"; do check "$net" 131072 "${p%%|*}" "${p#*|}"; done
done
exit $status
