/**
 * Frames of the scene on screen while another is being opened (issue 34). On a slow
 * adapter (SwiftShader: seconds a frame of a big scene) every frame of the old scene
 * submitted while the new one parses and uploads sits on the same queue (and, on a
 * software adapter, the same CPU cores) ahead of the new scene's upload: a 111-splat
 * file took 17-20 s to open after a big scene. So while a load runs and the last
 * frame of the scene on screen took over SLOW_FRAME_MS, no frame of it is submitted,
 * but one every RARE_FRAME_MS (the view still answers, slowly, and a load that never
 * ends cannot freeze the page). Pure; FrameLoop (frame.ts) asks it each frame.
 */

/** A frame slower than this (ms, submit to done) marks the adapter slow for the scene on screen. */
export const SLOW_FRAME_MS = 250;
/** While a load runs on a slow adapter, the old scene is drawn at most this often (ms). */
export const RARE_FRAME_MS = 10_000;

export interface LoadPacingState {
  /** A scene is being opened (parsed, uploaded, made ready). */
  loading: boolean;
  /** The last completed frame of the scene on screen: ms from submit to done; null: none yet (or no scene). */
  lastFrameMs: number | null;
  /** ms since the last frame was submitted (Infinity: none). */
  sinceSubmitMs: number;
}

/** Whether a frame of the scene on screen may be submitted now. */
export function frameWhileLoading(s: LoadPacingState): boolean {
  if (!s.loading) return true;
  if (s.lastFrameMs === null || !(s.lastFrameMs > SLOW_FRAME_MS)) return true;
  return s.sinceSubmitMs >= RARE_FRAME_MS;
}
