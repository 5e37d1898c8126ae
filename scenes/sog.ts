/**
 * Reader for PlayCanvas's SOG (version 2, as splat-transform writes it; facts
 * of the format, the code is ours). A `meta.json` describes WebP textures, one
 * pixel a splat (row-major, pixel i = splat i), lossless RGBA:
 * - means: two textures, the low and high bytes of a 16-bit value per axis
 *   (R, G, B = x, y, z) lerped between `means.mins` and `means.maxs`, then
 *   un-log-transformed: x = sign(v) (exp(|v|) - 1);
 * - scales: R, G, B index `scales.codebook` (256 log-scales);
 * - quats: "smallest three": A = 252 + the index of the largest component in
 *   (w, x, y, z), R, G, B the other three in that order, each (b / 255 * 2 - 1)
 *   / sqrt(2); the largest is sqrt(1 - the others' squares), positive;
 * - sh0: R, G, B index `sh0.codebook` (the DC coefficient f_dc), A is the
 *   opacity after the sigmoid, times 255;
 * - shN (optional, `bands` 1..3): a palette of `count` entries in
 *   shN_centroids (64 entries a row, each `coeffs` = 3, 8 or 15 pixels wide,
 *   R, G, B of pixel j indexing `shN.codebook` for coefficient j + 1 of each
 *   channel) and per-splat labels (R | G << 8) in shN_labels.
 * The frame is the PLY one of 3DGS training, as SplatCloud keeps it: nothing
 * is rotated.
 *
 * Two forms: a bundled `.sog` (a zip holding meta.json and the textures:
 * parseSog) and unbundled files (meta.json beside its .webp files:
 * loadSogFiles, which takes a way to fetch a named file, for a URL or a
 * dropped folder). Decoding is async: the WebP decoder is (scenes/webp.ts).
 */
