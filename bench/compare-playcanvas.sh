#!/usr/bin/env bash
# PlayCanvas 2.23.3's splat renderer and ours on the same machine, files and cameras,
# in one run (issue 9's three files and fixed cameras, 1920x1080). Runs on the GPU
# machine from the project root after packing here:
#
#   node ../shared/tools/gpu-kit/pack.mjs bench/playcanvas-frame.ts bench/frame.ts \
#     --data ../shared/scenes/biker.compressed.ply --data ../shared/tools/replicate-ply.mjs \
#     --data ../shared/scenes/playbot_31k_sh2_reordered.ply
#   bash .gpukit/run.sh bash bench/compare-playcanvas.sh OUT_DIR [SCENES]
#
# SCENES: a comma list of biker,1m,6m (default all three). Writes one JSON per program
# and scene into OUT_DIR, and PlayCanvas's last biker frame as a PNG.
set -euo pipefail
out=${1:?usage: compare-playcanvas.sh OUT_DIR [biker,1m,6m]}
scenes=${2:-biker,1m,6m}
mkdir -p "$out"
data=.gpukit/data
biker="eye=-0.09315,-1.537,-3.348 target=-0.09315,-1.537,0.0246 up=0,-1,0 fovy=60"
m1="eye=-0.0002377,-0.476,-3.121 target=-0.0002377,-0.476,-0.001732 up=0,-1,0 fovy=60"
m6="eye=-0.0002583,-0.4759,-3.12 target=-0.0002583,-0.4759,-0.001149 up=0,-1,0 fovy=60"

run() { # name file camera pc-frames our-frames
  local name=$1 file=$2 cam=$3 pcf=$4 ourf=$5
  echo "== $name: PlayCanvas (its minContribution 3, the default, and 0)"
  node .gpukit/app/playcanvas-frame.mjs --scene "$file" --camera "$cam" --frames "$pcf" --warmup 10 \
    --min-contribution 3,0 --json "$out/pc-$name.json" ${PNG:+--png "$out/pc-$name.png"}
  echo "== $name: ours (the same image as the reference, then with the contribution cull)"
  node .gpukit/app/frame.mjs --scene "$file" --camera "$cam" --frames "$ourf" --warmup 5 --strategies onesweep \
    --geometry tri,tri+cut --min-contribution 0,0.75,3 --no-coverage --json "$out/ours-$name.json"
}

replicated() { node $data/replicate-ply.mjs --count "$1" --base $data/playbot_31k_sh2_reordered.ply --out-dir /tmp >&2; echo "/tmp/replicated-$1-playbot_31k_sh2_reordered-j0.005-s1.ply"; }

case ",$scenes," in *,biker,*) PNG=1 run biker $data/biker.compressed.ply "$biker" 200 100 ;; esac
case ",$scenes," in *,1m,*) run 1m "$(replicated 1000000)" "$m1" 60 30 ;; esac
case ",$scenes," in *,6m,*) run 6m "$(replicated 6000000)" "$m6" 15 8 ;; esac
