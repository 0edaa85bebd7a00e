#!/usr/bin/env bash
# The final build (C): GPU tests; then the frame A/B on one machine against the build
# that waits for the components (B), alternating C B C B, both sizes, every algorithm.
set -uo pipefail
o=$OUT
rm -rf build && tar xJf .carry/build.tar.xz
OUT=$o/t timeout 300 tools/device_run.sh tests > $o/tests.out 2>&1

rm -rf $o/t $o/s
grep -E "tests passed|FAILED|Failed" $o/tests.out | head -5

source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf /tmp/B && mkdir -p /tmp/B && tar xJf .carry/build-wait.tar.xz -C /tmp/B
nvidia-smi -L > $o/device.txt
for rep in 1 2; do for v in C B; do
  d=$o/$v$rep; mkdir -p $d
  bin=./build/app/voxhash; [ $v = B ] && bin=/tmp/B/build/app/voxhash
  for s in "8M 1024 60" "1M 512 100"; do set -- $s
    $bin bench frame --all-algos --points $1 --res $2 --frames $3 --json $d/frame-$1-$2.json > $d/frame-$1-$2.txt 2>&1
    echo "$v$rep $1: $(grep -E '^frame .* total ' $d/frame-$1-$2.txt | awk '{print $2, $7}' | paste -sd' ')"
    grep -h identical $d/frame-$1-$2.txt
  done
  rm -f $d/*.txt
done; done
tar cJf $o/ab.tar.xz -C $o C1 B1 C2 B2 device.txt && rm -rf $o/C1 $o/B1 $o/C2 $o/B2
