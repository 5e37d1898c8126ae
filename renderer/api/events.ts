/**
 * The events a Viewer dispatches (it is an EventTarget): CustomEvents whose
 * `detail` is typed here. Hosts listen with `viewer.addEventListener('load', ...)`.
 */
import type { CameraPose } from '../camera/camera';
import type { FrameSample } from '../profile/frame-stats';

/** What raised a `message`: a host's actions on the viewer (load, sort, draw, settings, screenshot, benchmark, a camera path's), the device, or the host page itself. */
export type MessageAction = 'load' | 'sort' | 'draw' | 'settings' | 'screenshot' | 'benchmark' | 'path' | 'device' | 'page';

export interface ViewerEventMap {
  /** Bytes read and splats parsed of the load in flight; `phase` 'upload' while the scene goes to the GPU. */
  progress: CustomEvent<{ name: string; phase: 'read' | 'upload'; bytes: number; totalBytes?: number; splats: number; totalSplats?: number }>;
  /** A scene is on screen. */
  load: CustomEvent<{ name: string; id: string; splats: number; shDegree: number }>;
  /** A load failed (the scene on screen stays): `error` is the loader's typed error (scenes/errors.ts, GpuBudgetError, SceneLoadCancelled). */
  error: CustomEvent<{ name: string; error: unknown }>;
  /** A frame of a scene completed on the GPU: its id and the figures of the last profiled frame (`viewer.stats`). */
  frame: CustomEvent<{ frameId: number; stats: FrameSample | null }>;
  /** The device was lost; the viewer recovers on a new one unless it was given its device (then it stops). */
  devicelost: CustomEvent<{ reason: string; message: string }>;
  /**
   * A line for a status bar, owned by the `action` that raised it: text, or null when
   * that action succeeded (an earlier action's line no longer holds). A `progress` line
   * ('Generating…', 'recovering…') is work under way: only its own action ends it.
   * `details`: the long form behind a failed load's line (the loader's own message:
   * its numbers, offsets, the formats it looked for), for a 'details' toggle.
   */
  message: CustomEvent<{ text: string | null; kind: 'error' | 'info'; action: MessageAction; progress?: boolean; hideAfterMs?: number; details?: string }>;
  /** Something a UI shows changed (draw, sort, notes, settings): refresh it; `clearGraph` when the frame times are of other work now. */
  change: CustomEvent<{ clearGraph: boolean }>;
  /** A camera path flight put the camera at path time `time` (seconds) for the frame being drawn, or a seek did (path-player.ts). */
  pathframe: CustomEvent<{ time: number; pose: CameraPose }>;
  /** A flight that does not loop reached the path's end (its last frame is being drawn). */
  pathend: CustomEvent<{ time: number }>;
  /** A frame's GPU figures arrived (a few frames late): for a frame graph. */
  sample: CustomEvent<{ frameId: number; sample: FrameSample; current: boolean }>;
}

export type ViewerEventName = keyof ViewerEventMap;
