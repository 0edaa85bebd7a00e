#!/usr/bin/python3
"""Plots `voxhash bench tables --json` output (schema voxhash-bench/1, docs/BENCH_SCHEMA.md) like
the papers' figures: rate against load factor, multiplicity, size and fraction of misses, one PNG
per sweep found in the file, with the measured bound drawn as a dashed line.

usage: tools/plot_bench.py RESULTS.json [OUT_DIR]   (python3 with matplotlib: python3-matplotlib)
"""
import json
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# sweep -> (x field, x label, log x axis)
AXES = {
    "load": ("load", "load factor (keys per slot / per vertex)", False),
    "multiplicity": ("multiplicity", "average key multiplicity", True),
    "size": ("keys", "keys", True),
    "misses": ("miss_fraction", "fraction of queries that miss", False),
}
BUILDS = {"insert", "build"}


def label(result, x_field):
    """Series name: algorithm and operation, plus hits / misses for probes off the misses axis."""
    operation = result["operation"]
    if x_field == "miss_fraction" and operation.startswith("find"):
        operation = "find"  # find-hit and find-miss are the sweep's end points
    name = f"{result['algorithm']} {operation}"
    fraction = result.get("miss_fraction")
    if result["operation"].startswith("probe") and x_field != "miss_fraction":
        name += {0: " (hits)", 1: " (misses)"}.get(fraction, f" ({fraction:g} misses)")
    return name


def plot_sweep(data, sweep, out_dir):
    x_field, x_label, log_x = AXES[sweep]
    results = [r for r in data["results"] if r["suite"] == "tables" and r["sweep"] == sweep]
    if not results:
        return None
    panels = []  # (builds?, {series name: [(x, rate)]})
    for builds in (True, False):
        series = {}
        for r in results:
            if (r["operation"] in BUILDS) == builds and r.get(x_field) is not None:
                series.setdefault(label(r, x_field), []).append((r[x_field], r["rate_gkeys"]))
        if series:
            panels.append((builds, series))
    fig, axes = plt.subplots(1, len(panels), figsize=(max(8, 6.5 * len(panels)), 5), squeeze=False)
    for panel, (builds, series) in zip(axes[0], panels):
        panel.set_prop_cycle(color=plt.cm.tab20.colors)
        for name, points in sorted(series.items()):
            points.sort()
            panel.plot(*zip(*points), marker="o", label=name)
        bounds = {r["bound"]: r["bound_gkeys"] for r in results
                  if (r["operation"] in BUILDS) == builds and r["bound"]}
        for name, value in bounds.items():
            panel.axhline(value, linestyle="--", color="grey", linewidth=1)
            panel.annotate(name, (0.01, value), xycoords=("axes fraction", "data"),
                           fontsize=8, color="grey", va="bottom")
        panel.set_xlabel(x_label)
        panel.set_ylabel("G keys/s" if builds else "G queries/s")
        panel.set_title(("build" if builds else "lookup") + f" rate vs {sweep}")
        if log_x:
            panel.set_xscale("log", base=2)
        panel.grid(alpha=0.3)
        panel.legend(fontsize=8)
    run = f"{data['command_line']} ({data['git_commit']}, {data['date']})"
    fig.suptitle(data["device"] + "\n" + textwrap.fill(run, 120), fontsize=9)
    fig.tight_layout()
    path = os.path.join(out_dir, f"bench_{sweep}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(sys.argv[1]) as f:
        data = json.load(f)
    if data.get("schema") != "voxhash-bench/1":
        sys.exit(f"{sys.argv[1]}: not a voxhash-bench/1 file")
    out_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.dirname(sys.argv[1]) or "."
    os.makedirs(out_dir, exist_ok=True)
    for sweep in AXES:
        path = plot_sweep(data, sweep, out_dir)
        if path:
            print(path)


if __name__ == "__main__":
    main()
