#!/usr/bin/env bash
# Fusion never costs: every run file of configs/runs is simulated with arch.lowering.fuse false
# and true (timing only, no trace; the mapping as the run file sets it, or MAPPING), and the
# fused run must take no more cycles, no more DRAM bytes and no more L2 bytes than the unfused
# one, in total and summed over the fused layers: each Add, MaxPool, GlobalAveragePool or
# squeeze-excitation Mul that fusion removed (a layer of the unfused run missing from the fused one)
# with the conv that took it (the conv layer before the Add or pool, after the Mul, in the unfused
# run, present in both;
# anything else fails the test) against that conv fused (a conv taking a Mul and an Add counted
# once, with both).
# Fused layers worse on their own are listed, not failed: a conv whose residual operand the plan
# spills fills it per tile from DRAM (resnet50_twice, layer2.1's conv3: 67,584 + 917,504 DRAM
# bytes for conv + Add, 1,318,912 fused), which the plan's savings elsewhere outweigh.
# A depthwise conv fused with its producer keeps both layers, their spans overlapping: the pair
# must take no more cycles (producer's start to depthwise's end) and DRAM bytes than unfused.
# No exceptions: the run's fusion is chosen per layer against the memory plan (tb/run_plan.cpp:
# convnext_tiny's stage-1 Adds whose fused conv would read its residual operand spilled per tile
# stay unfused; swin_t's plan is kept unfused, the fused one spilling 9 MB more).
# usage: fused_vs_unfused.sh STRIDER REPO_ROOT [RUN_NAME...]   (default: every run file)
set -euo pipefail
source "$(dirname "$0")/../lib/run_files.sh"
sets=(--set sim.trace=false --set sim.functional=false)
[[ -n "${MAPPING:-}" ]] && sets+=(--set "arch.lowering.mapping=$MAPPING")
fail=0
for run in "${runs[@]}"; do
  net=$(basename "$run" .yaml)
  for f in false true; do
    "$strider" run "$run" --set "output_dir=$tmp/$net.$f" --set arch.lowering.fuse=$f "${sets[@]}" \
      >"$tmp/$net.$f.txt" 2>&1 ||
      { echo "$net (fuse $f) failed:"; cat "$tmp/$net.$f.txt"; exit 1; }
  done
  /usr/bin/python3 - "$net" "$tmp/$net.false" "$tmp/$net.true" <<'PY' || fail=1
import csv, json, sys
net, plain, fused = sys.argv[1:]
def total(d):
    s = json.load(open(d + "/summary.json"))
    return {"cycles": s["cycles"], "dram_bytes": s["dram"]["read_bytes"] + s["dram"]["write_bytes"],
            "l2_bytes": s["totals"]["l2_bytes"]}
def layers(d):
    # A deep weight prefetch's moves are a row of their own, prefetch:LAYER (docs/planner.md),
    # present or not as each plan's holes allow: their DRAM bytes go back to LAYER's row.
    with open(d + "/layers.csv") as f:
        rows = list(csv.DictReader(f))
    by_name = {r["layer"]: r for r in rows}
    for r in rows:
        if r["op"] == "prefetch":
            t = by_name[r["layer"][len("prefetch:"):]]
            t["dram_bytes"] = str(int(t["dram_bytes"]) + int(r["dram_bytes"]))
    return [r for r in rows if r["op"] != "prefetch"]
a, b = total(plain), total(fused)
pl, fl = layers(plain), layers(fused)
fused_names = {r["layer"]: r for r in fl}
taken, bad = {}, []  # conv layer -> the unfused layers it took
for i, r in enumerate(pl):
    if r["layer"] in fused_names:
        continue
    j = i + 1 if r["op"] == "mul" else i - 1  # a Mul's conv reads it; an Add's or pool's wrote it
    # A global pool after a fused residual Add (resnet50's last block) goes with the Add, the conv
    # taking both.
    while r["op"] != "mul" and j >= 0 and pl[j]["layer"] not in fused_names and pl[j]["op"] in ("add", "maxpool"):
        j -= 1
    conv = pl[j] if 0 <= j < len(pl) else None
    if r["op"] not in ("add", "maxpool", "globalavgpool", "mul") or conv is None or conv["op"] != "conv" or conv["layer"] not in fused_names:
        bad.append(r["layer"])
    else:
        taken.setdefault(conv["layer"], (conv, []))[1].append(r)
pairs = [(c, xs, fused_names[name]) for name, (c, xs) in taken.items()]
keys = ("cycles", "dram_bytes", "l2_bytes")
def unfused(c, xs, k):
    return int(c[k]) + sum(int(x[k]) for x in xs)
sums = {k: [sum(unfused(c, xs, k) for c, xs, _ in pairs), sum(int(f[k]) for _, _, f in pairs)]
        for k in keys}
print(f"{net}: {sum(len(xs) for _, xs, _ in pairs)} Adds, pools and Muls fused into {len(pairs)} convs; total " +
      ", ".join(f"{k} {a[k]} -> {b[k]}" for k in keys) + "; fused layers " +
      ", ".join(f"{k} {v[0]} -> {v[1]}" for k, v in sums.items()))
# A depthwise fused with its producer (planner/lower/depthwise_fusion.cpp) keeps both layers;
# their spans overlap in the fused run. The pair, from the producer's start to the depthwise's
# end, must take no more cycles and move no more DRAM bytes than the two unfused.
dw = []
q = {r["layer"]: r for r in pl}
for i in range(1, len(fl)):
    p, c = fl[i - 1], fl[i]
    if p["op"] != "conv" or c.get("class") != "depthwise" or int(c["start"]) >= int(p["end"]):
        continue
    if p["layer"] in q and c["layer"] in q and int(q[c["layer"]]["start"]) >= int(q[p["layer"]]["end"]):
        dw.append((q[p["layer"]], q[c["layer"]], p, c))  # overlapping fused, not unfused
def span(p, c):
    return max(int(p["end"]), int(c["end"])) - min(int(p["start"]), int(c["start"]))
def dram(p, c):
    return int(p["dram_bytes"]) + int(c["dram_bytes"])
if dw:
    print(f"{net}: {len(dw)} depthwise convs fused with their producer; cycles " +
          ", ".join(f"{span(up, uc)} -> {span(fp, fc)}" for up, uc, fp, fc in dw) + "; DRAM bytes " +
          ", ".join(f"{dram(up, uc)} -> {dram(fp, fc)}" for up, uc, fp, fc in dw))
ok = not bad
for up, uc, fp, fc in dw:
    for k, f in (("cycles", span), ("dram_bytes", dram)):
        if f(fp, fc) > f(up, uc):
            print(f"FAIL {net}: depthwise pair {fp['layer']} {k} {f(fp, fc)} > unfused {f(up, uc)}")
            ok = False
tag = "FAIL"
if bad:
    print(f"FAIL {net}: layers gone without a conv before them that took them: {bad[:5]}")
for k in keys:
    if b[k] > a[k]:
        print(f"{tag} {net}: fused {k} {b[k]} > unfused {a[k]}"); ok = False
    if sums[k][1] > sums[k][0]:
        print(f"{tag} {net}: fused layers' {k} {sums[k][1]} > conv + Add {sums[k][0]}"); ok = False
worse = [f["layer"] for c, xs, f in pairs
         if any(int(f[k]) > unfused(c, xs, k) for k in keys)]
if worse:  # reported, not failed: fused layers whose residual operand spills (docs/planner.md)
    print(f"{net}: {len(worse)} of {len(pairs)} fused layers worse on their own: {worse[:3]}")
sys.exit(0 if ok else 1)
PY
done
exit $fail
