#!/usr/bin/env bash
# Checks that two builds of strider simulate identically: runs every bundled run
# (configs/runs/*.yaml) and resnet50 / inception_v3 with L2 at 128 KiB, in timing mode, with
# each binary, and compares layers.csv, descriptors.csv, occupancy.csv, memory_plan.csv,
# energy_breakdown.csv and summary.json (all of it, DRAM stats included, but the wall-clock
# fields and the git revision) byte for byte. For a change meant to be a pure speed-up.
# Exit status 0 when every output matches, 1 when one differs or a run fails, 2 on a usage error.
# Usage: scripts/check_sim_identical.sh BEFORE AFTER
#   BEFORE, AFTER  the two strider binaries (e.g. a copy of build/strider made before the change)
#   CASES          (optional) only these case names, space separated (e.g. "default resnet50@128k")
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ne 2 || ! -x "$1" || ! -x "$2" ]]; then
  echo "usage: scripts/check_sim_identical.sh BEFORE AFTER (two strider binaries)" >&2
  exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_identical.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/before" "$out/after"

cases=()
for f in configs/runs/*.yaml; do cases+=("$(basename "$f" .yaml)"); done
cases+=(resnet50@128k inception_v3@128k)
if [[ -n "${CASES:-}" ]]; then read -r -a cases <<< "$CASES"; fi

# summary.json without what differs between two runs of one build (wall time, paths, revision).
strip_summary() {
  /usr/bin/python3 - "$1" << 'EOF'
import json, sys
drop = {"wall_seconds", "simulated_cycles_per_second", "seconds", "git_revision", "output_dir"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in drop}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
print(json.dumps(clean(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))
EOF
}

status=0
for c in "${cases[@]}"; do
  net=${c%@*}
  extra=()
  if [[ $c == *@128k ]]; then extra=(--set arch.l2.size_bytes=131072); fi
  if [[ ! -f configs/runs/$net.yaml ]]; then
    echo "check_sim_identical: no configs/runs/$net.yaml for case $c" >&2
    exit 2
  fi
  for side in before after; do
    bin=$before
    [[ $side == after ]] && bin=$after
    if ! "$bin" run "configs/runs/$net.yaml" --out "$out/$side/$c" "${extra[@]}" \
        --set sim.trace=false --set sim.functional=false > "$out/$side/$c.log" 2>&1; then
      echo "check_sim_identical: $c failed with $bin:" >&2
      tail -5 "$out/$side/$c.log" >&2
      status=1
      continue 2
    fi
  done
  diffs=()
  for f in layers.csv descriptors.csv occupancy.csv memory_plan.csv energy_breakdown.csv; do
    if [[ -f $out/before/$c/$f || -f $out/after/$c/$f ]] &&
        ! cmp -s "$out/before/$c/$f" "$out/after/$c/$f"; then
      diffs+=("$f")
    fi
  done
  strip_summary "$out/before/$c/summary.json" > "$out/before/$c.summary"
  strip_summary "$out/after/$c/summary.json" > "$out/after/$c.summary"
  if ! cmp -s "$out/before/$c.summary" "$out/after/$c.summary"; then diffs+=(summary.json); fi
  cycles=$(/usr/bin/python3 -c "import json; print(json.load(open('$out/after/$c/summary.json'))['cycles'])")
  if (( ${#diffs[@]} )); then
    echo "$c: DIFFERS (${diffs[*]})"
    status=1
  else
    echo "$c: identical ($cycles cycles)"
  fi
done
exit $status
