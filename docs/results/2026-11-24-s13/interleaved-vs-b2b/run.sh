#!/usr/bin/env bash
# Experiment: frames back to back (one algorithm per run) against interleaved (--all-algos --join).
set -uo pipefail
o=$OUT; mkdir -p $o/r
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $o/r/device.txt; date -u >> $o/r/device.txt
which nsys ncu >> $o/r/device.txt 2>&1
v=./build/app/voxhash
for size in "8M 1024 60" "1M 512 100"; do set -- $size
  for a in cuckoo hashgraph-v1 hashgraph-v2 bcht; do
    $v bench frame --algo $a --points $1 --res $2 --frames $3 --json $o/r/b2b-$1-$a.json > $o/r/b2b-$1-$a.txt 2>&1
  done
  $v bench frame --all-algos --join --points $1 --res $2 --frames $3 --json $o/r/inter-$1.json > $o/r/inter-$1.txt 2>&1
done
grep -h " total " $o/r/*.txt | awk '{print $2, $NF}' > /dev/null
for f in $o/r/b2b-*.txt $o/r/inter-*.txt; do echo "== $f"; grep -E " (total|build|number|voxelize|flood_fill|probe) " $f | awk '{print $2,$3,$6" ms", $11, $12, $13}'; done
