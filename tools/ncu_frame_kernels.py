#!/usr/bin/env python3
"""Sums one frame's kernel times by kernel name from an Nsight Compute CSV.

Usage: tools/ncu_frame_kernels.py NCU.csv [FRAME]
NCU.csv comes from `ncu --cache-control none --clock-control none --metrics
gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
--csv --print-units base ./build/app/voxhash bench frame ...` (tools/device_run.sh profile). A frame
starts at its first animate_points launch; FRAME (default 2) picks one past the warm-up. Prints the
frame's kernel count and summed time, then per kernel name: total µs, launches, registers and
achieved occupancy (of its first launch), largest first.
"""
import collections
import csv
import re
import sys


def kernels(path):
    by_id = collections.OrderedDict()
    for row in csv.reader(open(path)):
        if len(row) > 10 and row[0].isdigit():
            k = by_id.setdefault(int(row[0]), {"name": row[4]})
            k[row[-3]] = float(row[-1].replace(",", ""))
    return list(by_id.values())


def frames(ks):
    out, cur = [], []
    for k in ks:
        starts = "animate_points" in k["name"]
        if starts and (not cur or "animate_points" not in cur[-1]["name"]):
            if cur:
                out.append(cur)
            cur = []
        cur.append(k)
    out.append(cur)
    return out


def short(name):
    name = re.sub(r"\(.*", "", name).replace("void voxhash::for_each_kernel<", "")
    return name.replace("voxhash::", "")[:90]


def main():
    fs = frames(kernels(sys.argv[1]))
    f = fs[int(sys.argv[2]) if len(sys.argv) > 2 else 2]
    total = sum(k.get("gpu__time_duration.sum", 0) for k in f)
    print(f"frames {len(fs)}, kernels in this one {len(f)}, summed {total / 1e3:.1f} us")
    agg = collections.OrderedDict()
    for k in f:
        a = agg.setdefault(
            short(k["name"]),
            [0, 0.0, k.get("launch__registers_per_thread", 0),
             k.get("sm__warps_active.avg.pct_of_peak_sustained_active", 0)])
        a[0] += 1
        a[1] += k.get("gpu__time_duration.sum", 0)
    for name, (n, t, reg, occ) in sorted(agg.items(), key=lambda x: -x[1][1]):
        print(f"{t / 1e3:8.1f} us {n:3d}x reg{reg:4.0f} occ{occ:5.1f} {name}")


if __name__ == "__main__":
    main()
