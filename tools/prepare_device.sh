#!/usr/bin/env bash
# Prepares .gl/ (git-ignored) for device runs, once per checkout: the EGL/OpenGL/GLFW runtime the
# GPU machine lacks (../shared/device/fetch-gl-runtime.sh) plus the Debian shared libraries our
# binaries link that it lacks too (tinyobjloader, oneTBB), which tools/device_run.sh puts on the
# path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fetch=../shared/device/fetch-gl-runtime.sh
if [ ! -f .gl/setup.sh ]; then
  [ -x "$fetch" ] || { echo "prepare_device: $fetch not found" >&2; exit 1; }
  "$fetch"
fi
mkdir -p .gl/lib
cp -L /usr/lib/x86_64-linux-gnu/libtinyobjloader.so.2rc10 .gl/lib/
cp -L /usr/lib/x86_64-linux-gnu/libtbb.so.12 .gl/lib/
echo "prepare_device: .gl/ ready; carry [\"build\", \".gl\"] and run tools/device_run.sh"
