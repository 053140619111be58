#!/usr/bin/env bash
# Benchmarks scripts/plot_run.py (issue 19: plotting a resnet50 run under 2 s): simulates each
# network once, then plots its result directory RUNS times (default 5) and prints the median wall
# and CPU seconds (CPU: the script and its drawing workers). Exit status 1 when a run or a plot
# fails or resnet50's median wall time is over LIMIT seconds (default 2).
# Usage: scripts/bench_plot.sh [RUNS]
#   STRIDER (default build/strider)  the binary that writes the result directories
#   LIMIT   (default 2)              seconds resnet50's median must stay under
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
strider=${STRIDER:-build/strider}
limit=${LIMIT:-2}
if [[ ! "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/bench_plot.sh [RUNS]" >&2
  exit 2
fi
if [[ ! -x "$strider" ]]; then
  echo "bench_plot: $strider not found; build it first (make build, or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench_plot.XXXXXX")
trap 'rm -rf "$out"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

status=0
printf '| network | layers | median wall s | median CPU s |\n|---|---:|---:|---:|\n'
for net in resnet50 densenet121; do
  if ! "$strider" run "configs/runs/$net.yaml" --out "$out/$net" > "$out/$net.log" 2>&1; then
    echo "bench_plot: $net failed:" >&2
    tail -5 "$out/$net.log" >&2
    exit 1
  fi
  walls=() cpus=()
  for i in $(seq 1 "$runs"); do
    if ! /usr/bin/time -f "%e %U %S" -o "$out/time" /usr/bin/python3 scripts/plot_run.py \
        "$out/$net" > "$out/plot.log" 2>&1; then
      echo "bench_plot: plot_run.py failed on $net:" >&2
      tail -5 "$out/plot.log" >&2
      exit 1
    fi
    read -r wall user sys < "$out/time"
    walls+=("$wall")
    cpus+=("$(echo "$user + $sys" | bc)")
  done
  wall=$(printf '%s\n' "${walls[@]}" | median)
  cpu=$(printf '%s\n' "${cpus[@]}" | median)
  layers=$(($(wc -l < "$out/$net/layers.csv") - 1))
  printf '| %s | %d | %.2f | %.2f |\n' "$net" "$layers" "$wall" "$cpu"
  if [[ $net == resnet50 ]] && (( $(echo "$wall > $limit" | bc) )); then
    echo "bench_plot: resnet50 median $wall s is over $limit s" >&2
    status=1
  fi
done
exit $status
