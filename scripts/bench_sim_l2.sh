#!/usr/bin/env bash
# Benchmarks the JEDEC DRAM model's share of a simulation: resnet50 in timing mode with L2 at
# 128 KiB (everything spills: many DRAM requests outstanding at once, so the scheduler's
# speculation does the most work) and at 1 MiB (the seed), RUNS times each (default 3); prints
# the median wall time of each, the simulated cycles and the DRAM requests.
# Exit status 1 when a run fails or the 128 KiB median is over LIMIT seconds (default 30).
# Usage: scripts/bench_sim_l2.sh [RUNS]
#   STRIDER (default build/strider)  the binary to time
#   LIMIT   (default 30)             seconds the 128 KiB median must stay under
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
strider=${STRIDER:-build/strider}
limit=${LIMIT:-30}
if [[ ! "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/bench_sim_l2.sh [RUNS]" >&2
  exit 2
fi
if [[ ! -x "$strider" ]]; then
  echo "bench_sim_l2: $strider not found; build it first (make build, or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench_sim_l2.XXXXXX")
trap 'rm -rf "$out"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

status=0
printf '| resnet50, L2 | median wall s | cycles | DRAM read requests |\n'
printf '|---|---:|---:|---:|\n'
for l2 in 131072 1048576; do
  times=()
  for i in $(seq 1 "$runs"); do
    start=$(date +%s.%N)
    if ! "$strider" run configs/runs/resnet50.yaml --out "$out/$l2" --set "arch.l2.size_bytes=$l2" \
        --set sim.trace=false --set sim.functional=false > "$out/$l2.log" 2>&1; then
      echo "bench_sim_l2: resnet50 at L2 $l2 failed:" >&2
      tail -5 "$out/$l2.log" >&2
      exit 1
    fi
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  med=$(printf '%s\n' "${times[@]}" | median)
  read -r cycles reqs < <(/usr/bin/python3 -c "import json; s = json.load(open('$out/$l2/summary.json')); print(s['cycles'], s['stats']['dram.read_requests']['value'])")
  printf '| %d KiB | %.2f | %d | %d |\n' "$((l2 / 1024))" "$med" "$cycles" "$reqs"
  if [[ $l2 == 131072 ]] && (( $(echo "$med > $limit" | bc -l) )); then
    echo "bench_sim_l2: resnet50 at 128 KiB median ${med}s is over the ${limit}s limit" >&2
    status=1
  fi
done
exit $status
