#!/usr/bin/env bash
# Benchmarks the JEDEC DRAM presets with `strider dram` (trace replay): for every preset in
# configs/dram, four request streams of N requests offered at the preset's peak bandwidth (one
# 64 B request every 64 / peak-bytes-per-DRAM-cycle cycles): sequential 64 B reads, sequential
# 64 B writes, a 1:1 mix (reads of one sequential stream alternating with writes of another) and
# uniformly random 64 B reads over 1 GiB. Prints, per preset and stream, the achieved bandwidth
# as a fraction of peak, the row-hit rate and the average / p99 read latency (ns; queueing
# included), each the median over RUNS runs with different seeds (random addresses) or start
# offsets (sequential streams).
# Exit status 1 when sequential reads fall below 85 % of peak on a preset, or random reads are
# not well below it (above 60 %).
# Usage: scripts/bench_dram.sh [RUNS]   (STRIDER: the binary, default build/strider; N: requests,
# default 20000; SET: arch.dram keys for every replay, e.g. SET="refresh_postpone=0")
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
strider=${STRIDER:-build/strider}
n=${N:-20000}
if [[ ! "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/bench_dram.sh [RUNS]" >&2
  exit 2
fi
if [[ ! -x "$strider" ]]; then
  echo "bench_dram: $strider not found; build it first (make build, or set STRIDER=path)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/strider_bench_dram.XXXXXX")
trap 'rm -rf "$out"' EXIT

/usr/bin/python3 - "$strider" "$out" "$runs" "$n" "${SET:-}" <<'PY'
import json, os, random, re, statistics, subprocess, sys

strider, out, runs, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sets = [a for kv in sys.argv[5].split() for a in ("--set", kv)]
presets = sorted(f[:-5] for f in os.listdir("configs/dram") if f.endswith(".yaml"))

def peak_bytes_per_cycle(preset):
    # Channels x burst bytes / nBL, from the preset file (a probe replay reports the same peak).
    text = open(f"configs/dram/{preset}.yaml").read()
    org = dict(re.findall(r"(channels|dq_bits|burst_length): (\d+)", text))
    nbl = int(re.search(r"nBL: (\d+)", text).group(1))
    return int(org["channels"]) * int(org["dq_bits"]) // 8 * int(org["burst_length"]) / nbl

def trace(path, pattern, gap, run):
    rng = random.Random(run)
    base = run * (1 << 20)  # sequential streams start at a different MiB per run
    with open(path, "w") as f:
        for i in range(n):
            t = int(i * gap)
            if pattern == "seq_read":
                f.write(f"{t} R {base + 64 * i} 64\n")
            elif pattern == "seq_write":
                f.write(f"{t} W {base + 64 * i} 64\n")
            elif pattern == "mix":
                k = i // 2
                f.write(f"{t} R {base + 64 * k} 64\n" if i % 2 == 0 else
                        f"{t} W {base + (1 << 28) + 64 * k} 64\n")
            else:
                f.write(f"{t} R {rng.randrange(1 << 24) * 64} 64\n")

status = 0
print("| preset | stream | fraction of peak | row-hit rate | avg read latency ns | p99 read latency ns |")
print("|---|---|---:|---:|---:|---:|")
for preset in presets:
    gap = 64 / peak_bytes_per_cycle(preset)
    for pattern in ["seq_read", "seq_write", "mix", "random_read"]:
        figs = []
        for run in range(1, runs + 1):
            path = f"{out}/{preset}_{pattern}_{run}.trace"
            trace(path, pattern, gap, run)
            res = subprocess.run([strider, "dram", path, "--dram", preset] + sets,
                                 capture_output=True, text=True)
            if res.returncode != 0:
                sys.stderr.write(res.stderr)
                sys.exit(1)
            figs.append(json.loads(res.stdout))
        med = lambda k: statistics.median(f[k] for f in figs)
        frac = med("fraction_of_peak")
        lat = f"{med('avg_read_latency_ns'):.0f} | {med('p99_read_latency_ns'):.0f}" \
            if pattern != "seq_write" else "- | -"
        print(f"| {preset} ({figs[0]['peak_gb_per_s']:.1f} GB/s) | {pattern} | {frac:.3f} | "
              f"{med('row_hit_rate'):.3f} | {lat} |")
        if pattern == "seq_read" and frac < 0.85:
            sys.stderr.write(f"bench_dram: {preset} sequential reads at {frac:.3f} of peak (< 0.85)\n")
            status = 1
        if pattern == "random_read" and frac > 0.6:
            sys.stderr.write(f"bench_dram: {preset} random reads at {frac:.3f} of peak (> 0.6)\n")
            status = 1
sys.exit(status)
PY
