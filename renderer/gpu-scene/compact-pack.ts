/**
 * The compact resident format (ScenePrecision 'compact', the default): 72 B a splat
 * at SH3 instead of 144, decoded by shaders/gpu-scene/scene_compact.wgsl. Per splat:
 *
 *   centers[i]  vec4u  x, y, z as f32 bits (exact: the depth sort and the projection
 *                      see the file's positions), and the DC colour term f_dc as
 *                      11-11-10 bits (r, g, b) over the scene's range per channel
 *   covs[i]     vec2u  rotation, "smallest three": bits 0-1 the index of the largest
 *                      |component| of the unit quaternion (made positive), then the
 *                      other three in w, x, y, z order, 10 bits each over [-1/sqrt 2, 1/sqrt 2]
 *                      (codes 0..1022: 511 is exactly 0, so axis-aligned splats stay so);
 *                      log-scales x, y, z as 11-11-10 bits over the scene's range
 *                      (at most LOG_SCALE_SPAN wide: e^-32 of the largest splat is a point)
 *   SH words    a byte stream, 4 bytes a word (little end first): byte 0 the opacity
 *                      (unorm8), then the SH bands past the DC term, coefficient-major
 *                      (coefficient k >= 1, channel c at byte 1 + 3 (k - 1) + c), each
 *                      v = R t |t| with t = (q - 128) / 127, q in 1..255: a square-law
 *                      8-bit code over the scene's max |v| R of that coefficient and
 *                      channel. Zero is exact; most higher-band values are small, and the
 *                      square law spends the codes there (steps ~sqrt(R |v|) / 64).
 *
 * Why this split: the positions stay f32 (12 B) because the sort and the EWA
 * Jacobian are sensitive to them and a chunked quantisation needs another binding;
 * the covariance goes as rotation + log-scales (8 B) rather than 6 halves (12 B),
 * which also keeps thin splats thin (halves of the covariance's entries lose the
 * small eigenvalue of a splat 100:1 elongated). The DC colour gets 11 bits because it
 * is most of every pixel (8 bits over a real scene's f_dc range of ~12 is a step of
 * ~3 levels of 255); the opacity 8 bits (absolute steps of 1/255). At SH3: 16 + 8 +
 * 48 (1 + 45 bytes, two spare) = 72 B.
 *
 * The per-scene ranges (CompactRanges, one pass over the cloud) reach the shaders in
 * the Frame block (splat_common.wgsl dcMin ... shRange). They are robust: the min and
 * max of the values, but never past the scene's robust fences (scenes/robust.ts:
 * quartiles of an evenly spaced sample), so that a few outliers (a DC colour of 1e30
 * in every tenth splat) cannot stretch a range and cost every other splat its
 * precision; the loaders contain such outliers already (scenes/sanitize.ts, counted in
 * SanitizeReport), so a loaded cloud packs under exactly its own min and max. Packing
 * never writes NaN or Inf: a value that is not finite or falls outside the ranges is
 * replaced or clamped and counted (PackTally).
 */
import { shCoeffCount, type SanitizeReport, type SplatCloud } from '../../scenes/splat-cloud';
import { sceneLayout } from './scene-precision';
import { ColourSample } from '../../scenes/robust';

/** Widest log-scale range kept (natural log units): smaller scales are clamped up to max - 32. */
export const LOG_SCALE_SPAN = 32;
/** Higher-band SH coefficients a splat at SH3 (the length of CompactDecode.shRange, padded to 48). */
export const SH_REST_MAX = 45;

const SQRT1_2 = Math.SQRT1_2;

/** The decode constants of one scene (Frame's dcMin, dcStep, lsRange, shRange). */
export interface CompactDecode {
  /** f_dc of code 0, per channel. */
  dcMin: [number, number, number];
  /** f_dc per code step: r and g over 2047 steps, b over 1023. */
  dcStep: [number, number, number];
  /** (log-scale of code 0, step of the 11-bit x and y, step of the 10-bit z). */
  lsRange: [number, number, number];
  /** R per higher-band coefficient and channel (index 3 (k - 1) + c), 48 long (zeros past the scene's). */
  shRange: Float32Array;
}

