#!/usr/bin/env bash
# Benchmarks timing-mode simulation on the seed accelerator, RUNS times each (default 3), and
# prints medians of the wall time of the whole run (import, plan, lower, simulate, reports).
#
# Default mode, the zoo: per network the median wall time, the simulated cycles and simulated
# cycles per wall second, and how efficient the modelled design is: MAC utilisation, the network's
# bound max(MACs / peak, DRAM bytes / bandwidth, busiest L2 port bytes / port bandwidth) and
# cycles over that bound. Exit status 1 when a run fails, resnet50's median is over LIMIT seconds
# (default 1, issue 14), or a network is over its efficiency target (issue 14: resnet50 and
# googlenet 1.35x their bound, mobilenet_v2 1.7x on the JEDEC DRAM model, every other 2x).
#
# --l2 mode, the JEDEC DRAM model's share of a simulation: resnet50 with L2 at 128 KiB
# (everything spills: many DRAM requests outstanding at once, so the scheduler's speculation does
# the most work) and at 1 MiB (the seed); the median wall time, the simulated cycles and the DRAM
# read requests. Exit status 1 when a run fails or the 128 KiB median is over LIMIT seconds
# (default 30).
#
# Usage: scripts/bench_sim.sh [--l2] [RUNS]
#   STRIDER (default build/strider)  the binary to time
#   LIMIT                            seconds the timed median must stay under (see above)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=zoo
if [[ ${1:-} == --l2 ]]; then
  mode=l2
  shift
fi
runs=${1:-3}
strider=${STRIDER:-build/strider}
if [[ $mode == l2 ]]; then limit=${LIMIT:-30}; else limit=${LIMIT:-1}; fi
if [[ ! "$runs" =~ ^[1-9][0-9]*$ || $# -gt 1 ]]; then
  echo "usage: scripts/bench_sim.sh [--l2] [RUNS]" >&2
  exit 2
fi
if [[ ! -x "$strider" ]]; then
  echo "bench_sim: $strider not found; build it first (make build, or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench_sim.XXXXXX")
trap 'rm -rf "$out"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# timed_runs NAME RUN_FILE [--set ...]: runs it RUNS times into $out/NAME, prints the median wall s.
timed_runs() {
  local name=$1 run_file=$2
  shift 2
  local times=() i start end
  for i in $(seq 1 "$runs"); do
    start=$(date +%s.%N)
    if ! "$strider" run "$run_file" --out "$out/$name" "$@" > "$out/$name.log" 2>&1; then
      echo "bench_sim: $name failed:" >&2
      tail -20 "$out/$name.log" >&2
      exit 1
    fi
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | median
}

status=0
if [[ $mode == l2 ]]; then
  printf '| resnet50, L2 | median wall s | cycles | DRAM read requests |\n'
  printf '|---|---:|---:|---:|\n'
  for l2 in 131072 1048576; do
    med=$(timed_runs "l2_$l2" configs/runs/resnet50.yaml --set "arch.l2.size_bytes=$l2" \
      --set sim.trace=false --set sim.functional=false)
    read -r cycles reqs < <(/usr/bin/python3 -c "import json; s = json.load(open('$out/l2_$l2/summary.json')); print(s['cycles'], s['stats']['dram.read_requests']['value'])")
    printf '| %d KiB | %.2f | %d | %d |\n' "$((l2 / 1024))" "$med" "$cycles" "$reqs"
    if [[ $l2 == 131072 ]] && (( $(echo "$med > $limit" | bc -l) )); then
      echo "bench_sim: resnet50 at 128 KiB median ${med}s is over the ${limit}s limit" >&2
      status=1
    fi
  done
  exit $status
fi

printf '| network | median wall s | cycles | simulated cycles / s | utilisation | bound | cycles / bound |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
for net in resnet50 mobilenet_v2 inception_v3 googlenet densenet121; do
  med=$(timed_runs "$net" "configs/runs/$net.yaml")
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
