/**
 * A viewer's camera path player (docs/API.md, docs/PATHS.md): the path
 * (camera/camera-path.ts), play / pause / seek, loop and speed. It flies the view
 * camera on the frame loop's clock: frame.ts asks it for each drawn frame's pose with
 * that frame's time step (the time between frames drawn, at most 0.1 s), so the flight
 * never runs ahead of the frames a slow adapter draws, and each drawn frame is at
 * poseAt(path, time). Events: `pathframe` each frame flown (and at a seek), `pathend`
 * when a flight that does not loop reaches the path's end.
 */
import type { CameraPose } from '../camera/camera';
import { pathSampler, validateCameraPath, type CameraPath } from '../camera/camera-path';
import type { Voice } from './voice';

/** How `play` flies: `loop` from the end back to the start; `speed` times real time (default 1). */
export interface PlayOptions {
  loop?: boolean;
  speed?: number;
}

/** What the player needs of its viewer. */
export interface PathPlayerHooks {
  voice: Voice;
  /** Puts the view camera at a pose, its field of view included (no `change` event: once a frame). */
  place(pose: CameraPose): void;
  /** The next frame draws (and sorts). */
  redraw(): void;
}

export class PathPlayer {
  /** Seconds of path time the camera is at (0 .. the last keyframe's time). */
  time = 0;
  playing = false;
  loop = false;
  /** Path seconds a second of frames drawn. */
  speed = 1;
  private current: CameraPath | null = null;
  /** The next frame shows `time` as it is (just played or sought), without a step. */
  private fresh = false;

  constructor(private readonly hooks: PathPlayerHooks) {}

  /** The path, or null. */
  get path(): CameraPath | null {
    return this.current;
  }

  /**
   * Sets the path (validated: CameraPathError names the keyframe and field) or null (a
   * flight stops). A flight in progress goes on along the new path, its time kept within it.
   */
  set path(path: CameraPath | null) {
    if (path === null) {
      this.current = null;
      this.playing = false;
      this.time = 0;
      this.hooks.voice.change();
      return;
    }
    this.current = validateCameraPath(path);
    this.time = Math.min(this.time, this.duration);
    this.hooks.voice.change();
  }

  /** The path's duration (its last keyframe's time), 0 without a path. */
  get duration(): number {
    const ks = this.current?.keyframes;
    return ks ? ks[ks.length - 1].time : 0;
  }

  /**
   * Flies `path` (or the path set), from where the player is (from the start when it
   * is at the end). Throws without a path; RangeError for a speed that is not positive.
   */
  play(path?: CameraPath | null, options: PlayOptions = {}): void {
    if (path) this.path = path;
    if (!this.current) throw new Error('play: no camera path (set viewer.path or pass one)');
    if (options.speed !== undefined) {
      if (!(options.speed > 0 && Number.isFinite(options.speed))) throw new RangeError(`play: speed must be a positive number, got ${options.speed}`);
      this.speed = options.speed;
    }
    if (options.loop !== undefined) this.loop = options.loop;
    if (this.time >= this.duration) this.time = 0;
    this.playing = true;
    this.fresh = true;
    this.hooks.redraw();
    this.hooks.voice.change();
  }

  /** Stops where it is (the camera stays; the user's input moves it again). */
  pause(): void {
    if (!this.playing) return;
    this.playing = false;
    this.hooks.voice.change();
  }

  /** Puts the camera at path time `t` (clamped to the path) now; a flight goes on from there. */
  seek(t: number): void {
    const path = this.current;
    if (!path) throw new Error('seek: no camera path');
    this.time = Math.min(this.duration, Math.max(0, Number.isFinite(t) ? t : 0));
    this.fresh = true;
    const pose = pathSampler(path).poseAt(this.time);
    this.hooks.place(pose);
    this.hooks.redraw();
    this.hooks.voice.emit('pathframe', { time: this.time, pose });
  }

  /**
   * A frame is drawn (frame.ts; not while a benchmark flies): while playing, the pose
   * of the path `dt` seconds (times the speed) on from the last frame's, placed on
   * the view camera; null when not playing.
   */
  advance(dt: number): CameraPose | null {
    const path = this.current;
    if (!this.playing || !path) return null;
    const duration = this.duration;
    if (this.fresh) this.fresh = false;
    else this.time += Math.max(0, dt) * this.speed;
    let ended = false;
    if (this.time >= duration) {
      if (this.loop && duration > 0) this.time %= duration;
      else {
        this.time = duration;
        this.playing = false;
        ended = true;
      }
    }
    const pose = pathSampler(path).poseAt(this.time);
    this.hooks.place(pose);
    this.hooks.voice.emit('pathframe', { time: this.time, pose });
    if (ended) {
      this.hooks.voice.emit('pathend', { time: this.time });
      this.hooks.voice.change();
    }
    return pose;
  }

  destroy(): void {
    this.playing = false;
    this.current = null;
  }
}
