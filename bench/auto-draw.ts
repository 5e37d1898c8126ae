/**
 * npm run bench:auto-draw -- --scene FILE|default[:N] [--size 1920x1080] [--sort onesweep]
 *                            [--camera "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"] [--prior quads|tiles]
 *                            [--check] [--runs 1] [--timeout 300]
 *
 * The draw's `auto` as a viewer runs it, in Node (Dawn), offscreen: a Viewer on the
 * scene with the draw `auto` and no stored picks, each run a new one, until it has
 * picked. Printed per run: the draw note (what was measured and how: the draw not on
 * screen probed offscreen at small sizes first, drawn at full size only where its
 * frame is predicted within twice the page's, else its figure predicted), the trial's
 * frames (how many ran alone on the queue, the longest and which draw, against the
 * page's frame: issue 34's bound is 2x), and how long from the scene's first frame to
 * the pick. On a fast GPU the draw not on screen (quads) must still be drawn and
 * timed at full size; on a software adapter the slow one (tiles) must not be.
 *
 * The sort is fixed (`--sort`, default onesweep; `auto` measures the sorts first) so
 * that the run is the draw's trial. Without `--camera`, the view the viewer fits.
 * `--prior quads|tiles`: a pick of that draw stored for a far smaller scene on this
 * adapter (1,000 splats: not reused for scenes over 4x that, only auto's start), so that the trial starts
 * with that draw on screen and probes the other (without it: tiles on a GPU, quads on
 * a software adapter).
 * `--check`: then each draw left at its windows' estimate is drawn at full size for 20
 * frames and its median GPU frame printed beside the estimate (how good the estimate is;
 * the frames the trial avoided).
 * A program that prints figures, not a test; docs/PERFORMANCE.md keeps them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createViewer } from '../renderer/api/index';
import { countBucket } from '../renderer/profile/auto-picks';
import { createNodeGpu } from '../renderer/gpu/node-gpu';
import { cameraFromArg, parseSize, runCli } from './cli';

const { values: args } = parseArgs({
  options: {
    scene: { type: 'string', default: 'default:60000' },
    size: { type: 'string', default: '1920x1080' },
    sort: { type: 'string', default: 'onesweep' },
    camera: { type: 'string' },
    runs: { type: 'string', default: '1' },
    prior: { type: 'string' },
    check: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '300' },
  },
});

/**
 * A store holding, for every adapter, a draw pick of `draw` measured at 1,000 splats: auto's
 * start for a scene not measured (the nearest size's pick), reused for none over 4,000 splats.
 */
function priorStore(draw: string): { getItem(key: string): string | null; setItem(): void } {
  if (draw !== 'quads' && draw !== 'tiles') throw new Error(`--prior: quads or tiles, not ${JSON.stringify(draw)}`);
  const other = draw === 'quads' ? 'tiles' : 'quads';
  const splats = 1000;
  const pick = { name: draw, ms: 1, reason: `auto: ${draw} (bench:auto-draw --prior)`, ranked: [{ name: draw, ms: 1 }, { name: other, ms: 1.1 }], splats };
  return { getItem: (key) => (key.startsWith('splatview.auto.draw.') ? JSON.stringify({ [countBucket(splats)]: pick }) : null), setItem: () => undefined };
}

runCli(async () => {
  const { width, height } = parseSize(args.size);
  const gpu = await createNodeGpu({ timestamps: true });
  console.log(`adapter: ${gpu.description}`);
  const generated = /^default(:\d+)?$/.test(args.scene);
  const scene = generated ? { generate: args.scene } : new Uint8Array(fs.readFileSync(args.scene)).buffer;
  const name = generated ? args.scene : path.basename(args.scene);
  const pose = args.camera ? cameraFromArg(args.camera) : null;
  const timeoutMs = Number(args.timeout) * 1000;
  for (let run = 1; run <= Math.max(1, Number(args.runs)); run++) {
    const t0 = performance.now();
    const viewer = await createViewer(
      { width, height },
      {
        device: gpu.device,
        scene,
        sort: args.sort,
        draw: 'auto',
        ...(args.prior ? { autoPicksStore: priorStore(args.prior) } : {}),
        ...(pose ? { camera: { eye: pose.eye, target: pose.target, up: pose.up, fovy: pose.fovyDeg } } : {}),
      },
    );
    try {
      await viewer.ready;
      const shown = performance.now();
      while (!viewer.drawChoice) {
        if (performance.now() - shown > timeoutMs) throw new Error(`run ${run}: no draw pick in ${args.timeout} s (note: ${viewer.drawNote})`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const picked = performance.now();
      const c = viewer.drawChoice;
      const tf = c.trialFrames;
      console.log(`run ${run}: ${name}, ${viewer.scene?.splats.toLocaleString('en-US')} splats at ${width}x${height}, sort ${args.sort}; shown ${((shown - t0) / 1000).toFixed(1)} s, picked ${((picked - shown) / 1000).toFixed(1)} s after`);
      console.log(`  ${viewer.drawNote}`);
      if (tf) {
        console.log(
          `  trial frames: ${tf.count} alone on the queue, the longest ${tf.longestMs.toFixed(1)} ms (${tf.longest}); the page's frame ${tf.pageMs.toFixed(1)} ms: ${(tf.longestMs / tf.pageMs).toFixed(2)}x (bound 2x)`,
        );
      }
      if (args.check) {
        for (const r of c.ranked.filter((x) => x.predicted)) {
          viewer.setDraw(r.name);
          const stats = viewer.live.figures.stats;
          const from = performance.now();
          while (stats.size < 20 && performance.now() - from < timeoutMs) await new Promise((res) => setTimeout(res, 20));
          const measured = stats.medianFrame()?.total ?? NaN;
          console.log(`  check: ${r.name} estimated ${r.ms.toFixed(1)} ms; drawn at full size ${measured.toFixed(1)} ms (median GPU frame of ${stats.size}): estimate / measured ${(r.ms / measured).toFixed(2)}`);
        }
      }
    } finally {
      viewer.destroy();
    }
  }
});