/** Accumulates a scene's ranges over its finite values (in slices, for a paced upload). */
export class CompactRanges {
  private readonly dcLo = [Infinity, Infinity, Infinity];
  private readonly dcHi = [-Infinity, -Infinity, -Infinity];
  private lsLo = Infinity;
  private lsHi = -Infinity;
  private readonly shMax = new Float64Array(48);
  /** The robust sample of the colours (every stride-th splat of the cloud), for the fences. */
  private sample: ColourSample | null = null;

  add(cloud: SplatCloud, first = 0, end = cloud.count): void {
    const K3 = shCoeffCount(cloud.shDegree) * 3;
    const { sh, scales } = cloud;
    const sample = (this.sample ??= new ColourSample(cloud.count, K3));
    for (let i = first; i < end; i++) {
      sample.add(i, sh, i * K3);
      for (let c = 0; c < 3; c++) {
        const v = sh[i * K3 + c]!;
        if (!Number.isFinite(v)) continue;
        if (v < this.dcLo[c]!) this.dcLo[c] = v;
        if (v > this.dcHi[c]!) this.dcHi[c] = v;
      }
      for (let j = 3; j < K3; j++) {
        const v = Math.abs(sh[i * K3 + j]!);
        if (v > this.shMax[j - 3]! && v !== Infinity) this.shMax[j - 3] = v;
      }
      for (let a = 0; a < 3; a++) {
        const s = scales[3 * i + a]!;
        if (s > 0 && s < Infinity) {
          const l = Math.log(s);
          if (l < this.lsLo) this.lsLo = l;
          if (l > this.lsHi) this.lsHi = l;
        }
      }
    }
  }

  finish(): CompactDecode {
    const dcMin: [number, number, number] = [0, 0, 0];
    const dcStep: [number, number, number] = [0, 0, 0];
    // The robust fences: no range reaches past them (a value beyond is clamped and counted when packed).
    const fences = this.sample?.fences();
    for (let c = 0; c < 3; c++) {
      if (!(this.dcHi[c]! >= this.dcLo[c]!)) continue; // no finite value
      const [fLo, fHi] = fences?.dc[c] ?? [-Infinity, Infinity];
      const lo = Math.max(this.dcLo[c]!, fLo), hi = Math.min(this.dcHi[c]!, fHi);
      if (!(hi >= lo)) continue;
      dcMin[c] = lo;
      dcStep[c] = (hi - lo) / (c < 2 ? 2047 : 1023);
    }

    let lo = 0, span = 0;
    if (this.lsHi >= this.lsLo) {
      lo = Math.max(this.lsLo, this.lsHi - LOG_SCALE_SPAN);
      span = this.lsHi - lo;
    }
    const shRange = Float32Array.from(this.shMax, (v, h) => Math.min(v, fences?.rest[h] ?? Infinity));
    return { dcMin, dcStep, lsRange: [lo, span / 2047, span / 1023], shRange };
  }
}

/** Whether two sets of ranges are the same (e.g. a chunk packed by a worker under its pool's). */
export function sameDecode(a: CompactDecode, b: CompactDecode): boolean {
  const eq = (x: ArrayLike<number>, y: ArrayLike<number>) => x.length === y.length && Array.prototype.every.call(x, (v: number, i: number) => v === y[i]);
  return eq(a.dcMin, b.dcMin) && eq(a.dcStep, b.dcStep) && eq(a.lsRange, b.lsRange) && eq(a.shRange, b.shRange);
}

/** The ranges of a whole cloud. */
export function compactDecodeOf(cloud: SplatCloud): CompactDecode {
  const r = new CompactRanges();
  r.add(cloud);
  return r.finish();
}

