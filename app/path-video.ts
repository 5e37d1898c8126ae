/**
 * A camera path as a video file (docs/USAGE.md, 'camera paths'): each frame of the
 * path (pathFrames: frame i at path time i / fps, to the last keyframe) rendered
 * offscreen at the chosen size (viewer.renderView, not a recording of the screen),
 * encoded with WebCodecs (H.264 where VideoEncoder.isConfigSupported says so, muxed
 * into MP4; else VP9 into WebM) and muxed with mediabunny, loaded on first use (a
 * dynamic import: the page's first load does not pay for it). Between frames it
 * waits for an animation frame, so the page stays alive while it encodes.
 */
import { pathFrames, type CameraPath, type Viewer } from '../renderer/api/index';

/** A video made of a path. */
export interface PathVideo {
  blob: Blob;
  container: 'mp4' | 'webm';
  /** The WebCodecs codec string it was encoded with. */
  codec: string;
  width: number;
  height: number;
  fps: number;
  /** Frames encoded: frameCount(path, fps). */
  frames: number;
  /** Seconds: frames / fps (each frame shown 1 / fps). */
  duration: number;
}

export interface PathVideoOptions {
  width: number;
  height: number;
  fps: number;
  signal?: AbortSignal;
  /** After each frame is encoded: frames done, of the total. */
  onProgress?: (done: number, total: number) => void;
}

/** The largest side a video may have (H.264 level 5.1's frame width). */
const MAX_SIDE = 4096;

/** "1280x720" -> { width, height }; the reason as a string when it is not a usable size (even sides, 16 to 4096). */
export function parseVideoSize(text: string): { width: number; height: number } | string {
  const m = /^\s*(\d+)\s*[x×]\s*(\d+)\s*$/i.exec(text);
  if (!m) return `Video size "${text}": write it as WIDTHxHEIGHT, e.g. 1280x720`;
  const width = Number(m[1]);
  const height = Number(m[2]);
  if (width < 16 || height < 16 || width > MAX_SIDE || height > MAX_SIDE) return `Video size ${width}x${height}: each side 16 to ${MAX_SIDE} pixels`;
  if (width % 2 || height % 2) return `Video size ${width}x${height}: the sides must be even (the encoders halve the colour planes)`;
  return { width, height };
}

/** "garden-path-1280x720-30fps.mp4" for a scene "garden.ply". */
export function videoName(scene: string, v: Pick<PathVideo, 'width' | 'height' | 'fps' | 'container'>): string {
  const base = scene.replace(/\.[a-z0-9]+$/i, '').replace(/[^\w.-]+/g, '_') || 'splatview';
  return `${base}-path-${v.width}x${v.height}-${v.fps}fps.${v.container}`;
}

/** H.264 (baseline 3.1, main 4.0, high 4.0 and 5.1) into MP4, then VP9 (levels 3.1, 4.0, 5.1) into WebM: the first the browser encodes. */
const CANDIDATES: { container: 'mp4' | 'webm'; codec: string }[] = [
  { container: 'mp4', codec: 'avc1.42001f' },
  { container: 'mp4', codec: 'avc1.4d0028' },
  { container: 'mp4', codec: 'avc1.640028' },
  { container: 'mp4', codec: 'avc1.640033' },
  { container: 'webm', codec: 'vp09.00.31.08' },
  { container: 'webm', codec: 'vp09.00.40.08' },
  { container: 'webm', codec: 'vp09.00.51.08' },
];

/** About 0.1 bit a pixel a frame: 2.8 Mbit/s at 1280x720 and 30 fps. */
function bitrateFor(width: number, height: number, fps: number): number {
  return Math.max(200_000, Math.round(width * height * fps * 0.1));
}

/** The first candidate VideoEncoder.isConfigSupported accepts at this size and rate, with its config; null for none. */
export async function chooseVideoCodec(width: number, height: number, fps: number): Promise<{ container: 'mp4' | 'webm'; config: VideoEncoderConfig } | null> {
  if (typeof VideoEncoder === 'undefined') return null;
  for (const c of CANDIDATES) {
    const config: VideoEncoderConfig = {
      codec: c.codec,
      width,
      height,
      framerate: fps,
      bitrate: bitrateFor(width, height, fps),
      latencyMode: 'quality',
      ...(c.container === 'mp4' ? { avc: { format: 'avc' as const } } : {}),
    };
    try {
      const { supported } = await VideoEncoder.isConfigSupported(config);
      if (supported) return { container: c.container, config };
    } catch {
      // A codec string this browser does not parse: the next.
    }
  }
  return null;
}

