#!/usr/bin/python3
"""Prints docs/model.md's energy table rows from runs' summary.json files.

Usage: scripts/energy_table.py RESULTS_DIR [RESULTS_DIR ...]

One markdown row per directory (named after the directory, or the summary's network): cycles,
energy per inference, each unit's share of it (DRAM, L2, L1 = line buffer + kernel region,
neurons with the MACs' own share in brackets, vector unit; every unit's share includes its clock
and logic leakage), the clock's and the on-chip leakage's shares, on-chip + DRAM power, TOPS/W
(on-chip in brackets) and the area. Every figure is read from summary.json (`energy.by_unit`,
`energy.by_action.mac`, `energy.clock_pj`, `energy.leakage_pj`, `power_*`, `tops_per_watt*`,
`area_mm2.total`); nothing is computed but shares and unit conversions.
"""
import json
import os
import sys


def share(part, total):
    return 100.0 * part / total if total else 0.0


def row(results):
    path = os.path.join(results, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"energy_table.py: {path}: {e}")
    try:
        e = s["energy"]
        total, unit = e["total_pj"], e["by_unit"]
        name = os.path.basename(os.path.normpath(results))
        return (
            f"| {name} | {s['cycles']:,} | {total / 1e9:.2f} mJ"
            f" | {share(unit['dram'], total):.1f} % | {share(unit['l2'], total):.1f} %"
            f" | {share(unit['l1'], total):.1f} %"
            f" | {share(unit['neurons'], total):.1f} % ({share(e['by_action']['mac']['pj'], total):.1f} %)"
            f" | {share(unit['vector'], total):.2f} % | {share(e['clock_pj'], total):.1f} %"
            f" | {share(e['leakage_pj'], total):.2f} %"
            f" | {s['power_onchip_mw']:.0f} + {s['power_dram_mw']:.0f} mW"
            f" | {s['tops_per_watt']:.2f} ({s['tops_per_watt_onchip']:.2f})"
            f" | {s['area_mm2']['total']:.3f} mm2 |")
    except (KeyError, TypeError) as e:
        sys.exit(f"energy_table.py: {path}: no field {e} (a summary.json of a timing run?)")


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 2
    rows = [row(results) for results in sys.argv[1:]]  # every file read before a line is printed
    print("| network | cycles | energy / inference | DRAM | L2 | L1 (line buffer + kernel region)"
          " | neurons (MACs) | vector | clock | leakage | power on-chip + DRAM"
          " | TOPS/W (on-chip) | area |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