/**
 * One set of ranges for a scene that arrives in pieces (a streamed LOD scene's chunk
 * files: every piece is copied into one drawn GpuScene, which has one set), fixed at
 * the first piece and widened for the ones after it, finer levels and other places,
 * which reach past it (a coarse level merges splats: larger scales, averaged colours
 * and SH). Each side of the colour's range by half its span (at least 0.5), the
 * log-scales 4 below (splats e^4 = 55x smaller) and 1 above, every SH range to 1.5x
 * (and to at least a quarter of the largest, so that a coefficient that was 0 in the
 * first piece is not forced to 0 everywhere). What still falls outside is clamped and
 * counted (PackTally: 'colour outside range', 'scale under range', 'scale over
 * range', 'sh outside range'). The steps grow by the widening: the colour's to ~0.4
 * of a 255th of a real scene's f_dc span, the log-scales' to ~0.01 (1% of a scale).
 */
export function streamedDecode(first: SplatCloud): CompactDecode {
  const d = compactDecodeOf(first);
  const dcMin: [number, number, number] = [0, 0, 0];
  const dcStep: [number, number, number] = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    const steps = c < 2 ? 2047 : 1023;
    const lo = d.dcMin[c]!, span = d.dcStep[c]! * steps;
    const pad = 0.5 * Math.max(span, 1);
    dcMin[c] = lo - pad;
    dcStep[c] = (span + 2 * pad) / steps;
  }
  const lsLo = d.lsRange[0], lsSpan = d.lsRange[1] * 2047;
  const hi = lsLo + lsSpan + 1;
  const lo = Math.max(lsLo - 4, hi - LOG_SCALE_SPAN);
  let most = 0;
  for (const v of d.shRange) most = Math.max(most, v);
  const rest = shCoeffCount(first.shDegree) * 3 - 3;
  const shRange = Float32Array.from(d.shRange, (v, k) => (k < rest ? 1.5 * Math.max(v, 0.25 * most) : 0));
  return { dcMin, dcStep, lsRange: [lo, (hi - lo) / 2047, (hi - lo) / 1023], shRange };
}

/** What packing replaced or clamped (a splat counts once however many of its values). */
export class PackTally {
  dropped = 0;
  clamped = 0;
  readonly reasons: Record<string, number> = {};
  note(reason: string): void {
    this.reasons[reason] = (this.reasons[reason] ?? 0) + 1;
  }
  report(): SanitizeReport {
    return { dropped: this.dropped, clamped: this.clamped, reasons: { ...this.reasons } };
  }
  /** Adds what another packing (e.g. a worker's, PackedScene.report) replaced or clamped. */
  merge(r: SanitizeReport): void {
    this.dropped += r.dropped;
    this.clamped += r.clamped;
    for (const [k, v] of Object.entries(r.reasons)) this.reasons[k] = (this.reasons[k] ?? 0) + v;
  }
}

/** `v` clamped to [0, 1] as a code of `bits` bits (NaN -> 0). */
function unorm(v: number, bits: number): number {
  const max = (1 << bits) - 1;
  const q = Math.round(v * max);
  return q > 0 ? Math.min(q, max) : 0;
}

/** Code of `v` on the grid lo + k step of `bits` bits (step 0: code 0). */
function onGrid(v: number, lo: number, step: number, bits: number): number {
  return step > 0 ? unorm((v - lo) / (step * ((1 << bits) - 1)), bits) : 0;
}

/** The square-law 8-bit code of an SH value under range R (see the module comment). */
export function shCode(v: number, range: number): number {
  if (!(range > 0)) return 128;
  const t = Math.sqrt(Math.min(Math.abs(v) / range, 1));
  const q = Math.round(t * 127);
  return v < 0 ? 128 - q : 128 + q;
}

/** The value of an SH code under range R (the decode of scene_compact.wgsl). */
export function shValue(code: number, range: number): number {
  const t = (code - 128) / 127;
  return range * t * Math.abs(t);
}

/**
 * The smallest-three code of a quaternion (w, x, y, z), any length: 2 + 3 x 10 bits.
 * Returns -1 for one that cannot be normalised (zero, NaN, Inf): the caller writes the identity.
 */
