#!/usr/bin/env bash
# Benchmarks functional mode: `strider run configs/runs/resnet50.yaml --set sim.functional=true`
# (resnet50 at 224x224 on the seed accelerator, every layer checked against the reference) RUNS
# times (default 3) and prints each run's wall time and CPU time (user + system), their medians,
# the simulated cycles and the functional check figures (on a loaded machine the CPU time is the
# steadier figure). Exit status 1 when a run fails, finds mismatches, or the median is
# over LIMIT seconds (default 1, the target of issues 18 and 28; it was 60 for issue 7). Set
# STRIDER_THREADS=1 to time it on one thread (the same outputs: core/common/parallel_for.h).
# Usage: scripts/bench_functional.sh [RUNS]
#   STRIDER (default build/strider)  the binary to time
#   LIMIT   (default 1)              seconds the median wall time must stay under
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
strider=${STRIDER:-build/strider}
limit=${LIMIT:-1}
if [[ ! "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/bench_functional.sh [RUNS]" >&2
  exit 2
fi
if [[ ! -x "$strider" ]]; then
  echo "bench_functional: $strider not found; build it first (make, or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

times=()
cpus=()
for i in $(seq 1 "$runs"); do
  start=$(date +%s.%N)
  # bash's `time` writes "user system" seconds to the group's stderr, captured here.
  if ! usage=$( { TIMEFORMAT='%3U %3S'; time "$strider" run configs/runs/resnet50.yaml \
      --set sim.functional=true --out "$out/run$i" > "$out/run$i.log" 2>&1; } 2>&1 ); then
    cat "$out/run$i.log" >&2
    echo "bench_functional: run $i failed" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  read -r user sys <<< "$usage"
  t=$(/usr/bin/python3 -c "print(f'{$end - $start:.2f}')")
  cpu=$(/usr/bin/python3 -c "print(f'{$user + $sys:.2f}')")
  times+=("$t")
  cpus+=("$cpu")
  echo "run $i: $t s wall, $cpu s CPU (user $user, system $sys)"
done

/usr/bin/python3 - "$out/run1/summary.json" "$limit" "${cpus[*]}" "${times[@]}" <<'EOF'
import json, statistics, sys
summary = json.load(open(sys.argv[1]))
limit = float(sys.argv[2])
cpus = [float(t) for t in sys.argv[3].split()]
times = [float(t) for t in sys.argv[4:]]
median = statistics.median(times)
f = summary["functional"]
print(f"median {median:.2f} s wall, {statistics.median(cpus):.2f} s CPU over {len(times)} runs "
      f"(limit {limit:g} s wall)")
print(f"cycles {summary['cycles']}, checked tensors {f['checked_tensors']}, "
      f"mismatches {f['mismatches']}, simulated cycles/s {summary['simulated_cycles_per_second']:.0f}")
sys.exit(0 if f["mismatches"] == 0 and f["checked_tensors"] > 0 and median < limit else 1)
EOF
