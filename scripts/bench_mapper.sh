#!/usr/bin/env bash
# bench_mapper.sh: the mapping search's time (`lowering.mapping: search`, planner/lower/mapper.h)
# on resnet50, the median over RUNS runs of `strider plan` (the search's own seconds, as the
# command prints them, and the whole planning's wall time), target < 2 s; then checks that two
# searches plan byte-identical descriptor lists and lowering tables. Builds nothing.
#
# usage: scripts/bench_mapper.sh [RUN_FILE]     (default configs/runs/resnet50.yaml)
# environment:
#   STRIDER  strider binary               (default: build/strider)
#   RUNS     runs, median taken           (default: 5)
set -euo pipefail

cd "$(dirname "$0")/.."
STRIDER=${STRIDER:-build/strider}
RUNS=${RUNS:-5}
(( RUNS >= 2 )) || { echo "bench_mapper.sh: RUNS must be at least 2 (two searches are compared)" >&2; exit 2; }
RUN_FILE=${1:-configs/runs/resnet50.yaml}
if [[ ! -x "$STRIDER" ]]; then
  echo "bench_mapper.sh: no strider binary at '$STRIDER' (build it first or set STRIDER)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

search=() wall=()
for i in $(seq "$RUNS"); do
  start=$(date +%s.%N)
  "$STRIDER" plan "$RUN_FILE" --set arch.lowering.mapping=search --out "$tmp/p$i" \
    --emit "$tmp/p$i.strd" >"$tmp/out$i.txt"
  end=$(date +%s.%N)
  search+=("$(awk '/mapping +search over/ {print $(NF - 1)}' "$tmp/out$i.txt")")
  wall+=("$(echo "$end - $start" | bc -l)")
done
s=$(printf '%s\n' "${search[@]}" | median)
w=$(printf '%s\n' "${wall[@]}" | median)
layers=$(awk '/mapping +search over/ {print $4}' "$tmp/out1.txt")
printf 'run file            %s\n' "$RUN_FILE"
printf 'searched layers     %s\n' "$layers"
printf 'search, median      %.3f s over %s runs (target < 2 s)\n' "$s" "$RUNS"
printf 'strider plan, median %.3f s wall\n' "$w"
for f in p1.strd p1/plan_lowering.csv p1/plan_memory.csv; do
  if ! cmp -s "$tmp/$f" "$tmp/${f/p1/p2}"; then
    echo "bench_mapper.sh: $f differs between two searches (not deterministic)" >&2
    exit 1
  fi
done
echo "deterministic       two searches planned byte-identical lists and tables"
awk -v s="$s" 'BEGIN {exit !(s < 2)}' || { echo "bench_mapper.sh: over the 2 s target" >&2; exit 1; }
