import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as Comlink from 'comlink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedScene, generateSynthetic } from '../scenes/generate';
import { loadSceneSync } from '../scenes/load';
import type { SplatCloud } from '../scenes/splat-cloud';
import { writeSplatPly } from '../scenes/write-ply';
import { sanitizedLine } from './hud';
import { formatBytes, preparingText, progressFraction, progressText } from './load-progress';
import { sceneLoadApi, type SceneLoadApi } from '../renderer/api/scene-load-job';
import { announcedSize, cloudTransferables, ProgressGate, sceneNameOfUrl, type LoadProgress, type LoadSource } from '../renderer/api/scene-load-protocol';
import { packScene, type PackedScene } from '../renderer/gpu-scene/compact-pack';

describe('scene-load protocol', () => {
  it('transfers each buffer of a cloud once, and no empty one', () => {
    const cloud = generateSynthetic(10);
    const buffers = cloudTransferables(cloud);
    expect(buffers).toHaveLength(5);
    expect(new Set(buffers).size).toBe(5);
    const shared = new Float32Array(10 * 14);
    const packed: SplatCloud = {
      ...cloud, shDegree: 0,
      positions: shared.subarray(0, 30), scales: shared.subarray(30, 60), rotations: shared.subarray(60, 100),
      opacities: shared.subarray(100, 110), sh: shared.subarray(110, 140),
    };
    expect(cloudTransferables(packed)).toEqual([shared.buffer]);
    expect(cloudTransferables({ ...cloud, sh: new Float32Array(0) })).toHaveLength(4);
  });

  it('sends the first report, then one per interval, and always the one that completes the size', () => {
    const gate = new ProgressGate(50);
    const p = (bytes: number): LoadProgress => ({ bytes, totalBytes: 100, splats: 0 });
    expect(gate.due(0, p(1))).toBe(true);
    expect(gate.due(10, p(2))).toBe(false);
    expect(gate.due(49, p(3))).toBe(false);
    expect(gate.due(50, p(4))).toBe(true);
    expect(gate.due(51, p(100))).toBe(true);
    const open = new ProgressGate(50);
    expect(open.due(0, { bytes: 5, splats: 0 })).toBe(true);
    expect(open.due(1, { bytes: 6, splats: 0 })).toBe(false);
  });

  it('names a URL scene by its decoded last segment', () => {
    expect(sceneNameOfUrl('https://x.org/scenes/my%20room.ply?v=2#cam')).toBe('my room.ply');
    expect(sceneNameOfUrl('/e2e-scenes/a.ply')).toBe('a.ply');
    expect(sceneNameOfUrl('bad%E0.ply')).toBe('bad%E0.ply');
  });

  it('believes a Content-Length only for an unencoded body', () => {
    expect(announcedSize('1234', null)).toBe(1234);
    expect(announcedSize('1234', 'identity')).toBe(1234);
    expect(announcedSize('1234', 'gzip')).toBeUndefined();
    expect(announcedSize(null, null)).toBeUndefined();
    expect(announcedSize('0', null)).toBeUndefined();
    expect(announcedSize('12abc', null)).toBeUndefined();
    expect(announcedSize('-5', null)).toBeUndefined();
  });
});

describe('loading bar text', () => {
  it('shows bytes in the unit of the total, and splats once known', () => {
    expect(formatBytes(400_000, 5_000_000)).toBe('0.4 / 5.0 MB');
    expect(formatBytes(12_400_000, 248_000_000)).toBe('12 / 248 MB');
    expect(formatBytes(1_200_000_000, 1_490_000_000)).toBe('1.20 / 1.49 GB');
    expect(formatBytes(3_400_000)).toBe('3.4 MB');
    expect(progressText('biker.ply', { bytes: 12_000_000, totalBytes: 248_000_000, splats: 48_000 })).toBe('Loading biker.ply: 12 / 248 MB · 48,000 splats');
    expect(progressText('a.spz', { bytes: 0, splats: 0 })).toBe('Loading a.spz: 0.0 MB');
    expect(preparingText('biker.ply', 1_000_000)).toBe('Preparing biker.ply for the GPU: 1,000,000 splats');
    expect(preparingText('big.ply', 6_000_000, 1_503_232)).toBe('Preparing big.ply for the GPU: 6,000,000 splats · 25% uploaded');
    expect(preparingText('big.ply', 6_000_000, 6_000_000)).toBe('Preparing big.ply for the GPU: 6,000,000 splats · 100% uploaded');
    expect(preparingText('empty.ply', 0, 0)).toBe('Preparing empty.ply for the GPU: 0 splats · 0% uploaded');
  });

  it('gives the bar a fraction in [0, 1], or none without a total', () => {
    expect(progressFraction({ bytes: 50, totalBytes: 200, splats: 0 })).toBe(0.25);
    expect(progressFraction({ bytes: 300, totalBytes: 200, splats: 0 })).toBe(1);
    expect(progressFraction({ bytes: 50, splats: 0 })).toBeNull();
  });
});

