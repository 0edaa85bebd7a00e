#!/usr/bin/env bash
set -uo pipefail
o=$OUT; r=/tmp/r; mkdir -p $r
source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
v=./build/app/voxhash
run() { # name, env...
  local name=$1; shift
  for size in "1M 512 100" "8M 1024 60"; do set -- $size
    env $EXPENV $v bench frame --algo cuckoo --points $1 --res $2 --frames $3 > $r/$name-$1.txt 2>&1
    echo "== $name $1: $(grep -E 'cuckoo +total ' $r/$name-$1.txt | grep -o 'median_ms=[0-9.]* p10_ms=[0-9.]* p90_ms=[0-9.]*')"
    grep -E "probe\] cuckoo:|sites\] cuckoo:|exp\]" $r/$name-$1.txt | cut -c1-150
  done
}
EXPENV="" run base
EXPENV="VOXHASH_EXP_PINNED=1" run pinned
EXPENV="VOXHASH_EXP_SCHED=spin" run spin
EXPENV="VOXHASH_EXP_SCHED=yield" run yield
EXPENV="VOXHASH_EXP_PINNED=1 VOXHASH_EXP_SCHED=spin" run pinspin
EXPENV="" run base2
grep -A13 "sites\] cuckoo:" $r/base-1M.txt | cut -c1-150 | head -30
tar -C /tmp -czf $o/r.tgz r