import {
  EmptySceneError, ImageDecodeError, shownValue, MissingElementError, MissingPropertyError, ReadFailedError, SceneLoadError, SogFormatError, UnknownFormatError, UnsupportedError,
} from './errors';
import { keptShDegree, type LoadOptions } from './load-options';
import { canonicalRowIndex, decodeSplatRows } from './ply-decode';
import { SplatSink, Tally } from './sanitize';
import { shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';
import { webpDecoder, webpSize, type DecodedImage } from './webp';
import { ZipArchive } from './zip';
import { checkReference } from './references';
import { checkInflation, checkMemory } from './budget';

/** Most splats a SOG may declare: WebP's 16383 x 16383 texel limit. */
const MAX_SOG_COUNT = 16383 * 16383;
/** Splats decoded at a time (the canonical-row scratch holds this many). */
const DECODE_BATCH_ROWS = 1 << 14;
const SH_COEFFS_FOR_BANDS = [0, 3, 8, 15];

/** Fetches a file named in meta.json (relative to it); rejects when there is none. */
export type SogFileGetter = (name: string) => Promise<Uint8Array>;

/**
 * Reads a bundled .sog (a zip with meta.json and the WebP textures).
 *
 * @throws ZipFormatError / TruncatedError for a bad zip, UnknownFormatError for a
 *   zip without meta.json, and what loadSogFiles throws
 */
export async function parseSog(bytes: Uint8Array, name: string, options?: LoadOptions): Promise<SplatCloud> {
  const zip = new ZipArchive(bytes, name, options);
  const metaEntry = zip.entries.get('meta.json');
  if (metaEntry === undefined) {
    throw new UnknownFormatError(name, `a zip without a meta.json entry is not a SOG (it holds ${zip.entries.size} entries${zip.entries.size ? `: ${[...zip.entries.keys()].slice(0, 5).join(', ')}` : ''})`, { byteOffset: 0 });
  }
  const getFile = async (file: string): Promise<Uint8Array> => {
    const e = zip.entries.get(file);
    if (e === undefined) throw new MissingElementError(name, `meta.json names '${file}', which the .sog zip does not hold`, { element: file });
    return zip.read(e);
  };
  return decodeSog(zip.read(metaEntry), getFile, name, 'sog', options);
}

/**
 * Reads an unbundled SOG: meta.json's bytes, and its textures fetched by name.
 *
 * @param meta - the bytes of meta.json
 * @param getFile - fetches a file meta.json names (a SceneLoadError it throws
 *   passes through; any other failure becomes ReadFailedError)
 * @param name - for `source` and errors (e.g. the meta.json's path or URL)
 * @throws SogFormatError for bad JSON or a mistyped field, MissingPropertyError
 *   for a missing field, UnsupportedError for a SOG version other than 2,
 *   ImageDecodeError for a texture that does not decode or does not fit
 */
export async function loadSogFiles(meta: Uint8Array, getFile: SogFileGetter, name: string, options?: LoadOptions): Promise<SplatCloud> {
  return decodeSog(meta, getFile, name, 'sog', options);
}

/**
 * Whether these bytes look like a SOG meta.json (a JSON object with "means" and "quats"); for content detection of a lone meta.json.
 * The first 64 KB are searched: splat-transform writes the 256-entry scales codebook before "quats" (at byte 5289 of a small scene's).
 */
export function looksLikeSogMeta(head: Uint8Array): boolean {
  const t = new TextDecoder('latin1').decode(head.subarray(0, 1 << 16));
  return /^\s*\{/.test(t) && t.includes('"means"') && t.includes('"quats"');
}

interface SogMeta {
  count: number;
  means: { mins: number[]; maxs: number[]; files: string[] };
  scales: { codebook: Float32Array; files: string[] };
  quats: { files: string[] };
  sh0: { codebook: Float32Array; files: string[] };
  shN: { count: number; bands: number; codebook: Float32Array; files: string[] } | null;
}

/** Field readers over parsed JSON that throw typed errors naming the field's path. */
function metaReader(file: string) {
  const missing = (path: string): never => {
    throw new MissingPropertyError(file, `meta.json has no '${path}', which a SOG needs`, { element: 'meta.json', property: path });
  };
  const bad = (path: string, what: string, v: unknown): never => {
    throw new SogFormatError(file, `meta.json '${path}' must be ${what}, not ${shownValue(v)}`, { element: 'meta.json', property: path });
  };
  const get = (o: Record<string, unknown>, key: string, path: string): unknown => {
    const v = Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
    return v === undefined ? missing(path) : v;
  };
  const obj = (o: Record<string, unknown>, key: string, path = key): Record<string, unknown> => {
    const v = get(o, key, path);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : bad(path, 'an object', v);
  };
  const int = (o: Record<string, unknown>, key: string, path: string, min: number, max: number): number => {
    const v = get(o, key, path);
    return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : bad(path, `a whole number ${min}..${max}`, v);
  };
  const numbers = (o: Record<string, unknown>, key: string, path: string, n: number): number[] => {
    const v = get(o, key, path);
    if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) bad(path, `an array of ${n} finite numbers`, v);
    return v as number[];
  };
  /** A 256-entry codebook; a null entry (what JSON makes of NaN) reads as NaN and is sanitised like one. */
  const codebook = (o: Record<string, unknown>, path: string): Float32Array => {
    const v = get(o, 'codebook', `${path}.codebook`);
    if (!Array.isArray(v) || v.length !== 256 || !v.every((x) => x === null || typeof x === 'number')) bad(`${path}.codebook`, 'an array of 256 numbers', v);
    return Float32Array.from(v as (number | null)[], (x) => (x === null ? NaN : x));
  };
  const files = (o: Record<string, unknown>, path: string, n: number): string[] => {
    const v = get(o, 'files', `${path}.files`);
    if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === 'string' && x.length > 0)) bad(`${path}.files`, `an array of ${n} file names`, v);
    // Each a file inside the scene's folder (scenes/references.ts), checked before any is fetched.
    return (v as string[]).map((f, k) => checkReference(file, f, `meta.json ${path}.files[${k}]`));
  };
  return { obj, int, numbers, codebook, files, get };
}