/** The next animation frame, or 250 ms where there is none (a hidden tab). */
function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 250);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function cancelled(): DOMException {
  return new DOMException('video export cancelled', 'AbortError');
}

/**
 * Renders `path` frame by frame at width x height and encodes it (see the module comment).
 * Rejects with an AbortError DOMException when `signal` aborts, or with the encoder's error.
 */
export async function exportPathVideo(viewer: Viewer, path: CameraPath, options: PathVideoOptions): Promise<PathVideo> {
  const { width, height, fps, signal } = options;
  if (!(Number.isInteger(fps) && fps >= 1 && fps <= 240)) throw new RangeError(`fps ${fps}: a whole number from 1 to 240`);
  const choice = await chooseVideoCodec(width, height, fps);
  if (!choice) throw new Error(`this browser cannot encode ${width}x${height} video (WebCodecs has no H.264 or VP9 encoder here)`);
  const { container, config } = choice;
  const frames = pathFrames(path, fps);
  const mb = await import('./video-mux');
  if (signal?.aborted) throw cancelled();
  const target = new mb.BufferTarget();
  const output = new mb.Output({ format: container === 'mp4' ? new mb.Mp4OutputFormat({ fastStart: 'in-memory' }) : new mb.WebMOutputFormat(), target });
  const source = new mb.EncodedVideoPacketSource(container === 'mp4' ? 'avc' : 'vp9');
  output.addVideoTrack(source, { frameRate: fps });
  await output.start();
  let failure: unknown = null;
  // Packets go to the muxer in the order the encoder gives them, each add after the one before.
  let muxed: Promise<void> = Promise.resolve();
  const encoder = new VideoEncoder({
    output: (chunk, meta) => {
      const packet = mb.EncodedPacket.fromEncodedChunk(chunk);
      muxed = muxed.then(() => source.add(packet, meta)).catch((e: unknown) => void (failure ??= e));
    },
    error: (e) => void (failure ??= e),
  });
  encoder.configure(config);
  const frameUs = 1e6 / fps;
  const keyEvery = Math.max(1, Math.round(2 * fps)); // a key frame every 2 s
  // One sequence: auto holds its trials until the last frame (or the export ends early).
  const images = viewer.renderSequence({ poses: frames.map((f) => f.pose), width, height });
  try {
    for (const f of frames) {
      if (signal?.aborted) throw cancelled();
      if (failure) throw failure;
      const next = await images.next();
      if (next.done) throw new Error('video export: the frames ended early');
      const image = next.value;
      const frame = new VideoFrame(image.rgba, {
        format: 'RGBA',
        codedWidth: width,
        codedHeight: height,
        timestamp: Math.round(f.index * frameUs),
        duration: Math.round((f.index + 1) * frameUs) - Math.round(f.index * frameUs),
      });
      encoder.encode(frame, { keyFrame: f.index % keyEvery === 0 });
      frame.close();
      options.onProgress?.(f.index + 1, frames.length);
      // The page stays alive: an animation frame between frames, and the encoder at most a few frames behind.
      await nextFrame();
      while (encoder.encodeQueueSize > 2 && !failure) await nextFrame();
    }
    await encoder.flush();
    await muxed;
    if (failure) throw failure;
    if (signal?.aborted) throw cancelled();
    await output.finalize();
  } catch (e) {
    if (output.state === 'started') await output.cancel().catch(() => undefined);
    throw e;
  } finally {
    await images.return(undefined);
    if (encoder.state !== 'closed') encoder.close();
  }
  const type = container === 'mp4' ? 'video/mp4' : 'video/webm';
  return {
    blob: new Blob([target.buffer!], { type }),
    container,
    codec: config.codec,
    width,
    height,
    fps,
    frames: frames.length,
    duration: frames.length / fps,
  };
}
