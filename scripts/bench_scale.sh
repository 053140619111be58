#!/usr/bin/env bash
# Scale benchmark (issue 15): import and planning must stay linear in the size of the network and
# of the descriptor list. Generates two inputs in a temporary directory and times them RUNS times
# (default 3) with /usr/bin/time -v:
#   import  a SCALE-Sim conv topology of ROWS rows (default 100,000; 16x16x8 3x3 convs, each
#           chained onto the previous one), imported by `strider inspect`;
#   chain   a SCALE-Sim GEMM topology of GEMMS chained GEMMs (default 32) of M=16384, N=K=1024,
#           whose 16 MiB activations spill to DRAM (row bands): about 33,000 descriptors each,
#           planned, lowered and simulated by `strider run` (timing mode, no trace).
#   check   the chain's list, planned by `strider plan --check`, which validates it as `strider
#           run` does (structure, limits, data flow): the median processor time of the check
#           alone (its own figure in the output), at GEMMS / 2 and GEMMS chained GEMMs (the ratio
#           shows how it scales with the list).
# Prints per case the median wall time, the median CPU time (user + sys: the figure that does
# not depend on what else the machine runs), the peak RSS (largest over the runs) and, for the
# chain, the descriptor count. Exit status 1 when a run fails or a median CPU time or peak RSS is
# over its target (import: 2 s; chain: 20 s and 1.5 GB; check: 2 s).
# Usage: scripts/bench_scale.sh [RUNS]
#   STRIDER (default build/strider)  ROWS (default 100000)  GEMMS (default 32)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
strider=${STRIDER:-build/strider}
rows=${ROWS:-100000}
gemms=${GEMMS:-32}
if [[ ! "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/bench_scale.sh [RUNS]" >&2
  exit 2
fi
if [[ ! -x "$strider" ]]; then
  echo "bench_scale: $strider not found; build it first (make build, or set STRIDER=path)" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "bench_scale: /usr/bin/time not found (Debian package 'time')" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench_scale.XXXXXX")
trap 'rm -rf "$out"' EXIT
arch=$(pwd)/configs/arch/seed.yaml

{
  echo "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,"
  for ((i = 0; i < rows; ++i)); do echo "L$i, 16, 16, 3, 3, 8, 8, 1,"; done
} > "$out/rows.csv"
{
  echo "Layer, M, N, K,"
  for ((i = 0; i < gemms; ++i)); do echo "G$i, 16384, 1024, 1024,"; done
} > "$out/chain.csv"
cat > "$out/chain.yaml" <<EOF
arch: $arch
networks:
  - {path: chain.csv}
sim: {functional: false, trace: false, vcd: false}
output_dir: $out/chain_out
EOF
{
  echo "Layer, M, N, K,"
  for ((i = 0; i < gemms / 2; ++i)); do echo "G$i, 16384, 1024, 1024,"; done
} > "$out/half.csv"
sed -e 's/chain.csv/half.csv/' -e 's/chain_out/half_out/' "$out/chain.yaml" > "$out/half.yaml"

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# Runs "$@" RUNS times; prints "median_wall median_cpu peak_rss_kb".
measure() {
  local walls=() cpus=() rss=0 log="$out/time.log"
  for _ in $(seq 1 "$runs"); do
    if ! /usr/bin/time -v -o "$log" "$@" > "$out/cmd.log" 2>&1; then
      echo "bench_scale: '$*' failed:" >&2
      tail -20 "$out/cmd.log" >&2
      exit 1
    fi
    local user sys wall kb
    user=$(awk -F': ' '/User time/ {print $2}' "$log")
    sys=$(awk -F': ' '/System time/ {print $2}' "$log")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" |
           awk -F: '{s = 0; for (i = 1; i <= NF; ++i) s = s * 60 + $i; print s}')
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    walls+=("$wall")
    cpus+=("$(echo "$user + $sys" | bc -l)")
    (( kb > rss )) && rss=$kb
  done
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${cpus[@]}" | median) $rss"
}

status=0
printf '| case | size | median wall s | median CPU s | peak RSS MB | target |\n'
printf '|---|---:|---:|---:|---:|---|\n'

read -r wall cpu rss < <(measure "$strider" inspect "$out/rows.csv")
printf '| import (SCALE-Sim CSV, `strider inspect`) | %s rows | %.2f | %.2f | %.0f | CPU < 2 s |\n' \
  "$rows" "$wall" "$cpu" "$(echo "$rss / 1024" | bc -l)"
if (( $(echo "$cpu >= 2" | bc -l) )); then status=1; fi

read -r wall cpu rss < <(measure "$strider" run "$out/chain.yaml")
descriptors=$(grep -o '"descriptors": *[0-9]*' "$out/chain_out/summary.json" | head -1 | grep -o '[0-9]*$')
printf '| chain of %s spilling GEMMs (`strider run`) | %s descriptors | %.2f | %.2f | %.0f | CPU < 20 s, RSS < 1.5 GB |\n' \
  "$gemms" "$descriptors" "$wall" "$cpu" "$(echo "$rss / 1024" | bc -l)"
if (( $(echo "$cpu >= 20" | bc -l) )) || (( rss >= 1536 * 1024 )); then status=1; fi

# The check's own processor time, median over RUNS plans (planning is not counted).
check_median() {
  local yaml=$1 secs=()
  for _ in $(seq 1 "$runs"); do
    "$strider" plan "$yaml" --check > "$out/plan.log" 2>&1 || {
      echo "bench_scale: 'strider plan $yaml --check' failed:" >&2
      tail -20 "$out/plan.log" >&2
      exit 1
    }
    secs+=("$(awk '/^  checked / {print $(NF-4)}' "$out/plan.log")")
  done
  echo "$(printf '%s\n' "${secs[@]}" | median) $(awk '/^  descriptors / {print $2}' "$out/plan.log")"
}
read -r half_cpu half_n < <(check_median "$out/half.yaml")
read -r check_cpu check_n < <(check_median "$out/chain.yaml")
printf '| validation with data flow (`strider plan --check`) | %s descriptors | | %.2f | | |\n' \
  "$half_n" "$half_cpu"
printf '| validation with data flow (`strider plan --check`) | %s descriptors | | %.2f | | CPU < 2 s |\n' \
  "$check_n" "$check_cpu"
if (( $(echo "$check_cpu >= 2" | bc -l) )); then status=1; fi

if (( status != 0 )); then echo "bench_scale: a target was missed" >&2; fi
exit "$status"
