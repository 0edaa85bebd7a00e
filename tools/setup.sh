#!/usr/bin/env bash
# The README's commands: `tools/setup.sh run`, `tools/setup.sh test` and `tools/setup.sh sanitize`.
# Each installs the Debian packages that are missing (apt-get, as root or through sudo); run and
# test configure and build in build/, then run the main job (the viewer with a display, else the
# headless frame benchmark) or the test suite; sanitize runs the cpu tests under ASan+UBSan and TSan
# and the fuzzers (docs/RELIABILITY.md). CUDA is used when nvcc is installed (/usr/local/cuda);
# nothing is downloaded except Debian packages.
set -euo pipefail

mode=${1:-}
case "$mode" in
  run | test | sanitize) shift ;;
  *)
    echo "usage: tools/setup.sh run|test|sanitize [extra arguments for voxhash or ctest]" >&2
    exit 2
    ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

packages=(build-essential cmake ninja-build git pkg-config libgtest-dev libglfw3-dev libglm-dev
  libimgui-dev libtinyobjloader-dev libassimp-dev libtbb-dev python3-glad libstb-dev libegl-dev
  libgl-dev xvfb xauth python3-matplotlib libcli11-dev nlohmann-json3-dev libcgal-dev
  libpugixml-dev libzip-dev libocct-data-exchange-dev libocct-foundation-dev
  libocct-modeling-algorithms-dev libocct-modeling-data-dev)
if [ "$mode" = sanitize ]; then packages+=(clang libclang-rt-dev); fi  # libFuzzer
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
if [ "$mode" = sanitize ]; then
  # The cpu tests under ASan+UBSan, then under TSan (CMake presets asan, tsan: CPU-only builds in
  # build-asan/ and build-tsan/), then every fuzz target for VOXHASH_FUZZ_SECONDS (default 60).
  for preset in asan tsan; do
    start=$SECONDS
    cmake --preset "$preset" >/dev/null
    cmake --build --preset "$preset" -j "$jobs"
    ctest --preset "$preset" -j "$jobs" "$@"
    echo "setup: $preset: built and passed in $((SECONDS - start)) s" >&2
  done
  start=$SECONDS
  tools/fuzz.sh "${VOXHASH_FUZZ_SECONDS:-60}"
  echo "setup: fuzzing: built and passed in $((SECONDS - start)) s" >&2
  exit 0
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs"

if [ "$mode" = test ]; then
  # cpu: algorithms on the CPU backend; gpu: CUDA vs CPU (skipped without a device);
  # render: the viewer under Xvfb.
  exec ctest --test-dir build --output-on-failure -j "$jobs" "$@"
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec ./build/app/voxhash "$@"
fi
echo "setup: no display; running the headless frame benchmark (voxhash bench frame)" >&2
exec ./build/app/voxhash bench frame "$@"
