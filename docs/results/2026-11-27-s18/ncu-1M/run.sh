#!/usr/bin/env bash
# One 2 x 1M / 512^3 frame's kernels under Nsight Compute, per algorithm (HashGraph's build).
set -uo pipefail
o=$OUT; cd /work/main
rm -rf build && tar xJf .carry/build.tar.xz
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
which nsys ncu; nvidia-smi -L
for a in hashgraph-v2 hashgraph-v1 cuckoo; do
  timeout 150 ncu --cache-control none --clock-control none --metrics \
    gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
    --csv --print-units base --launch-count 700 ./build/app/voxhash bench frame --points 1M \
    --res 512 --frames 4 --warmup 1 --algo $a > $o/ncu-$a.csv 2>&1
  python3 tools/ncu_frame_kernels.py $o/ncu-$a.csv > $o/ncu-$a.txt
  echo "== $a"; head -40 $o/ncu-$a.txt | cut -c1-150
done
xz $o/*.csv
