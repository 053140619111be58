#!/usr/bin/env bash
# Benchmarks timing-mode simulation of the zoo on the seed accelerator: runs each network RUNS
# times (default 3) and prints, per network, the median wall time of the whole run (import, plan,
# lower, simulate, reports), the simulated cycles and simulated cycles per wall second.
# Exit status 1 when a run fails or resnet50's median is over LIMIT seconds (default 2, issue 8).
# Usage: scripts/bench_sim.sh [RUNS]
#   STRIDER (default build/strider)  the binary to time
#   LIMIT   (default 2)              seconds resnet50's median must stay under
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
strider=${STRIDER:-build/strider}
limit=${LIMIT:-2}
if [[ ! "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/bench_sim.sh [RUNS]" >&2
  exit 2
fi
if [[ ! -x "$strider" ]]; then
  echo "bench_sim: $strider not found; build it first (make build, or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench_sim.XXXXXX")
trap 'rm -rf "$out"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

status=0
printf '| network | median wall s | cycles | simulated cycles / s |\n|---|---:|---:|---:|\n'
for net in resnet50 mobilenet_v2 inception_v3 googlenet densenet121; do
  times=()
  for i in $(seq 1 "$runs"); do
    start=$(date +%s.%N)
    if ! "$strider" run "configs/runs/$net.yaml" --out "$out/$net" > "$out/$net.log" 2>&1; then
      echo "bench_sim: $net failed:" >&2
      cat "$out/$net.log" >&2
      exit 1
    fi
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  med=$(printf '%s\n' "${times[@]}" | median)
  cycles=$(/usr/bin/python3 -c "import json; print(json.load(open('$out/$net/summary.json'))['cycles'])")
  rate=$(echo "$cycles / $med" | bc -l)
  printf '| %s | %.2f | %d | %.3g |\n' "$net" "$med" "$cycles" "$rate"
  if [[ $net == resnet50 ]] && (( $(echo "$med > $limit" | bc -l) )); then
    echo "bench_sim: resnet50 median ${med}s is over the ${limit}s limit" >&2
    status=1
  fi
done
exit $status