describe('sanitizedLine', () => {
  it('says how many splats were dropped or clamped, and why', () => {
    expect(sanitizedLine(undefined)).toBeNull();
    expect(sanitizedLine({ dropped: 0, clamped: 0, reasons: {} })).toBeNull();
    expect(sanitizedLine({ dropped: 3, clamped: 0, reasons: { 'non-finite position': 2, 'non-finite scale': 1 } })).toBe('3 splats dropped: non-finite values');
    expect(sanitizedLine({ dropped: 1, clamped: 0, reasons: { 'position out of range': 1 } })).toBe('1 splat dropped: positions out of range');
    expect(sanitizedLine({ dropped: 0, clamped: 1200, reasons: { 'scale overflow': 1200 } })).toBe('1,200 splats clamped: scale overflow');
    expect(sanitizedLine({ dropped: 2, clamped: 1, reasons: { 'non-finite position': 2, 'sh out of range': 1 } })).toBe('2 splats dropped: non-finite values · 1 clamped: sh out of range');
    // Dropped by the scene's robust extent (scenes/robust.ts), alone and beside a non-finite one; not a clamp.
    expect(sanitizedLine({ dropped: 4, clamped: 0, reasons: { 'scale implausible': 4 } })).toBe('4 splats dropped: implausibly large for the scene');
    expect(sanitizedLine({ dropped: 5, clamped: 2, reasons: { 'scale implausible': 4, 'non-finite scale': 1, 'colour outlier': 2 } })).toBe(
      '5 splats dropped: non-finite values, implausibly large for the scene · 2 clamped: colour outlier',
    );
  });
});

/** The worker's job on one end of a real MessageChannel, comlink on the other: what the page sees. */
function connect(): { api: Comlink.Remote<SceneLoadApi>; close: () => void } {
  const { port1, port2 } = new MessageChannel();
  Comlink.expose(sceneLoadApi(), port1 as unknown as Comlink.Endpoint);
  const api = Comlink.wrap<SceneLoadApi>(port2 as unknown as Comlink.Endpoint);
  return { api, close: () => (port1.close(), port2.close()) };
}

async function loadThrough(api: Comlink.Remote<SceneLoadApi>, source: LoadSource): Promise<{ cloud: SplatCloud; packed: PackedScene | null; reports: LoadProgress[] }> {
  const reports: LoadProgress[] = [];
  const progress = new MessageChannel();
  progress.port1.onmessage = (e: MessageEvent<LoadProgress>) => reports.push(e.data);
  try {
    const { cloud, packed } = await api.load(source, Comlink.transfer(progress.port2, [progress.port2]));
    await new Promise((r) => setTimeout(r, 20)); // the last report's message
    return { cloud, packed, reports };
  } finally {
    progress.port1.close();
  }
}

