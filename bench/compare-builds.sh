#!/usr/bin/env bash
# On the GPU machine (gpu-kit): the frame of two builds of bench/frame.ts on the same
# files, cameras and card, in one run, interleaved (base, new, base, new) so that the
# card's state falls on both alike. For a change that must not slow a frame (issue 31's
# move: within 3%).
#
# Pack (here): the new build with the data it needs, then the base build's bundle beside it:
#   node ../shared/tools/gpu-kit/pack.mjs bench/frame.ts --data ../shared/tools/replicate-ply.mjs \
#     --data ../shared/scenes/playbot_31k_sh2_reordered.ply --data ../shared/scenes/inria_sh3_tile_6831.ply
#   cp BASE_CHECKOUT/.gpukit/app/frame.mjs .gpukit/app/frame-base.mjs   # packed the same way there
# Run (device, carry .gpukit):  bash bench/compare-builds.sh
# Environment: SCENES (any of tile6831 1m 6m), DRAWS (default tiles,quads), FRAMES (60), WARMUP (20), ROUNDS (2),
# BUILDS (default "base new": .gpukit/app/frame-base.mjs and frame.mjs; another name X runs frame-X.mjs).
set -euo pipefail
kit=.gpukit
data=$kit/data
OUT=${OUT:-/tmp/compare-builds}
mkdir -p "$OUT"
SCENES=${SCENES:-"tile6831 1m 6m"}
DRAWS=${DRAWS:-tiles,quads}
FRAMES=${FRAMES:-60}
WARMUP=${WARMUP:-20}
ROUNDS=${ROUNDS:-2}
BUILDS=${BUILDS:-"base new"}
R="bash $kit/run.sh"
T=/tmp/compare-builds-scenes
mkdir -p "$T"

declare -A CAM=(
  [tile6831]="eye=2.05654,2.06277,-9.38005 target=2.05654,2.06277,4.78641 up=0,-1,0 fovy=60"
  [1m]="eye=-0.0002377,-0.476,-3.121 target=-0.0002377,-0.476,-0.001732 up=0,-1,0 fovy=60"
  [6m]="eye=-0.0002583,-0.4759,-3.12 target=-0.0002583,-0.4759,-0.001149 up=0,-1,0 fovy=60"
)
file_of() {
  case "$1" in
    tile6831) echo "$data/inria_sh3_tile_6831.ply" ;;
    1m) $R node "$data/replicate-ply.mjs" --count 1000000 --base "$data/playbot_31k_sh2_reordered.ply" --out-dir "$T" | tail -1 ;;
    6m) $R node "$data/replicate-ply.mjs" --count 6000000 --base "$data/playbot_31k_sh2_reordered.ply" --out-dir "$T" | tail -1 ;;
  esac
}

for scene in $SCENES; do
  file=$(file_of "$scene")
  for round in $(seq 1 "$ROUNDS"); do
    for build in $BUILDS; do
      app=$kit/app/frame-$build.mjs
      [ "$build" = new ] && app=$kit/app/frame.mjs
      echo "== $scene $build round $round"
      $R node "$app" --scene "$file" --camera "${CAM[$scene]}" --strategies onesweep --draw "$DRAWS" \
        --frames "$FRAMES" --warmup "$WARMUP" --no-coverage --json "$OUT/$scene-$build-$round.json" 2>&1 | grep -v '^\s*$' | tail -6
    done
  done
done
# One line per scene, draw and build: the median of the rounds' median GPU totals.
$R node -e '
const fs = require("fs"); const dir = process.argv[1]; const rows = {};
for (const f of fs.readdirSync(dir).filter((f) => /-[a-z0-9]+-\d+\.json$/.test(f))) {
  const [, scene, build] = f.match(/^(.*)-([a-z0-9]+)-\d+\.json$/);
  const j = JSON.parse(fs.readFileSync(dir + "/" + f, "utf8"));
  for (const r of j) {
    const k = scene + " " + r.draw; ((rows[k] ??= {})[build] ??= []).push(r.stages.total);
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
for (const [k, v] of Object.entries(rows)) {
  const others = Object.keys(v).filter((b) => b !== "base");
  console.log(`${k} | base ${med(v.base).toFixed(3)} ms | ` + others.map((b) => `${b} ${med(v[b]).toFixed(3)} ms (${(med(v[b]) / med(v.base)).toFixed(3)}x)`).join(" | "));
}
' "$OUT" | tee "$OUT/compare-builds.txt"
