#!/usr/bin/env bash
# Quantisation fidelity of every network in the repository (issue 18): a functional run of each on
# the seed accelerator at its run file's settings, printing a Markdown row per network with the
# network-output SQNR, the worst layer, the largest saturated fraction of any tensor and the
# functional check's mismatches. Extra ONNX files (e.g. from scripts/export_models.py) may be
# named as arguments. Exits 1 if a run fails.
# Usage: scripts/measure_fidelity.sh [MODEL.onnx...]   (STRIDER: the binary, build/strider)
set -euo pipefail
cd "$(dirname "$0")/.."
strider=${STRIDER:-build/strider}
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_fidelity.XXXXXX")
trap 'rm -rf "$out"' EXIT
default=configs/runs/default.yaml
runs=(
  "tiny_cnn|$default"
  "alexnet_scalesim|$default --set networks[0].path=configs/networks/alexnet_scalesim.csv"
  "mobilenet_v1|$default --set networks[0].path=configs/networks/mobilenet_v1.yaml"
  "mobilenet_v2|configs/runs/mobilenet_v2.yaml"
  "resnet50|configs/runs/resnet50.yaml"
  "googlenet|configs/runs/googlenet.yaml"
  "inception_v3|configs/runs/inception_v3.yaml"
  "densenet121|configs/runs/densenet121.yaml"
  "convnext_tiny|configs/runs/convnext_tiny.yaml"
  "vit_b_16|configs/runs/vit_b_16.yaml"
  "bert_encoder|configs/runs/bert_encoder.yaml"
  "gpt2_decoder|configs/runs/gpt2_decoder.yaml"
  "swin_t|configs/runs/swin_t.yaml"
)
for model in "$@"; do runs+=("$(basename "$model" .onnx)|$default --set networks[0].path=$(realpath "$model")"); done
echo "| network | output SQNR (dB) | worst layer (dB) | max saturated | mismatches |"
echo "|---|---:|---|---:|---:|"
status=0
for r in "${runs[@]}"; do
  name=${r%%|*} args=${r#*|}
  # shellcheck disable=SC2086
  if ! "$strider" run $args --set sim.trace=false --set sim.functional=true \
      --out "$out/$name" > "$out/$name.log" 2>&1; then
    echo "| $name | failed | | | |"; tail -n 5 "$out/$name.log" >&2; status=1; continue
  fi
  /usr/bin/python3 - "$out/$name/summary.json" "$name" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1])); q = s['quant']; f = s['functional']
db = lambda v: 'null' if v is None else f"{v:.1f}"  # null: no finite SQNR (see output_sqnr_note)
print(f"| {sys.argv[2]} | {db(q['output_sqnr_db'])} | {q['worst_layer']} {db(q['worst_layer_sqnr_db'])} "
      f"| {100 * q['max_saturated_fraction']:.2f} % ({q['max_saturated_layer']}) | {f['mismatches']} |")
EOF
done
exit $status
