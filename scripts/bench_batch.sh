#!/usr/bin/env bash
# Batch table (issue 25): runs resnet50, mobilenet_v2 and bert_encoder (timing mode, seed arch)
# at batch 1, 2, 4 and 8 and prints, per run, cycles per image, DRAM bytes read and written per
# image, read bytes per image against batch 1, and how many layers with weights shared each weight
# block across the batch (images_inside), across groups of images (images_grouped) or ran image
# after image (images_outside), and how many ran in image segments (image_segment: a run of
# layers image after image with one image's activations in L2), from layers.csv's batch_order
# column. Deterministic: one run per point.
# Exit status 1 when a run fails, when a batch reads more DRAM bytes per image than batch 1 of the
# same network, or when resnet50 at batch 4 reads more than LIMIT (default 0.8) x the DRAM bytes
# per image of batch 1.
# Usage: scripts/bench_batch.sh [NETWORK...]
#   STRIDER (default build/strider)  the binary to run
#   BATCHES (default "1 2 4 8")      the batch sizes
set -euo pipefail
cd "$(dirname "$0")/.."

strider=${STRIDER:-build/strider}
batches=${BATCHES:-1 2 4 8}
limit=${LIMIT:-0.8}
nets=("$@")
[[ ${#nets[@]} -gt 0 ]] || nets=(resnet50 mobilenet_v2 bert_encoder)
if [[ ! -x "$strider" ]]; then
  echo "bench_batch: $strider not found; build it first (make build, or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench_batch.XXXXXX")
trap 'rm -rf "$out"' EXIT

status=0
printf '| network | batch | cycles / image | DRAM read / image | DRAM written / image | read vs batch 1 | layers inside / grouped / outside / segment |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
for net in "${nets[@]}"; do
  base=""
  for b in $batches; do
    dir="$out/${net}_$b"
    if ! "$strider" run "configs/runs/$net.yaml" --set "networks[0].batch=$b" --set sim.trace=false \
        --out "$dir" > "$dir.log" 2>&1; then
      echo "bench_batch: $net at batch $b failed:" >&2
      cat "$dir.log" >&2
      exit 1
    fi
    read -r cyc rd wr inside grouped outside segment < <(/usr/bin/python3 - "$dir" <<'EOF'
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
rows = list(csv.DictReader(open(d + "/layers.csv")))
inside = sum(r["batch_order"] == "images_inside" for r in rows)
grouped = sum(r["batch_order"] == "images_grouped" for r in rows)
outside = sum(r["batch_order"] == "images_outside" for r in rows)
segment = sum(r["batch_order"] == "image_segment" for r in rows)
print(s["cycles_per_image"], s["dram"]["read_bytes_per_image"], s["dram"]["write_bytes_per_image"],
      inside, grouped, outside, segment)
EOF
)
    [[ -n $base ]] || base=$rd
    ratio=$(echo "$rd / $base" | bc -l)
    printf '| %s | %d | %.0f | %.0f | %.0f | %.2fx | %d / %d / %d / %d |\n' "$net" "$b" "$cyc" \
      "$rd" "$wr" "$ratio" "$inside" "$grouped" "$outside" "$segment"
    if (( $(echo "$rd > $base" | bc -l) )); then
      echo "bench_batch: $net at batch $b reads $rd DRAM bytes per image, more than batch 1's $base" >&2
      status=1
    fi
    if [[ $net == resnet50 && $b == 4 ]] && (( $(echo "$ratio > $limit" | bc -l) )); then
      echo "bench_batch: resnet50 at batch 4 reads ${ratio}x the DRAM bytes per image of batch 1," \
        "over the ${limit}x target" >&2
      status=1
    fi
  done
done
exit $status
