#!/usr/bin/env bash
# A/B/C on one machine: bcht's lone-thread lookups (new: half buckets, half-bucket-lookups.patch;
# old: whole buckets, HEAD a3c4de9) x the tables' space (--cuckoo-space), alternating, three rounds
# at 2 x 1M / 512^3 and two at 2 x 8M / 1024^3. Both binaries built here for sm_90 and carried.
set -uo pipefail
o=$OUT; cd /work/main
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
r=$o/ab2; mkdir -p $r
run() { # name bin points res frames space
  local f=$r/$1-$3.txt
  timeout 120 .carry/ab/voxhash-$2 bench frame --all-algos --points $3 --res $4 --frames $5 --cuckoo-space $6 --json $r/$1-$3.json > $f 2>&1
}
for rep in 1 2 3; do for s in 1.25 1.5 2; do for v in new old; do run $v-s$s-r$rep $v 1M 512 100 $s; done; done; done
for rep in 1 2; do for s in 1.25 2; do for v in new old; do run $v-s$s-r$rep $v 8M 1024 60 $s; done; done; done
