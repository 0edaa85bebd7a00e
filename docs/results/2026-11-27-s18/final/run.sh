#!/usr/bin/env bash
# The final build: GPU tests, then its frames (tables at 2 slots a voxel) against HEAD's build
# (voxhash-old: 1.25), alternating, three rounds at 2 x 1M / 512^3 and two at 2 x 8M / 1024^3.
set -uo pipefail
o=$OUT; cd /work/main
rm -rf build && tar xJf .carry/build.tar.xz
OUT=$o/t timeout 330 tools/device_run.sh tests > $o/tests.out 2>&1
grep -E "tests passed|FAILED|Failed|Skipped|Not Run" $o/tests.out | head -12
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cp build/app/voxhash .carry/ab/voxhash-final
nvidia-smi -L > $o/device.txt; date -u
r=$o/final; mkdir -p $r; cp $o/t/results/gpu-tests.log $r/ 2>/dev/null
run() { # name bin points res frames
  local f=$r/$1-$3.txt
  timeout 120 .carry/ab/voxhash-$2 bench frame --all-algos --points $3 --res $4 --frames $5 --json $r/$1-$3.json > $f 2>&1
  echo "$1 $3: $(grep -E '^frame .* total ' $f | awk '{print $2, $7}' | paste -sd' ') $(grep -c 'identical voxels' $f)"
}
for rep in 1 2 3; do for v in final old; do run $v-r$rep $v 1M 512 100; done; done
for rep in 1 2; do for v in final old; do run $v-r$rep $v 8M 1024 60; done; done
tar cJf $o/final.tar.xz -C $o final device.txt tests.out && rm -rf $r $o/t