function parseMeta(bytes: Uint8Array, file: string): SogMeta {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw new SogFormatError(file, `meta.json is not UTF-8 JSON (${e instanceof Error ? e.message : String(e)})`, { element: 'meta.json', cause: e });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new SogFormatError(file, 'meta.json is not a JSON object', { element: 'meta.json' });
  const root = json as Record<string, unknown>;
  const r = metaReader(file);
  if (root['version'] === undefined) throw new UnsupportedError(file, 'meta.json has no "version": a SOG version 1 file (per-channel ranges, no codebooks), which is not read here', { element: 'meta.json', property: 'version' });
  if (root['version'] !== 2) throw new UnsupportedError(file, `SOG version ${shownValue(root['version'])} is not read here (version 2 is)`, { element: 'meta.json', property: 'version' });
  const count = r.int(root, 'count', 'count', 0, MAX_SOG_COUNT);
  const means = r.obj(root, 'means');
  const scales = r.obj(root, 'scales');
  const quats = r.obj(root, 'quats');
  const sh0 = r.obj(root, 'sh0');
  let shN: SogMeta['shN'] = null;
  if (root['shN'] !== undefined) {
    const s = r.obj(root, 'shN');
    shN = { count: r.int(s, 'count', 'shN.count', 1, 65536), bands: r.int(s, 'bands', 'shN.bands', 1, 3), codebook: r.codebook(s, 'shN'), files: r.files(s, 'shN', 2) };
  }
  return {
    count,
    means: { mins: r.numbers(means, 'mins', 'means.mins', 3), maxs: r.numbers(means, 'maxs', 'means.maxs', 3), files: r.files(means, 'means', 2) },
    scales: { codebook: r.codebook(scales, 'scales'), files: r.files(scales, 'scales', 1) },
    quats: { files: r.files(quats, 'quats', 1) },
    sh0: { codebook: r.codebook(sh0, 'sh0'), files: r.files(sh0, 'sh0', 1) },
    shN,
  };
}

