#!/usr/bin/env bash
# A/B of the frame on one machine: the final build (B) and the build with the fill's rooms (A),
# alternating A B A B, both sizes, every algorithm.
set -uo pipefail
o=$OUT
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf /tmp/A /tmp/B && mkdir -p /tmp/A /tmp/B
tar xJf .carry/build-rooms.tar.xz -C /tmp/A && tar xJf .carry/build.tar.xz -C /tmp/B
nvidia-smi -L > $o/device.txt
for rep in 1 2; do for v in A B; do
  d=$o/$v$rep; mkdir -p $d
  for s in "8M 1024 60" "1M 512 100"; do set -- $s
    /tmp/$v/build/app/voxhash bench frame --all-algos --points $1 --res $2 --frames $3 \
      --json $d/frame-$1-$2.json > $d/frame-$1-$2.txt 2>&1
    echo "$v$rep $1: $(grep -E '^frame .* total ' $d/frame-$1-$2.txt | awk '{print $2, $7}' | paste -sd' ')"
  done
  rm -f $d/*.txt
done; done