export function encodeRotation(w: number, x: number, y: number, z: number): number {
  const len = Math.sqrt(w * w + x * x + y * y + z * z);
  if (!(len > 0 && len < Infinity)) return -1;
  // The largest |component| (the first of equals), then the other three in order
  // (no array a call: this runs once a splat of every packed scene).
  const aw = Math.abs(w), ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
  let m = 0, big = aw;
  if (ax > big) (m = 1), (big = ax);
  if (ay > big) (m = 2), (big = ay);
  if (az > big) m = 3;
  const lead = m === 0 ? w : m === 1 ? x : m === 2 ? y : z;
  const k = (lead < 0 ? -1 : 1) / len;
  const code = (c: number) => Math.min(1022, unorm(((k * c * Math.SQRT2 + 1) / 2) * (1022 / 1023), 10));
  const [a, b, c] = m === 0 ? [x, y, z] : m === 1 ? [w, y, z] : m === 2 ? [w, x, z] : [w, x, y];
  return (m | (code(a) << 2) | (code(b) << 12) | (code(c) << 22)) >>> 0;
}

/** The unit quaternion (w, x, y, z) of a rotation code (the decode of scene_compact.wgsl). */
export function decodeRotation(word: number): [number, number, number, number] {
  const m = word & 3;
  const q = [0, 0, 0, 0];
  let shift = 2, sum = 0;
  for (let j = 0; j < 4; j++) {
    if (j === m) continue;
    const v = (((word >>> shift) & 1023) / 1022 * 2 - 1) * SQRT1_2;
    q[j] = v;
    sum += v * v;
    shift += 10;
  }
  q[m] = Math.sqrt(Math.max(0, 1 - sum));
  return q as [number, number, number, number];
}

/** Identity: index 0 (w = 1), the other three at code 511 (exactly 0). */
const IDENTITY = encodeRotation(1, 0, 0, 0);

/** Arrays packCompact may write into (reused across slices). */
export interface CompactScratch {
  centers: Uint32Array;
  covs: Uint32Array;
  sh: Uint32Array;
}

/**
 * Packs splats `first` .. `end` - 1 of `cloud` under `d` into `shStride` SH words a
 * splat (scene-precision.ts sceneLayout); the arrays hold those splats from index 0.
 */
