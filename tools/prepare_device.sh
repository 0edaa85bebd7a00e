#!/usr/bin/env bash
# Prepares .gl/ (git-ignored) for device runs, once per checkout: the EGL/OpenGL/GLFW runtime the
# GPU machine lacks (../shared/device/fetch-gl-runtime.sh) plus the Debian shared libraries our
# binaries link that it lacks too (oneTBB; the Open Asset Import Library and what it links: zlib,
# minizip, Draco), which tools/device_run.sh puts on the path. tinyobjloader is compiled in.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fetch=../shared/device/fetch-gl-runtime.sh
if [ ! -f .gl/setup.sh ]; then
  [ -x "$fetch" ] || { echo "prepare_device: $fetch not found" >&2; exit 1; }
  "$fetch"
fi
mkdir -p .gl/lib
lib=/usr/lib/x86_64-linux-gnu
cp -L "$lib/libtbb.so.12" "$lib/libassimp.so.5" .gl/lib/
# libassimp's own dependencies, less the C and C++ runtimes every machine has.
ldd "$lib/libassimp.so.5" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
  grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so' | xargs -r cp -L -t .gl/lib/
echo "prepare_device: .gl/ ready; carry [\"build\", \".gl\"] and run tools/device_run.sh"
