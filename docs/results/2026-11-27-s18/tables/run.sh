#!/usr/bin/env bash
# The final build's table figures (bench tables, limits in the same run), then the sweeps.
set -uo pipefail
o=$OUT; cd /work/main
rm -rf build && tar xJf .carry/build.tar.xz
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $o/device.txt; date -u
timeout 240 ./build/app/voxhash bench tables --json $o/tables.json > $o/tables.txt 2> $o/tables.err
date -u
cat $o/tables.txt | cut -c1-200 | head -70
timeout 300 ./build/app/voxhash bench tables --sweep load --sweep multiplicity --sweep size --sweep misses --json $o/sweeps.json > $o/sweeps.txt 2> $o/sweeps.err
echo "sweeps rc $?"; date -u
