#!/usr/bin/env bash
# Prepares .gl/ (git-ignored) for device runs, once per checkout: the EGL/OpenGL/GLFW runtime the
# GPU machine lacks (../shared/device/fetch-gl-runtime.sh) plus the Debian shared libraries our
# binaries link that it lacks too (oneTBB; the Open Asset Import Library, libzip and pugixml, and
# what they link: zlib, minizip, Draco, bzip2, OpenSSL's libcrypto), which tools/device_run.sh puts
# on the path. tinyobjloader is compiled in.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fetch=../shared/device/fetch-gl-runtime.sh
if [ ! -f .gl/setup.sh ]; then
  [ -x "$fetch" ] || { echo "prepare_device: $fetch not found" >&2; exit 1; }
  "$fetch"
fi
mkdir -p .gl/lib
lib=/usr/lib/x86_64-linux-gnu
# Each library and what it links, less the C and C++ runtimes every machine has.
for name in libtbb.so.12 libassimp.so.5 libzip.so.4 libpugixml.so.1; do
  cp -L "$lib/$name" .gl/lib/
  ldd "$lib/$name" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
    { grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so' || true; } | xargs -r cp -L -t .gl/lib/
done
echo "prepare_device: .gl/ ready; carry [\"build\", \".gl\"] and run tools/device_run.sh"
