#!/bin/sh
# Runs a render test under a virtual X display (Xvfb, 24-bit); exits 77, which CTest reports as a
# skip, where xvfb-run is not installed (Debian package xvfb).
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "SKIPPED: xvfb-run not found (install the xvfb package to run the window tests)"
  exit 77
fi
exec xvfb-run -a -s "-screen 0 1280x800x24" "$@"
