#!/usr/bin/env bash
# The mapping search is never worse than auto: every run file of configs/runs is simulated with
# arch.lowering.mapping auto and search (timing only, no trace), and the search's simulated
# cycles must not exceed auto's; a search run writes mapping.csv with one row per searched layer
# and its simulated cycles. Then resnet50's search (or the first run's) runs a second time and its
# mapping.csv and layers.csv must be byte-identical (deterministic search). Without run names the
# rest of the torchvision zoo (configs/networks/zoo/*.onnx, each on mobilenet_v2's run file) is
# compared too.
# usage: search_vs_auto.sh STRIDER REPO_ROOT [RUN_NAME...]   (default: every run file and the zoo)
set -euo pipefail
source "$(dirname "$0")/../lib/run_files.sh"
cycles() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$1"; }
fail=0
zoo=()
(( $# )) || zoo=("$root"/configs/networks/zoo/*.onnx)
# compare NAME RUN_FILE [--set ...]: one network with auto and with search.
compare() {
  local net=$1 m a s
  shift
  for m in auto search; do
    "$strider" run "$@" --set "output_dir=$tmp/$net.$m" --set arch.lowering.mapping=$m \
      --set sim.trace=false --set sim.functional=false >"$tmp/$net.$m.txt" 2>&1 ||
      { echo "$net ($m) failed:"; cat "$tmp/$net.$m.txt"; exit 1; }
  done
  a=$(cycles "$tmp/$net.auto/summary.json")
  s=$(cycles "$tmp/$net.search/summary.json")
  echo "$net: auto $a, search $s"
  if (( s > a )); then
    echo "FAIL $net: search $s cycles > auto $a"
    fail=1
  fi
  if [[ ! -s "$tmp/$net.search/mapping.csv" || -e "$tmp/$net.auto/mapping.csv" ]]; then
    echo "FAIL $net: mapping.csv must be written by search runs only"
    fail=1
  fi
}
for run in "${runs[@]}"; do compare "$(basename "$run" .yaml)" "$run"; done
for onnx in "${zoo[@]}"; do
  compare "$(basename "$onnx" .onnx)" "$root/configs/runs/mobilenet_v2.yaml" \
    --set "networks[0].path=$onnx"
done
# Determinism: resnet50's search (or the first run's) again.
again=resnet50
[[ -d "$tmp/$again.search" ]] || again=$(basename "${runs[0]}" .yaml)
head -1 "$tmp/$again.search/mapping.csv" | grep -qx \
  'layer,mapping,block,rows,loop_order,predicted_dram_bytes,predicted_cycles,simulated_cycles,objective,predicted_cost,alternative,alternative_cycles,auto_cycles,auto_over_chosen,candidates,worst_cycles,weight_slot_bytes' ||
  { echo "FAIL: mapping.csv header"; fail=1; }
"$strider" run "$root/configs/runs/$again.yaml" --set "output_dir=$tmp/again" \
  --set arch.lowering.mapping=search --set sim.trace=false --set sim.functional=false \
  >/dev/null 2>&1
for f in mapping.csv layers.csv; do
  cmp -s "$tmp/$again.search/$f" "$tmp/again/$f" ||
    { echo "FAIL: $again's $f differs between two searches"; fail=1; }
done
exit $fail
