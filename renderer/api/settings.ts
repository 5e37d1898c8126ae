/**
 * The viewer's live settings: what each frame is drawn with. A UI may edit the
 * object in place (then `viewer.invalidate()`); the sort and draw choices go
 * through `viewer.setSort()` / `viewer.setDraw()`, which check them.
 */
import type { UpAxis } from '../camera/camera';
import type { DrawOrder } from '../draw/quads/quads-draw';
import type { FrameSettings } from '../stage/frame-uniforms';
import { AUTO_DRAW, type DrawSetting } from '../profile/auto-draw';
import { AUTO_STRATEGY } from '../profile/auto-strategy';

export interface RenderSettings {
  /** A sort strategy's name (sort/registry.ts, the CPU worker) or 'auto' (measured on this adapter). */
  sorter: string;
  /** Draw strategy: instanced quads, the compute tile rasteriser, or auto (the faster measured, profile/auto-draw.ts). */
  draw: DrawSetting;
  keyBits: number;
  sortMode: 'every frame' | 'when the camera moves';
  shDegree: number;
  splatScale: number;
  cull: boolean;
  /** PlayCanvas's 2.83-sigma cut (FrameSettings.sigmaCut): less area, a small image change. */
  sigmaCut: boolean;
  /** The contribution cull's threshold in px (FrameSettings.minContribution; 0 off): an image change. */
  minContribution: number;
  /** The anti-aliased mode (FrameSettings.antialias): an image change, both draws. */
  antialias: boolean;
  /** Quads draw order: auto (by the view's depth complexity), back to front, or front to back with early termination. */
  drawOrder: DrawOrder;
  /** '#rrggbb'. */
  background: string;
  upAxis: UpAxis;
  fovyDeg: number;
  /** Frames a benchmark flies per strategy. */
  benchFrames: number;
  /** The SH degree scenes are loaded with (3: every band the file has). */
  loadSh: number;
}

export function defaultSettings(): RenderSettings {
  return {
    sorter: AUTO_STRATEGY,
    draw: AUTO_DRAW,
    keyBits: 32,
    sortMode: 'every frame',
    shDegree: 3,
    splatScale: 1,
    cull: true,
    sigmaCut: false,
    minContribution: 0,
    antialias: false,
    drawOrder: 'auto',
    background: '#000000',
    upAxis: '-y',
    fovyDeg: 60,
    benchFrames: 120,
    loadSh: 3,
  };
}

/**
 * What a frame is drawn with, from the viewer's live settings: the one rule for every
 * frame of the viewer's (the live view, offscreen renders and screenshots, a video's
 * frames, pick, drawOver), so that none draws with a setting the others leave out.
 */
export function frameSettingsOf(s: RenderSettings): FrameSettings & { background: [number, number, number] } {
  return {
    shDegree: s.shDegree,
    splatScale: s.splatScale,
    cull: s.cull,
    sigmaCut: s.sigmaCut,
    minContribution: s.minContribution,
    antialias: s.antialias,
    drawOrder: s.drawOrder,
    keyBits: s.keyBits,
    background: hexToRgb(s.background),
  };
}

export function hexToRgb(hex: string): [number, number, number] {
  const v = parseInt(hex.replace('#', ''), 16);
  return [((v >> 16) & 255) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255];
}
