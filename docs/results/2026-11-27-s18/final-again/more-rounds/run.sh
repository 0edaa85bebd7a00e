#!/usr/bin/env bash
# The final build's frames, three more rounds at 2 x 1M and two at 2 x 8M.
set -uo pipefail
o=$OUT; cd /work/main
[ -x build/app/voxhash ] || tar xJf .carry/build.tar.xz
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $o/device.txt; date -u
for s in "1M 512 100 1" "1M 512 100 2" "1M 512 100 3" "8M 1024 60 1" "8M 1024 60 2"; do set -- $s
  timeout 60 ./build/app/voxhash bench frame --all-algos --points $1 --res $2 --frames $3 --json $o/frame-$1-r$4.json > $o/frame-$1-r$4.txt 2>&1
  echo "$1 r$4: $(grep -E '^frame .* total ' $o/frame-$1-r$4.txt | awk '{print $2, $7}' | paste -sd' ') $(grep -c 'identical voxels' $o/frame-$1-r$4.txt)"
done
xz $o/*.json
