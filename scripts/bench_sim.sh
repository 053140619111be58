#!/usr/bin/env bash
# Benchmarks timing-mode simulation of the zoo on the seed accelerator: runs each network RUNS
# times (default 3) and prints, per network, the median wall time of the whole run (import, plan,
# lower, simulate, reports), the simulated cycles and simulated cycles per wall second, and how
# efficient the modelled design is: MAC utilisation, the network's bound max(MACs / peak, DRAM
# bytes / bandwidth, busiest L2 port bytes / port bandwidth) and cycles over that bound.
# Exit status 1 when a run fails, resnet50's median is over LIMIT seconds (default 1, issue 14),
# or a network is over its efficiency target (issue 14: resnet50 and googlenet 1.35x their bound,
# mobilenet_v2 1.7x on the JEDEC DRAM model (1.6x on the flat pipe, issue 25), every other 2x).
# Usage: scripts/bench_sim.sh [RUNS]
#   STRIDER (default build/strider)  the binary to time
#   LIMIT   (default 1)              seconds resnet50's median must stay under
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
strider=${STRIDER:-build/strider}
limit=${LIMIT:-1}
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
printf '| network | median wall s | cycles | simulated cycles / s | utilisation | bound | cycles / bound |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
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
  read -r cycles util bound over < <(/usr/bin/python3 -c "import json; s = json.load(open('$out/$net/summary.json')); print(s['cycles'], s['utilization'], s['bound_cycles'], s['cycles_over_bound'])")
  rate=$(echo "$cycles / $med" | bc -l)
  printf '| %s | %.2f | %d | %.3g | %.1f %% | %d | %.2fx |\n' "$net" "$med" "$cycles" "$rate" \
    "$(echo "$util * 100" | bc -l)" "$bound" "$over"
  case $net in resnet50 | googlenet) target=1.35 ;; mobilenet_v2) target=1.7 ;; *) target=2 ;; esac
  if (( $(echo "$over > $target" | bc -l) )); then
    echo "bench_sim: $net runs at ${over}x its bound, over the ${target}x target" >&2
    status=1
  fi
  if [[ $net == resnet50 ]] && (( $(echo "$med > $limit" | bc -l) )); then
    echo "bench_sim: resnet50 median ${med}s is over the ${limit}s limit" >&2
    status=1
  fi
done
exit $status
