/**
 * A load cancelled while its scene goes to the GPU (SplatRenderer.prepareScene with
 * an AbortSignal, the upload in slices of renderer/gpu/sliced-upload.ts): it stops
 * at the next slice or step, every buffer made for it is destroyed (tracked on the
 * real device), the promise rejects with the signal's reason, and the scene on
 * screen draws exactly as before.
 */
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { GpuScene } from '../../renderer/gpu-scene/gpu-scene';
import { generateDefaultScene, generateSynthetic } from '../../scenes/generate';
import { useGpu, withValidation } from '../support/gpu';
import { trackAllocations } from '../support/tile-render';

const ctx = useGpu();
const settings = { shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0] as [number, number, number] };

class Cancelled extends Error {}

describe('an aborted upload', () => {
  // Aborted at the upload's first report (mid-upload: it reports before each pause or settle,
  // and a settle comes every 4 MB, ~29,000 SH3 splats), or once every slice is written (then
  // during the sort buffers and the draw state).
  for (const abortAt of ['mid-upload', 'after-upload'] as const) {
    it(`aborted ${abortAt === 'after-upload' ? 'after the upload, before the draw state' : 'during the upload'}: frees everything, the shown scene stays`, async () => {
      const { device } = ctx.gpu;
      const shown = generateDefaultScene(1500);
      const next = generateSynthetic(40_000);
      const cam = frameCamera(fitPose(robustBounds(shown.positions), upVector('-y'), 60, 1), 64, 64, shown.bounds);
      const track = trackAllocations(device);
      // Bytes written into the new scene's centres: the whole upload is count * 16.
      let centreBytes = 0;
      const writeBuffer = device.queue.writeBuffer.bind(device.queue);
      device.queue.writeBuffer = ((buffer: GPUBuffer, offset: number, data: BufferSource, dataOffset?: number, size?: number) => {
        if (buffer.label === 'GpuScene.centers') centreBytes += size ?? data.byteLength;
        return writeBuffer(buffer, offset, data as ArrayBuffer, dataOffset, size);
      }) as GPUQueue['writeBuffer'];
      try {
        await withValidation(device, async () => {
          const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4');
          renderer.setScene(shown);
          const before = (await renderOffscreen(renderer, cam, settings)).rgba;
          const baseline = track.live().sort();
          centreBytes = 0;
          const controller = new AbortController();
          const reason = new Cancelled('cancelled by the test');
          let reported = 0;
          const pause = async () => {
            if (abortAt === 'after-upload' && centreBytes === next.count * 16) controller.abort(reason);
          };
          const run = renderer.prepareScene(next, pause, (u) => {
            reported = u;
            if (abortAt === 'mid-upload') controller.abort(reason);
          }, controller.signal);
          await expect(run).rejects.toBe(reason);
          if (abortAt === 'mid-upload') {
            expect(reported).toBeGreaterThan(0);
            expect(centreBytes).toBe(reported * 16); // no slice written after the abort
            expect(centreBytes).toBeLessThan(next.count * 16);
          } else expect(centreBytes).toBe(next.count * 16);
          // Nothing of the aborted scene is left; the shown one draws the same picture.
          expect(track.live().sort()).toEqual(baseline);
          expect(renderer.cloud).toBe(shown);
          expect(Buffer.from((await renderOffscreen(renderer, cam, settings)).rgba).equals(Buffer.from(before))).toBe(true);
          renderer.destroy();
        });
        expect(track.live()).toEqual([]);
      } finally {
        track.stop();
        device.queue.writeBuffer = writeBuffer;
      }
    });
  }

  // Compact scenes first pass over the cloud for their ranges (paced and aborted as the upload,
  // 8 upload chunks a slice: 3 slices here), then upload: abort at the 2nd pause is in that
  // pass (nothing made yet), at the 5th in the upload (buffers made, then destroyed).
  for (const [precision, abortAtPause] of [['full', 2], ['compact', 2], ['compact', 5]] as const) {
    it(`GpuScene.create (${precision}): aborted at pause ${abortAtPause}, what it made destroyed; a signal aborted before it starts makes nothing that stays`, async () => {
      const { device } = ctx.gpu;
      const cloud = generateSynthetic(20_000);
      const track = trackAllocations(device);
      try {
        const controller = new AbortController();
        let pauses = 0;
        let madeBuffers = 0;
        const run = GpuScene.create(device, cloud, 1 << 30, async () => {
          if (++pauses === abortAtPause) {
            madeBuffers = track.live().length;
            controller.abort(new Cancelled('x'));
          }
        }, { chunk: 1000, budgetMs: 0, signal: controller.signal, precision });
        await expect(run).rejects.toBeInstanceOf(Cancelled);
        expect(pauses).toBe(abortAtPause); // no slice after the abort
        if (precision === 'compact' && abortAtPause === 2) expect(madeBuffers).toBe(0); // still in the ranges pass
        else expect(madeBuffers).toBeGreaterThan(0);
        expect(track.live()).toEqual([]);
        const early = new AbortController();
        early.abort(new Cancelled('early'));
        await expect(GpuScene.create(device, cloud, 1 << 30, async () => undefined, { signal: early.signal, precision })).rejects.toBeInstanceOf(Cancelled);
        expect(track.live()).toEqual([]);
      } finally {
        track.stop();
      }
    });
  }
});
