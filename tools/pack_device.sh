#!/usr/bin/env bash
# Packs what a device call runs into .carry/build.tar.xz (git-ignored), within the device tool's
# 64 MiB carry: the voxhash binary and the gpu test binaries of build/ (stripped), the CTest
# files (they hold absolute paths, and the repo sits at the same path there) and the test data
# they read. Carry [".carry", ".gl"] and start the command with `tools/device_run.sh`, which unpacks
# it into build/ when build/ was not carried. Extra arguments: more paths under build/ to pack.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x build/app/voxhash ] || { echo "pack_device: build/app/voxhash not built" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
files=(build/app/voxhash $(ls build/tests/test_*_gpu 2>/dev/null) "$@")
for f in "${files[@]}"; do
  mkdir -p "$stage/$(dirname "$f")"
  cp "$f" "$stage/$f"
  [ -f "$stage/$f" ] && strip --strip-unneeded "$stage/$f" 2>/dev/null || true
done
(cd build && find . -name 'CTestTestfile.cmake' -o -name '*_include.cmake' -o -name '*_tests.cmake') |
  while read -r f; do mkdir -p "$stage/build/$(dirname "$f")"; cp "build/$f" "$stage/build/$f"; done
mkdir -p .carry
tar cJf .carry/build.tar.xz -C "$stage" build
echo "pack_device: .carry/build.tar.xz $(du -h .carry/build.tar.xz | cut -f1) (${#files[@]} binaries)"