describe('scene-load job over a MessageChannel', () => {
  // writeSplatPly builds on an ArrayBuffer of its own.
  const ply = writeSplatPly(generateSynthetic(3000, 7)) as Uint8Array<ArrayBuffer>;
  let server: http.Server;
  let base = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/scene.ply') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(ply.length) });
        res.end(Buffer.from(ply.buffer, ply.byteOffset, ply.length));
      } else {
        res.writeHead(404, 'Not Found');
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('with `pack`: the worker packs compact; the page gets the packed scene and the cloud without its float SH', async () => {
    const { api, close } = connect();
    try {
      const { cloud, packed } = await loadThrough(api, { kind: 'blob', name: 'gen.ply', blob: new Blob([ply]), pack: true });
      const expected = loadSceneSync(ply, 'gen.ply');
      const want = packScene(expected);
      expect(packed).not.toBeNull();
      expect(packed!.centers).toEqual(want.centers);
      expect(packed!.covs).toEqual(want.covs);
      expect(packed!.sh).toEqual(want.sh);
      expect(packed!.shStride).toBe(12); // 72 B a SH3 splat with centres and covariances
      expect(packed!.decode).toEqual(want.decode);
      expect(packed!.report).toEqual(want.report);
      // Everything but the SH, as loaded: the CPU sort, picking, framing and the depth estimate read these.
      expect(cloud.sh.length).toBe(0);
      expect([cloud.count, cloud.shDegree]).toEqual([3000, 3]);
      expect(cloud.positions).toEqual(expected.positions);
      expect(cloud.rotations).toEqual(expected.rotations);
      expect(cloud.scales).toEqual(expected.scales);
      expect(cloud.opacities).toEqual(expected.opacities);
      // Without it, the float cloud whole and nothing packed.
      const plain = await loadThrough(api, { kind: 'blob', name: 'gen.ply', blob: new Blob([ply]) });
      expect(plain.packed).toBeNull();
      expect(plain.cloud.sh).toEqual(expected.sh);
    } finally {
      close();
    }
  });

  it('a generated scene is made in the worker: packed there with `pack` (the page never holds its float SH), whole without; SH degree capped as asked', async () => {
    const { api, close } = connect();
    try {
      const expected = generatedScene('default:2000');
      expect(expected.source.name).toBe('default:2000');
      const { cloud, packed } = await loadThrough(api, { kind: 'generated', name: 'default:2000', spec: 'default:2000', pack: true });
      const want = packScene(expected);
      expect(packed!.centers).toEqual(want.centers);
      expect(packed!.covs).toEqual(want.covs);
      expect(packed!.sh).toEqual(want.sh);
      expect(packed!.decode).toEqual(want.decode);
      expect(cloud.sh.length).toBe(0);
      expect([cloud.count, cloud.shDegree, cloud.source.name]).toEqual([2000, expected.shDegree, 'default:2000']);
      expect(cloud.positions).toEqual(expected.positions);
      const plain = await loadThrough(api, { kind: 'generated', name: 'synthetic:500', spec: 'synthetic:500', options: { maxShDegree: 1 } });
      expect(plain.packed).toBeNull();
      expect([plain.cloud.count, plain.cloud.shDegree]).toEqual([500, 1]);
      expect(plain.cloud.sh.length).toBe(500 * 4 * 3); // degree 1: 4 coefficients a channel
    } finally {
      close();
    }
  });

  it('streams a Blob into the same cloud loadScene gives, with progress in bytes and splats', async () => {
    const { api, close } = connect();
    try {
      const { cloud, reports } = await loadThrough(api, { kind: 'blob', name: 'gen.ply', blob: new Blob([ply]) });
      const expected = loadSceneSync(ply, 'gen.ply');
      expect(cloud.count).toBe(3000);
      expect(cloud.shDegree).toBe(3);
      expect(cloud.positions).toEqual(expected.positions);
      expect(cloud.sh).toEqual(expected.sh);
      expect(cloud.sanitized).toEqual(expected.sanitized);
      expect(reports.length).toBeGreaterThanOrEqual(2);
      expect(reports.at(-1)).toEqual({ bytes: ply.length, totalBytes: ply.length, splats: 3000, declared: { splats: 3000, shDegree: 3 } });
      for (let i = 1; i < reports.length; i++) expect(reports[i]!.bytes).toBeGreaterThanOrEqual(reports[i - 1]!.bytes);
    } finally {
      close();
    }
  });

  it('keeps only the SH bands the options ask for (the load SH degree)', async () => {
    const { api, close } = connect();
    try {
      const { cloud } = await loadThrough(api, { kind: 'blob', name: 'gen.ply', blob: new Blob([ply]), options: { maxShDegree: 1 } });
      const expected = loadSceneSync(ply, 'gen.ply', { maxShDegree: 1 });
      expect(cloud.shDegree).toBe(1);
      expect(cloud.sh.length).toBe(3000 * 4 * 3);
      expect(cloud.sh).toEqual(expected.sh);
    } finally {
      close();
    }
  });

  it('fetches a URL, and a failed one is a typed one-line error', async () => {
    const { api, close } = connect();
    try {
      const { cloud, reports } = await loadThrough(api, { kind: 'url', name: 'scene.ply', url: `${base}/scene.ply` });
      expect(cloud.count).toBe(3000);
      expect(reports.at(-1)).toEqual({ bytes: ply.length, totalBytes: ply.length, splats: 3000, declared: { splats: 3000, shDegree: 3 } });
      const err = await api.load({ kind: 'url', name: 'gone.ply', url: `${base}/gone.ply` }, Comlink.proxy({ postMessage: () => undefined })).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).name).toBe('ReadFailedError');
      expect((err as Error).message).toBe(`gone.ply: read-failed: HTTP 404 Not Found for ${base}/gone.ply`);
    } finally {
      close();
    }
  });

  it('a broken or truncated file rejects with its typed error, named and one line', async () => {
    const { api, close } = connect();
    try {
      const broken = await api.load({ kind: 'blob', name: 'broken.ply', blob: new Blob(['this is not a ply file']) }, Comlink.proxy({ postMessage: () => undefined })).catch((e: Error) => e);
      expect((broken as Error).name).toBe('UnknownFormatError');
      expect((broken as Error).message).toMatch(/^broken\.ply: /);
      const cut = await api.load({ kind: 'blob', name: 'cut.ply', blob: new Blob([ply.subarray(0, ply.length - 1000)]) }, Comlink.proxy({ postMessage: () => undefined })).catch((e: Error) => e);
      expect((cut as Error).name).toBe('TruncatedError');
      expect((cut as Error).message).toMatch(/^cut\.ply: truncated: .*byte \d+/);
      expect((cut as Error).message).not.toMatch(/\n/);
    } finally {
      close();
    }
  });
});