export function packCompact(
  cloud: SplatCloud,
  d: CompactDecode,
  shStride: number,
  first = 0,
  end = cloud.count,
  scratch?: CompactScratch,
  tally: PackTally = new PackTally(),
): CompactScratch {
  const n = end - first;
  const view = (a: Uint32Array | undefined, len: number): Uint32Array => (a && a.length >= len ? a.subarray(0, len).fill(0) : new Uint32Array(len));
  const centers = view(scratch?.centers, n * 4);
  const covs = view(scratch?.covs, n * 2);
  const sh = view(scratch?.sh, n * shStride);
  const f32 = new Float32Array(centers.buffer, centers.byteOffset, centers.length);
  const { positions: p, scales: s, rotations: q, opacities: o, sh: shs } = cloud;
  const K3 = shCoeffCount(cloud.shDegree) * 3;
  const [lsLo, lsStep] = d.lsRange;
  const lsHi = lsLo + lsStep * 2047;
  // 1 / R per higher-band coefficient (0 where R is 0: every value codes 128), for the hot loop below.
  const inv = new Float64Array(Math.max(0, K3 - 3));
  for (let h = 0; h < inv.length; h++) inv[h] = d.shRange[h]! > 0 ? 1 / d.shRange[h]! : 0;
  for (let j = 0; j < n; j++) {
    const i = first + j;
    let dropped = false, clamped = false;
    // Position (f32 as is) and DC colour.
    const x = p[3 * i]!, y = p[3 * i + 1]!, z = p[3 * i + 2]!;
    if (Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)) {
      f32[4 * j] = x;
      f32[4 * j + 1] = y;
      f32[4 * j + 2] = z;
    } else {
      dropped = true; // at the origin with opacity 0: drawn nowhere
      tally.note('non-finite position');
    }
    let dcBad = false, dcOut = false;
    const dc = [0, 0, 0];
    for (let c = 0; c < 3; c++) {
      const v = cloud.sh[i * K3 + c]!;
      if (Number.isFinite(v)) {
        const steps = c < 2 ? 2047 : 1023;
        const t = d.dcStep[c]! > 0 ? (v - d.dcMin[c]!) / (d.dcStep[c]! * steps) : v === d.dcMin[c]! ? 0 : NaN;
        if (!(t >= -1e-6 && t <= 1 + 1e-6)) dcOut = true;
        dc[c] = onGrid(v, d.dcMin[c]!, d.dcStep[c]!, c < 2 ? 11 : 10);
      } else dcBad = true;
    }
    if (dcOut) {
      clamped = true;
      tally.note('colour outside range');
    }
    centers[4 * j + 3] = (dc[0]! | (dc[1]! << 11) | (dc[2]! << 22)) >>> 0;
    // Rotation and log-scales.
    let rot = encodeRotation(q[4 * i]!, q[4 * i + 1]!, q[4 * i + 2]!, q[4 * i + 3]!);
    if (rot < 0) {
      rot = IDENTITY;
      clamped = true;
      tally.note('degenerate rotation');
    }
    const ls = [0, 0, 0];
    let scaleOut = false, scaleOver = false, scaleBad = false;
    for (let a = 0; a < 3; a++) {
      const v = s[3 * i + a]!;
      if (v !== v || v < 0 || v === Infinity) scaleBad = true; // NaN or negative: the smallest; +Inf: the largest
      const l = v > 0 ? Math.log(v) : -Infinity;
      if (l < lsLo - 1e-9 && !scaleBad) scaleOut = true;
      if (l > lsHi + 1e-9 && !scaleBad) scaleOver = true;
      const kept = Math.min(Math.max(l, lsLo), lsHi);
      ls[a] = a < 2 ? onGrid(kept, lsLo, lsStep, 11) : onGrid(kept, lsLo, d.lsRange[2], 10);
    }
    if (scaleBad) tally.note('non-finite scale');
    if (scaleOut) tally.note('scale under range');
    if (scaleOver) tally.note('scale over range');
    clamped ||= scaleBad || scaleOut || scaleOver;
    covs[2 * j] = rot;
    covs[2 * j + 1] = (ls[0]! | (ls[1]! << 11) | (ls[2]! << 22)) >>> 0;
    // The byte stream: opacity, then the higher bands.
    const op = o[i]!;
    if (op !== op) {
      clamped = true;
      tally.note('non-finite opacity');
    }
    const to = j * shStride;
    let shBad = dcBad, shOut = false;
    const base = i * K3;
    // The byte stream built a word at a time: byte 0 the opacity, byte 1 + (h - 3) coefficient h.
    let word = dropped ? 0 : unorm(op, 8);
    let at = to;
    for (let h = 3; h < K3; h++) {
      const v = shs[base + h]!;
      let code = 128;
      if (v !== v) shBad = true;
      else {
        // shCode, inline: the square-law code of v under R.
        const r = inv[h - 3]!;
        const a = (v < 0 ? -v : v) * r;
        if (r > 0) {
          if (a > 1 + 1e-6) shOut = true;
          const q = (Math.sqrt(a < 1 ? a : 1) * 127 + 0.5) | 0;
          code = v < 0 ? 128 - q : 128 + q;
        } else if (v !== 0) shOut = true;
      }
      const b = h - 2;
      const shift = (b & 3) * 8;
      if (shift === 0) {
        sh[at++] = word >>> 0;
        word = code;
      } else word |= code << shift;
    }
    sh[at] = word >>> 0;
    if (shBad) {
      clamped = true;
      tally.note('non-finite sh');
    }
    if (shOut) {
      clamped = true;
      tally.note('sh outside range');
    }
    if (dropped) tally.dropped++;
    else if (clamped) tally.clamped++;
  }
  return { centers, covs, sh };
}

