#!/usr/bin/python3
"""Notebook-style example of the strider Python package: how does resnet50's time depend on the
L2 size? Each cell is a few lines you could paste into Jupyter.

  PYTHONPATH=build/python /usr/bin/python3 scripts/example_sweep.py [--run RUN.yaml] [--out PNG]

Runs the network at four L2 sizes (each run in its own child process), prints cycles, DRAM
traffic and the most expensive layer of each, and plots cycles against the L2 size.
"""
import argparse

import strider

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--run", default="configs/runs/resnet50.yaml")
ap.add_argument("--out", default="l2_sweep.png")
args = ap.parse_args()

# %% What the network is: strider.inspect gives the `strider inspect --json` document.
net = strider.inspect("configs/networks/resnet50.onnx")
print(f"{net['network']}: {len(net['layers'])} layers, {net['macs']:,} MACs")

# %% One run per L2 size; `set` takes any run-file key, as `--set` does.
sizes = [256 * 1024, 512 * 1024, 1024 * 1024, 2048 * 1024]
rows = []
for size in sizes:
    r = strider.run(args.run, set={"arch.l2.size_bytes": size, "sim.detail": "layers"})
    s = r["summary"]
    layers = r["layers"]
    records = layers if isinstance(layers, list) else layers.to_dict("records")
    worst = max(records, key=lambda l: l["cycles"])
    rows.append((size, s["cycles"], s["dram"]["read_bytes"] + s["dram"]["write_bytes"], worst))
    print(f"L2 {size // 1024:5d} KiB: {s['cycles']:>12,} cycles, "
          f"{rows[-1][2] / 1e6:8.1f} MB DRAM traffic, slowest layer {worst['layer']} "
          f"({worst['cycles']:,} cycles)")

# %% Cycles against the L2 size.
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot([r[0] // 1024 for r in rows], [r[1] for r in rows], marker="o")
ax.set_xscale("log", base=2)
ax.set_xlabel("L2 size (KiB)")
ax.set_ylabel("cycles")
ax.set_title(f"{net['network']}: cycles against the L2 size")
fig.tight_layout()
fig.savefig(args.out)
print(args.out)
