#!/usr/bin/env bash
# bench_planner.sh: memory-planner benchmark. For every instance and allocator, runs
# `strider pack` RUNS times and prints a Markdown table of buffers, lower bound, height, gap to
# the lower bound and the median allocation time (as `strider pack` reports it: planning and
# verification, without reading the file). Builds nothing: uses an existing strider binary.
#
# usage: scripts/bench_planner.sh [DIR_OR_CSV ...]
#   default instances: ../shared/benchmarks/idealloc/*.csv (relative to the repository root)
# environment:
#   STRIDER     strider binary              (default: build/strider)
#   ALLOCATORS  allocators to compare       (default: "naive best_fit greedy_by_size greedy_by_conflicts auto")
#   RUNS        runs per cell, median taken (default: 3)
#   TIME_LIMIT  --time-limit for search-based allocators, seconds (default: 10)
#   NAIVE_MAX   skip naive above this many buffers (default: 100000)
# Capacities are ignored (--capacity 0) so every allocator's height can be compared.
set -euo pipefail

cd "$(dirname "$0")/.."
STRIDER=${STRIDER:-build/strider}
ALLOCATORS=${ALLOCATORS:-"naive best_fit greedy_by_size greedy_by_conflicts auto"}
RUNS=${RUNS:-3}
TIME_LIMIT=${TIME_LIMIT:-10}
NAIVE_MAX=${NAIVE_MAX:-100000}

if [[ ! -x "$STRIDER" ]]; then
  echo "bench_planner.sh: no strider binary at '$STRIDER' (build it first or set STRIDER)" >&2
  exit 1
fi

files=()
if [[ $# -eq 0 ]]; then
  set -- ../shared/benchmarks/idealloc
fi
for arg in "$@"; do
  if [[ -d "$arg" ]]; then
    for f in "$arg"/*.csv; do [[ -e "$f" ]] && files+=("$f"); done
  elif [[ -f "$arg" ]]; then
    files+=("$arg")
  else
    echo "bench_planner.sh: '$arg' is neither a CSV file nor a directory" >&2
    exit 1
  fi
done
if [[ ${#files[@]} -eq 0 ]]; then
  echo "bench_planner.sh: no CSV instances found in: $*" >&2
  exit 1
fi

# Prints "buffers lb height gap seconds allocator" for one run, or "ERROR message".
run_once() {
  local file=$1 alloc=$2 out
  if ! out=$("$STRIDER" pack "$file" --allocator "$alloc" --time-limit "$TIME_LIMIT" \
               --capacity 0 2>&1); then
    echo "ERROR $(echo "$out" | head -1)"
    return
  fi
  echo "$out" | awk '
    /^  buffers/     { b = $2 }
    /^  lower bound/ { lb = $3 }
    /^  height/      { h = $2 }
    /^  gap/         { g = $2 }
    /^  allocator/   { a = $2 }
    /^  time/        { t = $2 }
    END { print b, lb, h, g, t, a }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| instance | buffers | allocator | lower bound | height | gap % | median s | chosen |"
echo "|---|---:|---|---:|---:|---:|---:|---|"
for file in "${files[@]}"; do
  name=$(basename "$file" .csv)
  for alloc in $ALLOCATORS; do
    buffers=$(( $(wc -l < "$file") - 1 ))
    if [[ "$alloc" == naive && $buffers -gt $NAIVE_MAX ]]; then
      echo "| $name | $buffers | $alloc | | | | | skipped (> $NAIVE_MAX buffers) |"
      continue
    fi
    times=()
    line=""
    for ((r = 0; r < RUNS; ++r)); do
      line=$(run_once "$file" "$alloc")
      if [[ $line == ERROR* ]]; then break; fi
      times+=("$(echo "$line" | awk '{ print $5 }')")
    done
    if [[ $line == ERROR* ]]; then
      echo "| $name | $buffers | $alloc | | | | | ${line#ERROR } |"
      continue
    fi
    read -r b lb h g _ chosen <<< "$line"
    med=$(printf '%s\n' "${times[@]}" | median)
    echo "| $name | $b | $alloc | $lb | $h | $g | $med | $chosen |"
  done
done
