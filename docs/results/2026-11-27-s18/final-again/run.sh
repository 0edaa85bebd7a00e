#!/usr/bin/env bash
# The final build (frame_table_options public): GPU tests, memcheck of two frame tests, frames.
set -uo pipefail
o=$OUT; cd /work/main
rm -rf build && tar xJf .carry/build.tar.xz
OUT=$o/t timeout 330 tools/device_run.sh tests > $o/tests.out 2>&1
grep -E "tests passed|FAILED|Failed" $o/tests.out | head -8
VOXHASH_SANITIZE_FILTER='GpuPipeline.AnimatedFramesAgreeAcrossAlgorithms:GpuInside.MeshModelsMatchCpuForEveryAlgorithm' \
  OUT=$o/s timeout 200 tools/device_run.sh sanitize > $o/sanitize.out 2>&1
grep -E "^(memcheck|racecheck)" $o/sanitize.out | cut -c1-220
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for s in "1M 512 100" "8M 1024 60"; do set -- $s
  timeout 60 ./build/app/voxhash bench frame --all-algos --points $1 --res $2 --frames $3 --json $o/frame-$1.json > $o/frame-$1.txt 2>&1
  echo "$1: $(grep -E '^frame .* total ' $o/frame-$1.txt | awk '{print $2, $7}' | paste -sd' ') $(grep -c 'identical voxels' $o/frame-$1.txt)"
done
rm -rf $o/t/results $o/s/results; xz $o/*.json
