#!/usr/bin/env bash
# The single-slot cuckoo's insert and lookup kernels alone (ncu), 50M keys at load 0.8, as the peers were timed.
set -uo pipefail
o=$OUT
rm -rf build && tar xJf .carry/build.tar.xz
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
./build/app/voxhash bench tables --runs 5 > $o/tables.txt 2>&1
grep -E "cuckoo|1CHT|bound" $o/tables.txt | head -20
ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
   --kernel-name-base demangled --kernel-name regex:"cuckoo_insert_all|CuckooTableImpl<" \
   ./build/app/voxhash bench tables --runs 3 > $o/ncu-tables.csv 2>&1
python3 - $o/ncu-tables.csv > $o/ncu-kernels.txt <<'PY'
import csv, sys, collections, re
rows = collections.OrderedDict()
for r in csv.reader(open(sys.argv[1])):
    if len(r) > 10 and r[0].isdigit():
        rows[int(r[0])] = (r[4], float(r[-1].replace(",", "")))
by = collections.defaultdict(list)
for i, (name, ns) in rows.items():
    if "Bucketed" in name or "bucketed" in name: continue
    m = re.search(r"(cuckoo_insert_all|query|find[a-z_]*|contains[a-z_]*|first_copy|rank|count[a-z_]*|fill)", name)
    by[(m.group(1) if m else name[:60])].append(ns / 1e6)
for k, v in by.items():
    v2 = sorted(v)
    print(f"{k:30s} n={len(v):3d} median_ms={v2[len(v2)//2]:.3f} min_ms={v2[0]:.3f} max_ms={v2[-1]:.3f}")
    print("   in order:", " ".join(f"{x:.3f}" for x in v[:40]))
PY
cat $o/ncu-kernels.txt
