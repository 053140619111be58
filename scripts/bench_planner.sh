#!/usr/bin/env bash
# bench_planner.sh: memory-planner benchmark. For every instance and allocator, runs
# `strider pack` RUNS times and prints a Markdown table of buffers, lower bound, height, gap to
# the lower bound and the median allocation time (as `strider pack` reports it: planning and
# verification, without reading the file). Builds nothing: uses an existing strider binary.
#
# usage: scripts/bench_planner.sh [DIR_OR_CSV ...]
#   default instances: ../shared/benchmarks/idealloc/*.csv (relative to the repository root),
#   then two more tables: the MiniMalloc "challenging" suite with the exact allocator (capacity
#   2^20, per file height, LB, proven or not, median time), and the zoo networks' activation
#   plans (naive, greedy_by_size and auto against LB, from `strider plan` with an L2 large enough
#   that nothing spills).
# environment:
#   STRIDER     strider binary              (default: build/strider)
#   ALLOCATORS  allocators to compare       (default: "naive best_fit greedy_by_size greedy_by_conflicts auto")
#   RUNS        runs per cell, median taken (default: 3)
#   TIME_LIMIT  --time-limit for search-based allocators, seconds (default: 10)
#   NAIVE_MAX   skip naive above this many buffers (default: 100000)
#   EXACT_LIMIT --time-limit of the exact allocator on the challenging suite (default: 2)
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
defaults=0
if [[ $# -eq 0 ]]; then
  set -- ../shared/benchmarks/idealloc
  defaults=1
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

[[ $defaults == 1 ]] || exit 0

# The challenging suite: the exact allocator within the capacity.
EXACT_LIMIT=${EXACT_LIMIT:-2}
echo
echo "| challenging | buffers | lower bound | height | proven | median s |"
echo "|---|---:|---:|---:|---|---:|"
total=0
for file in ../shared/benchmarks/minimalloc/challenging/*.csv; do
  name=$(basename "$file" .csv)
  times=()
  for ((r = 0; r < RUNS; ++r)); do
    out=$("$STRIDER" pack "$file" --allocator exact --time-limit "$EXACT_LIMIT" --capacity 1048576 2>&1) ||
      { echo "| ${name%%.*} | | | | $(echo "$out" | head -1) | |"; continue 2; }
    times+=("$(echo "$out" | awk '/^  time/ { print $2 }')")
  done
  read -r b lb h proven <<< "$(echo "$out" | awk '
    /^  buffers/ { b = $2 } /^  lower bound/ { lb = $3 } /^  height/ { h = $2 }
    /^  optimal/ { p = $2 } END { print b, lb, h, p }')"
  med=$(printf '%s\n' "${times[@]}" | median)
  total=$(echo "$total + $med" | bc -l)
  echo "| ${name%%.*} | $b | $lb | $h | $proven | $med |"
done
printf '| total | | | | | %.2f |\n' "$total"

# The zoo networks' activation plans (batch 1, int8), everything resident.
echo
echo "| network | allocator | lower bound | activations | gap % |"
echo "|---|---|---:|---:|---:|"
for net in resnet50 mobilenet_v2 inception_v3 googlenet densenet121; do
  for alloc in naive greedy_by_size auto; do
    out=$("$STRIDER" plan "configs/runs/$net.yaml" --out "$(mktemp -d)" \
            --set arch.l2.size_bytes=67108864 --set planner.allocator="$alloc" 2>&1) ||
      { echo "| $net | $alloc | $(echo "$out" | head -1) | | |"; continue; }
    read -r act lb <<< "$(echo "$out" | awk '/^  activations/ { a = $2; l = $6 } END { print a, l }')"
    gap=$(echo "($act - $lb) * 100 / $lb" | bc -l)
    printf '| %s | %s | %s | %s | %.3f |\n' "$net" "$alloc" "$lb" "$act" "$gap"
  done
done
