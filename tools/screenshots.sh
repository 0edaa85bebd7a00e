#!/usr/bin/env bash
# The README's viewer screenshots (docs/screenshots/*.png), rendered under Xvfb with Mesa on the
# CPU backend so that anyone can make them again: the placement tools and the clash list (with a
# status file) on a placed scene of two models in different units, X-ray, the clipping plane and
# the overlay on the demo. Usage: tools/screenshots.sh [BUILD_DIR] (default build-cpu, else build).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-}
if [[ -z $build ]]; then
  build=$root/build-cpu
  [[ -x $build/app/voxhash ]] || build=$root/build
fi
voxhash=$build/app/voxhash
[[ -x $voxhash ]] || { echo "no $voxhash: build the voxhash target first" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "xvfb-run not found (Debian package xvfb)" >&2; exit 1; }

out=$root/docs/screenshots
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A user's scene: the sphere in metres, the torus given in centimetres (scale 100 makes it the same
# size), placed by hand so that they clash in two places; no motion.
cat >"$work/placed.json" <<JSON
{
  "voxhash_scene": 1,
  "name": "placed",
  "unit": "m",
  "models": [
    { "name": "sphere", "path": "$root/assets/sphere.obj" },
    { "name": "ring", "path": "$root/assets/torus.obj", "unit": "cm",
      "transform": { "translate": [0.35, 0.1, 0.0], "rotate": [70, 0, 25], "scale": 100 } }
  ],
  "grid": { "resolution": 160 }
}
JSON

shot() {
  local name=$1
  shift
  xvfb-run -a -s "-screen 0 1280x800x24" "$voxhash" --backend cpu --points 200000 \
    --width 1280 --height 800 "$@" --screenshot "$out/$name.png" >/dev/null
  echo "wrote docs/screenshots/$name.png"
}

shot placement --scene "$work/placed.json" --frames 3 --tab scene --select b
# The clash list with a status file: one run of `voxhash clash --status`, then a person's review.
"$voxhash" clash "$work/placed.json" --backend cpu --points 200000 --status "$work/status.json" \
  >/dev/null
sed -i -e '0,/"status": "new"/s//"status": "reviewed"/' \
  -e '0,/"assignee": ""/s//"assignee": "structure"/' \
  -e '0,/"comment": ""/s//"comment": "ring to be raised 50 mm"/' "$work/status.json"
shot clash-list --scene "$work/placed.json" --frames 3 --tab clash --clash-every 1 \
  --status "$work/status.json"
shot xray --res 192 --frames 3 --tab view --xray
shot clipping --res 192 --frames 3 --tab view --clip z:0.05
shot overlay --res 192 --frames 3 --tab stats