async function decodeSog(metaBytes: Uint8Array, getFile: SogFileGetter, name: string, format: string, options: LoadOptions | undefined): Promise<SplatCloud> {
  const meta = parseMeta(metaBytes, name);
  const n = meta.count;
  if (n === 0) throw new EmptySceneError(name, 'meta.json declares 0 splats: nothing to draw');
  const fileDegree = (meta.shN?.bands ?? 0) as ShDegree;
  const degree = keptShDegree(fileDegree, options);
  // The cloud and the decoded textures (RGBA, a pixel a splat: five, two more with SH) held at once.
  const textures = (5 + (meta.shN !== null && degree > 0 ? 2 : 0)) * 4 * n;
  checkMemory(name, n, degree, options, 'meta.json', textures, { element: 'meta.json', property: 'count' });
  // Decoded pixels against the compressed bytes they come from (all textures so far).
  let decodedBytes = 0;
  let compressedBytes = 0;

  /** A texture's pixels, its header checked against the pixels it must hold before it is decoded. */
  const texture = async (file: string, field: string, minPixels: number, exactWidth?: number): Promise<DecodedImage> => {
    let bytes: Uint8Array;
    try {
      bytes = await getFile(file);
    } catch (e) {
      if (e instanceof SceneLoadError) throw e;
      throw new ReadFailedError(name, `reading '${file}' (${field}) failed: ${e instanceof Error ? e.message : String(e)}`, { element: file, cause: e });
    }
    const where = `'${file}' (${field})`;
    const size = webpSize(bytes);
    if (typeof size === 'string') throw new ImageDecodeError(name, `${where} is not a WebP: ${size}`, { element: file, property: field, byteOffset: 0 });
    const pixels = size.width * size.height;
    if (pixels < minPixels) throw new ImageDecodeError(name, `${where} is ${size.width}x${size.height}, fewer pixels than the ${minPixels} it must hold`, { element: file, property: field, byteOffset: 12 });
    // Far more pixels than needed: a lying header, refused before the decoder allocates for it.
    if (pixels > minPixels * 2 + 65536) throw new ImageDecodeError(name, `${where} declares ${size.width}x${size.height} pixels for ${minPixels} values`, { element: file, property: field, byteOffset: 12 });
    if (exactWidth !== undefined && size.width !== exactWidth) throw new ImageDecodeError(name, `${where} is ${size.width} pixels wide; ${exactWidth} expected`, { element: file, property: field, byteOffset: 12 });
    decodedBytes += pixels * 4;
    compressedBytes += bytes.length;
    checkInflation(name, `the SOG textures up to ${where}`, decodedBytes, compressedBytes, { element: file, property: field });
    let img: DecodedImage;
    try {
      img = await webpDecoder().decode(bytes);
    } catch (e) {
      throw new ImageDecodeError(name, `${where} does not decode as WebP (${e instanceof Error ? e.message : String(e)})`, { element: file, property: field, cause: e });
    }
    if (img.width !== size.width || img.height !== size.height || img.rgba.length !== pixels * 4) {
      throw new ImageDecodeError(name, `${where} decodes to ${img.width}x${img.height} (${img.rgba.length} bytes), its header says ${size.width}x${size.height}`, { element: file, property: field });
    }
    return img;
  };

  const lo = (await texture(meta.means.files[0]!, 'means.files[0]', n)).rgba;
  const hi = (await texture(meta.means.files[1]!, 'means.files[1]', n)).rgba;
  const sc = (await texture(meta.scales.files[0]!, 'scales.files[0]', n)).rgba;
  const qt = (await texture(meta.quats.files[0]!, 'quats.files[0]', n)).rgba;
  const c0 = (await texture(meta.sh0.files[0]!, 'sh0.files[0]', n)).rgba;
  let centroids: DecodedImage | null = null;
  let labels: Uint8Array | null = null;
  const coeffs = SH_COEFFS_FOR_BANDS[fileDegree]!;
  if (meta.shN !== null && degree > 0) {
    centroids = await texture(meta.shN.files[0]!, 'shN.files[0]', Math.ceil(meta.shN.count / 64) * 64 * coeffs, 64 * coeffs);
    labels = (await texture(meta.shN.files[1]!, 'shN.files[1]', n)).rgba;
  }

  const { mins, maxs } = meta.means;
  const sCode = meta.scales.codebook, cCode = meta.sh0.codebook;
  const K = shCoeffCount(degree);
  const { index, stride } = canonicalRowIndex(degree);
  const batch = Math.min(n, DECODE_BATCH_ROWS);
  const rows = new Float32Array(batch * stride);
  const sink = new SplatSink(degree, n, name, options);
  const tally = new Tally();
  const q = [0, 0, 0, 0];
  for (let first = 0; first < n; first += batch) {
    const end = Math.min(n, first + batch);
    for (let i = first; i < end; i++) {
      const r = (i - first) * stride;
      const p = i * 4;
      for (let a = 0; a < 3; a++) {
        const v = mins[a]! + (maxs[a]! - mins[a]!) * ((lo[p + a]! | (hi[p + a]! << 8)) / 65535);
        const e = Math.exp(Math.abs(v)) - 1;
        rows[r + a] = v < 0 ? -e : e;
        rows[r + 3 + a] = sCode[sc[p + a]!]!;
      }
      const tag = qt[p + 3]!;
      if (tag >= 252) {
        const largest = tag - 252;
        let sum = 0;
        for (let k = 0, slot = 0; k < 4; k++) {
          if (k === largest) continue;
          const c = ((qt[p + slot]! / 255) * 2 - 1) / Math.SQRT2;
          slot++;
          q[k] = c;
          sum += c * c;
        }
        q[largest] = Math.sqrt(Math.max(0, 1 - sum));
      } else {
        // Not a quaternion tag: the kernel counts a zero quaternion as degenerate (identity).
        q[0] = q[1] = q[2] = q[3] = 0;
      }
      rows[r + 6] = q[0]!;
      rows[r + 7] = q[1]!;
      rows[r + 8] = q[2]!;
      rows[r + 9] = q[3]!;
      const alpha = c0[p + 3]! / 255;
      rows[r + 10] = Math.log(alpha / (1 - alpha));
      for (let c = 0; c < 3; c++) rows[r + 11 + c] = cCode[c0[p + c]!]!;
      if (K > 1) {
        const label = labels![p]! | (labels![p + 1]! << 8);
        if (label >= meta.shN!.count) {
          throw new SogFormatError(name, `splat ${i} has SH palette label ${label} (pixel ${i} of '${meta.shN!.files[1]}'), past shN.count ${meta.shN!.count}`, { element: meta.shN!.files[1], property: 'shN.count' });
        }
        const cw = centroids!.width;
        const base = (Math.floor(label / 64) * cw + (label % 64) * coeffs) * 4;
        const shCode = meta.shN!.codebook;
        for (let j = 0; j + 1 < K; j++) {
          for (let c = 0; c < 3; c++) rows[r + 11 + (j + 1) * 3 + c] = shCode[centroids!.rgba[base + j * 4 + c]!]!;
        }
      }
    }
    decodeSplatRows(rows, 0, stride, end - first, index, sink, tally);
  }
  return sink.finish(format, tally, n);
}
