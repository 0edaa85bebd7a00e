#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.cpp) with clang, ASan and UBSan in build-fuzz/,
# then runs each for a bounded time from the seed corpus tools/make_fuzz_seeds.py writes. Fails on
# a crash, a hang (-timeout), an out-of-memory (-rss_limit_mb) or a broken invariant; the input
# that did it is left in build-fuzz/artifacts/ (replay: build-fuzz/tests/fuzz/fuzz_X FILE).
# Usage: tools/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET...] (default: all of them but
# fuzz_mesh, which stops on bugs inside Debian's assimp within a minute or so: docs/RELIABILITY.md;
# name it to run it)
set -euo pipefail

seconds=${1:-60}
shift $(($# > 0 ? 1 : 0))
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

clang=${VOXHASH_CLANG:-}
if [ -z "$clang" ]; then
  for candidate in clang++ clang++-{19..14}; do
    if command -v "$candidate" >/dev/null; then clang=$candidate && break; fi
  done
fi
if [ -z "$clang" ]; then
  echo "fuzz: no clang++ found (Debian: apt-get install clang libclang-rt-dev)" >&2
  exit 2
fi

targets=("$@")
if ((${#targets[@]} == 0)); then
  for source in tests/fuzz/fuzz_*.cpp; do
    [ "$(basename "$source")" = fuzz_mesh.cpp ] || targets+=("$(basename "$source" .cpp)")
  done
fi

build=build-fuzz
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clang" \
  -DVOXHASH_CUDA=OFF -DVOXHASH_BUILD_TESTS=OFF -DVOXHASH_FUZZ=ON \
  -DVOXHASH_SANITIZE=address,undefined >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
python3 tools/make_fuzz_seeds.py "$build/seeds"
mkdir -p "$build/artifacts"

# Leaks inside assimp are its own (tests/fuzz/lsan.supp); any other leak fails the run.
export LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
status=0
for target in "${targets[@]}"; do
  format=${target#fuzz_}
  corpus=$build/corpus/$format
  mkdir -p "$corpus" "$build/seeds/$format"
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-")
  [ -f "tests/fuzz/$format.dict" ] && options+=(-dict="tests/fuzz/$format.dict")
  log=$build/$target.log
  if "$build/tests/fuzz/$target" "${options[@]}" "$corpus" "$build/seeds/$format" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $target passed: $runs runs in ${seconds}s, corpus $(ls "$corpus" | wc -l) inputs"
  else
    echo "fuzz: $target FAILED (log $log, input in $build/artifacts/):" >&2
    grep -E "ERROR|SUMMARY|invariant|Test unit written" "$log" >&2 || tail -n 30 "$log" >&2
    status=1
  fi
done
exit $status