/**
 * A whole scene packed compact, with its ranges and what packing replaced or
 * clamped: what the loader's worker hands the page (renderer/api/scene-load-job.ts)
 * so that the page never holds the float SH, and what a GpuScene made from it keeps
 * to upload again after a lost device.
 */
export interface PackedScene {
  decode: CompactDecode;
  /** u32 words of `sh` a splat. */
  shStride: number;
  centers: Uint32Array;
  covs: Uint32Array;
  sh: Uint32Array;
  report: SanitizeReport;
}

/** Splats `first` .. `end` - 1 of a packed scene: views of its arrays, as packCompact returns a slice. */
export function packedSlice(p: PackedScene, first: number, end: number): CompactScratch {
  return { centers: p.centers.subarray(first * 4, end * 4), covs: p.covs.subarray(first * 2, end * 2), sh: p.sh.subarray(first * p.shStride, end * p.shStride) };
}

/** Packs all of `cloud` compact: one pass for the ranges, one to pack (what GpuScene.create does a slice at a time). */
export function packScene(cloud: SplatCloud, under?: CompactDecode | 'own'): PackedScene {
  // Under given ranges (a streamed LOD chunk: the pool's), its own widened for a stream ('own':
  // the pool's first chunk, streamedDecode), else the cloud's own.
  const decode = under === 'own' ? streamedDecode(cloud) : (under ?? compactDecodeOf(cloud));
  const shStride = sceneLayout(cloud.shDegree, 'compact').shStride;
  const tally = new PackTally();
  const { centers, covs, sh } = packCompact(cloud, decode, shStride, 0, cloud.count, undefined, tally);
  return { decode, shStride, centers, covs, sh, report: tally.report() };
}

/**
 * The CPU mirror of shaders/gpu-scene/scene_compact.wgsl: the cloud the GPU sees from packed
 * splats (tests render it with the reference rasteriser).
 */
export function decodeCompact(packed: CompactScratch, d: CompactDecode, cloud: SplatCloud, shStride: number): SplatCloud {
  const n = packed.centers.length / 4;
  const K3 = shCoeffCount(cloud.shDegree) * 3;
  const f32 = new Float32Array(packed.centers.buffer, packed.centers.byteOffset, packed.centers.length);
  const positions = new Float32Array(3 * n), scales = new Float32Array(3 * n), rotations = new Float32Array(4 * n);
  const opacities = new Float32Array(n), sh = new Float32Array(K3 * n);
  const [lsLo, lsStepXY, lsStepZ] = d.lsRange;
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) positions[3 * i + a] = f32[4 * i + a]!;
    const dc = packed.centers[4 * i + 3]!;
    sh[i * K3] = d.dcMin[0] + (dc & 2047) * d.dcStep[0];
    sh[i * K3 + 1] = d.dcMin[1] + ((dc >>> 11) & 2047) * d.dcStep[1];
    sh[i * K3 + 2] = d.dcMin[2] + (dc >>> 22) * d.dcStep[2];
    rotations.set(decodeRotation(packed.covs[2 * i]!), 4 * i);
    const ls = packed.covs[2 * i + 1]!;
    scales[3 * i] = Math.exp(lsLo + (ls & 2047) * lsStepXY);
    scales[3 * i + 1] = Math.exp(lsLo + ((ls >>> 11) & 2047) * lsStepXY);
    scales[3 * i + 2] = Math.exp(lsLo + (ls >>> 22) * lsStepZ);
    const byte = (b: number) => (packed.sh[i * shStride + (b >> 2)]! >>> ((b & 3) * 8)) & 255;
    opacities[i] = byte(0) / 255;
    for (let h = 3; h < K3; h++) sh[i * K3 + h] = shValue(byte(h - 2), d.shRange[h - 3]!);
  }
  return { ...cloud, count: n, positions, scales, rotations, opacities, sh };
}
