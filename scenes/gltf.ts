/**
 * Reader for glTF 2.0 with KHR_gaussian_splatting (facts of the formats, from
 * the glTF specification and the extension's; the code is ours): `.glb` (a
 * 12-byte header "glTF", version 2, length; a JSON chunk; a BIN chunk) and
 * `.gltf` (the JSON alone, its buffers as data: URIs or files beside it,
 * fetched with loadGltfFiles's getFile).
 *
 * Splats are POINTS primitives (mode 0) whose attributes are POSITION (VEC3),
 * KHR_gaussian_splatting:ROTATION (VEC4, x y z w), :SCALE (VEC3, linear),
 * :OPACITY (SCALAR, after the sigmoid) and :SH_DEGREE_l_COEF_n (VEC3, r g b;
 * n = 0..2l; degree 0 is the raw DC coefficient f_dc), all FLOAT here. Every
 * such primitive of every mesh is read, one after another (node transforms are
 * not applied: splat-transform writes none).
 *
 * glTF's frame is +Y up. splat-transform writes a PLY-frame scene (3DGS
 * training's: y down, z forward) rotated 180 degrees about z, so the reader
 * rotates it back: (x, y, z) -> (-x, -y, z), the rotation composed with
 * that turn (q -> (0, 0, 0, 1) * q), and SH coefficient k negated where its
 * basis function is odd in (x, y) together: (-1)^k for k = 1..15.
 */
import { EmptySceneError, GltfFormatError, shownValue, MissingElementError, MissingPropertyError, ReadFailedError, SceneLoadError, TruncatedError, UnsupportedError, BadShError } from './errors';
import { keptShDegree, type LoadOptions } from './load-options';
import { canonicalRowIndex, decodeSplatRows } from './ply-decode';
import { SplatSink, Tally } from './sanitize';
import { shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';
import { checkReference } from './references';
import { checkMemory } from './budget';

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;
const FLOAT = 5126;
const EXT = 'KHR_gaussian_splatting';
/** Splats decoded at a time. */
const DECODE_BATCH_ROWS = 1 << 14;

/** Whether the bytes start with the GLB magic "glTF". */
export function hasGlbMagic(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x67 && b[1] === 0x6c && b[2] === 0x54 && b[3] === 0x46;
}

/** Whether the bytes look like a .gltf JSON using KHR_gaussian_splatting (an object with "asset" and the extension's name). */
export function looksLikeGltfJson(head: Uint8Array): boolean {
  const t = new TextDecoder('latin1').decode(head.subarray(0, 1 << 16));
  return /^\s*\{/.test(t) && t.includes('"asset"') && t.includes(EXT);
}

/** Fetches a file a .gltf's buffer names by URI (relative to the .gltf). */
export type GltfFileGetter = (uri: string) => Promise<Uint8Array>;

/**
 * Reads a .glb.
 *
 * @throws GltfFormatError for a malformed container, JSON or accessor,
 *   TruncatedError when chunks or buffer views run past the data,
 *   MissingPropertyError / MissingElementError for a missing attribute or
 *   splat primitive, UnsupportedError for what is valid but not read here
 */
export function parseGlb(bytes: Uint8Array, name: string, options?: LoadOptions): SplatCloud {
  const { json, bin } = splitGlb(bytes, name);
  const doc = parseJson(json, name, 20);
  checkDocReferences(doc, name);
  const buffers = (doc.buffers ?? []).map((b, i): Uint8Array => {
    if (b.uri === undefined) {
      if (i !== 0 || bin === null) throw new GltfFormatError(name, `buffers[${i}] has no uri and the GLB ${bin === null ? 'has no BIN chunk' : 'gives its BIN chunk to buffers[0] only'}`, { property: `buffers[${i}]` });
      return bin;
    }
    return dataUri(b.uri, name, i) ?? unsupportedUri(name, i);
  });
  return decodeDoc(doc, buffers, name, 'glb', options);
}

/**
 * Reads a .gltf (JSON) whose buffers are data: URIs or files fetched with getFile.
 *
 * @throws what parseGlb throws; ReadFailedError when getFile fails
 */
export async function loadGltfFiles(json: Uint8Array, getFile: GltfFileGetter | null, name: string, options?: LoadOptions): Promise<SplatCloud> {
  const doc = parseJson(json, name, 0);
  // Every reference checked before any is fetched.
  const files = checkDocReferences(doc, name);
  const buffers: Uint8Array[] = [];
  for (const [i, b] of (doc.buffers ?? []).entries()) {
    if (b.uri === undefined) throw new GltfFormatError(name, `buffers[${i}] has no uri (only a GLB's first buffer may omit it)`, { property: `buffers[${i}].uri` });
    const inline = dataUri(b.uri, name, i);
    if (inline !== null) {
      buffers.push(inline);
      continue;
    }
    if (getFile === null) unsupportedUri(name, i);
    try {
      buffers.push(await getFile!(files[i]!));
    } catch (e) {
      if (e instanceof SceneLoadError) throw e;
      throw new ReadFailedError(name, `reading buffers[${i}] '${b.uri}' failed: ${e instanceof Error ? e.message : String(e)}`, { property: `buffers[${i}].uri`, cause: e });
    }
  }
  return decodeDoc(doc, buffers, name, 'gltf', options);
}

/** The same for a .gltf whose buffers are all data: URIs (loadScene's route: no way to fetch other files). */
export function parseGltfJson(json: Uint8Array, name: string, options?: LoadOptions): SplatCloud {
  const doc = parseJson(json, name, 0);
  checkDocReferences(doc, name);
  const buffers = (doc.buffers ?? []).map((b, i) => {
    if (b.uri === undefined) throw new GltfFormatError(name, `buffers[${i}] has no uri (only a GLB's first buffer may omit it)`, { property: `buffers[${i}].uri` });
    return dataUri(b.uri, name, i) ?? unsupportedUri(name, i);
  });
  return decodeDoc(doc, buffers, name, 'gltf', options);
}

/**
 * Checks every file the document names (buffers[].uri and images[].uri that are not
 * data: URIs) against the reference rule (scenes/references.ts), before any is read.
 *
 * @returns per buffer, the file name its URI stands for (percent-decoded), or null for none / a data: URI
 * @throws BadReferenceError naming the URI and where it is written
 */
function checkDocReferences(doc: GltfDoc, name: string): (string | null)[] {
  for (const [i, img] of (doc.images ?? []).entries()) {
    const uri = typeof img === 'object' && img !== null ? (img as { uri?: unknown }).uri : undefined;
    if (uri === undefined) continue;
    if (typeof uri !== 'string') throw new GltfFormatError(name, `images[${i}].uri must be a string`, { property: `images[${i}].uri` });
    if (!uri.startsWith('data:')) checkReference(name, uri, `images[${i}].uri`, true);
  }
  return (doc.buffers ?? []).map((b, i) => (b.uri === undefined || b.uri.startsWith('data:') ? null : checkReference(name, b.uri, `buffers[${i}].uri`, true)));
}

function unsupportedUri(name: string, i: number): never {
  throw new UnsupportedError(name, `buffers[${i}] is a separate file: load the .gltf with loadGltfFiles and a way to fetch it`, { property: `buffers[${i}].uri` });
}

function splitGlb(b: Uint8Array, name: string): { json: Uint8Array; bin: Uint8Array | null } {
  if (b.length < 20) throw new TruncatedError(name, `a GLB has a 12-byte header and a chunk header; this file has ${b.length} bytes`, { byteOffset: b.length });
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (v.getUint32(0, true) !== GLB_MAGIC) throw new GltfFormatError(name, 'no GLB magic "glTF" at byte 0', { byteOffset: 0 });
  const version = v.getUint32(4, true);
  if (version !== 2) throw new UnsupportedError(name, `GLB version ${version} (byte 4); only glTF 2.0 is read`, { byteOffset: 4 });
  const length = v.getUint32(8, true);
  if (length > b.length) throw new TruncatedError(name, `the GLB header declares ${length} bytes (byte 8); the file has ${b.length}`, { byteOffset: 8 });
  if (length < 20) throw new GltfFormatError(name, `the GLB header declares ${length} bytes (byte 8), less than a header and a chunk`, { byteOffset: 8 });
  let json: Uint8Array | null = null;
  let bin: Uint8Array | null = null;
  for (let at = 12; at < length; ) {
    if (at + 8 > length) throw new TruncatedError(name, `a GLB chunk header at byte ${at} runs past the declared length ${length}`, { byteOffset: at });
    const size = v.getUint32(at, true);
    const type = v.getUint32(at + 4, true);
    if (size > length - at - 8) throw new TruncatedError(name, `a GLB chunk of ${size} bytes at byte ${at} runs past the declared length ${length}`, { byteOffset: at });
    const data = b.subarray(at + 8, at + 8 + size);
    if (json === null) {
      if (type !== CHUNK_JSON) throw new GltfFormatError(name, `the first GLB chunk (byte ${at}) is not JSON (type 0x${type.toString(16)})`, { byteOffset: at + 4 });
      json = data;
    } else if (type === CHUNK_BIN && bin === null) {
      bin = data;
    }
    at += 8 + size + ((4 - (size % 4)) % 4);
  }
  return { json: json!, bin };
}

interface GltfAccessor { bufferView?: number; byteOffset?: number; componentType?: number; count?: number; type?: string; sparse?: unknown; normalized?: boolean }
interface GltfView { buffer?: number; byteOffset?: number; byteLength?: number; byteStride?: number }
interface GltfPrimitive { attributes?: Record<string, unknown>; mode?: number; extensions?: Record<string, unknown> }
interface GltfDoc {
  buffers?: { uri?: string; byteLength?: number }[];
  bufferViews?: GltfView[];
  accessors?: GltfAccessor[];
  meshes?: { primitives?: GltfPrimitive[] }[];
  images?: unknown[];
}

function parseJson(bytes: Uint8Array, name: string, at: number): GltfDoc {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw new GltfFormatError(name, `the glTF JSON (byte ${at}) does not parse (${e instanceof Error ? e.message : String(e)})`, { byteOffset: at, cause: e });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new GltfFormatError(name, `the glTF JSON (byte ${at}) is not an object`, { byteOffset: at });
  const d = doc as Record<string, unknown>;
  if (typeof d['asset'] !== 'object' || d['asset'] === null) throw new MissingPropertyError(name, 'the glTF JSON has no "asset" object', { property: 'asset' });
  for (const key of ['buffers', 'bufferViews', 'accessors', 'meshes', 'images']) {
    const v = d[key];
    if (v !== undefined && (!Array.isArray(v) || !v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x)))) {
      throw new GltfFormatError(name, `glTF "${key}" must be an array of objects`, { property: key });
    }
  }
  for (const [i, b] of ((d['buffers'] ?? []) as Record<string, unknown>[]).entries()) {
    if (b['uri'] !== undefined && typeof b['uri'] !== 'string') throw new GltfFormatError(name, `buffers[${i}].uri must be a string`, { property: `buffers[${i}].uri` });
  }
  return d as GltfDoc;
}

function dataUri(uri: string, name: string, i: number): Uint8Array | null {
  const m = /^data:[^,]*?;base64,/.exec(uri);
  if (m === null) {
    if (uri.startsWith('data:')) throw new UnsupportedError(name, `buffers[${i}] is a data: URI that is not base64`, { property: `buffers[${i}].uri` });
    return null;
  }
  const text = uri.slice(m[0].length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new GltfFormatError(name, `buffers[${i}] is a data: URI with bad base64`, { property: `buffers[${i}].uri` });
  const raw = atob(text);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

const TYPE_COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };

/** A FLOAT attribute's values, checked: `get(i, c)` reads component c of element i. */
interface FloatAttribute {
  count: number;
  get(i: number, c: number): number;
}

function decodeDoc(doc: GltfDoc, buffers: Uint8Array[], name: string, format: string, options: LoadOptions | undefined): SplatCloud {
  const prims: { p: GltfPrimitive; where: string }[] = [];
  (doc.meshes ?? []).forEach((m, mi) => {
    if (m.primitives !== undefined && !Array.isArray(m.primitives)) throw new GltfFormatError(name, `meshes[${mi}].primitives must be an array`, { property: `meshes[${mi}].primitives` });
    (m.primitives ?? []).forEach((p, pi) => {
      if (typeof p !== 'object' || p === null) throw new GltfFormatError(name, `meshes[${mi}].primitives[${pi}] must be an object`, { property: `meshes[${mi}].primitives[${pi}]` });
      const attrs = p.attributes;
      const isSplat = (p.extensions !== undefined && typeof p.extensions === 'object' && p.extensions !== null && EXT in p.extensions) || (typeof attrs === 'object' && attrs !== null && Object.keys(attrs).some((k) => k.startsWith(`${EXT}:`)));
      if (!isSplat) return;
      const where = `meshes[${mi}].primitives[${pi}]`;
      if ((p.mode ?? 4) !== 0) throw new GltfFormatError(name, `${where} uses ${EXT} but its mode is ${shownValue(p.mode ?? 4)}, not 0 (POINTS)`, { property: `${where}.mode` });
      if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs)) throw new MissingPropertyError(name, `${where} has no attributes object`, { property: `${where}.attributes` });
      prims.push({ p, where });
    });
  });
  if (prims.length === 0) throw new MissingElementError(name, `no mesh primitive uses ${EXT}: not a Gaussian splat glTF`, { element: 'meshes' });

  const attribute = (prim: GltfPrimitive, where: string, key: string, type: string): FloatAttribute => {
    const path = `${where}.attributes["${key}"]`;
    const ai = prim.attributes![key];
    if (ai === undefined) throw new MissingPropertyError(name, `${where} has no ${key} attribute, which a Gaussian splat primitive needs`, { property: path });
    const acc = Number.isInteger(ai) && (ai as number) >= 0 ? doc.accessors?.[ai as number] : undefined;
    if (acc === undefined) throw new GltfFormatError(name, `${path} = ${shownValue(ai)} is not an accessor index`, { property: path });
    const ap = `accessors[${ai as number}]`;
    if (acc.sparse !== undefined) throw new UnsupportedError(name, `${ap} (${key}) is sparse`, { property: `${ap}.sparse` });
    if (acc.type !== type) throw new GltfFormatError(name, `${ap} (${key}) has type ${shownValue(acc.type)}; ${type} expected`, { property: `${ap}.type` });
    if (acc.componentType !== FLOAT) throw new UnsupportedError(name, `${ap} (${key}) has componentType ${shownValue(acc.componentType)}; only FLOAT (5126) is read`, { property: `${ap}.componentType` });
    const count = acc.count;
    if (!(Number.isInteger(count) && (count as number) >= 0)) throw new GltfFormatError(name, `${ap} (${key}) count ${shownValue(count)} is not a whole number`, { property: `${ap}.count` });
    const vi = acc.bufferView;
    const view = Number.isInteger(vi) && (vi as number) >= 0 ? doc.bufferViews?.[vi as number] : undefined;
    if (view === undefined) throw new GltfFormatError(name, `${ap} (${key}) bufferView ${shownValue(vi)} is not a buffer view index`, { property: `${ap}.bufferView` });
    const vp = `bufferViews[${vi as number}]`;
    const buf = Number.isInteger(view.buffer) && (view.buffer as number) >= 0 ? buffers[view.buffer as number] : undefined;
    if (buf === undefined) throw new GltfFormatError(name, `${vp}.buffer ${shownValue(view.buffer)} is not a buffer index`, { property: `${vp}.buffer` });
    const nat = (v: unknown, what: string, dflt?: number): number => {
      const x = v === undefined ? dflt : v;
      if (!(typeof x === 'number' && Number.isInteger(x) && x >= 0)) throw new GltfFormatError(name, `${what} ${shownValue(v)} is not a whole number`, { property: what });
      return x;
    };
    const viewOffset = nat(view.byteOffset, `${vp}.byteOffset`, 0);
    const viewLength = nat(view.byteLength, `${vp}.byteLength`);
    const accOffset = nat(acc.byteOffset, `${ap}.byteOffset`, 0);
    const comps = TYPE_COMPONENTS[type]!;
    const elem = comps * 4;
    const stride = view.byteStride === undefined ? elem : nat(view.byteStride, `${vp}.byteStride`);
    if (stride < elem || stride % 4 !== 0) throw new GltfFormatError(name, `${vp}.byteStride ${stride} does not hold a ${type} of FLOAT (${elem} bytes, a multiple of 4)`, { property: `${vp}.byteStride` });
    if (viewOffset + viewLength > buf.length) {
      throw new TruncatedError(name, `${vp} (${viewLength} bytes at byte ${viewOffset} of buffer ${view.buffer as number}) runs past the buffer's ${buf.length} bytes`, { property: vp, byteOffset: viewOffset });
    }
    const n = count as number;
    const need = n === 0 ? 0 : accOffset + stride * (n - 1) + elem;
    if (need > viewLength) {
      throw new TruncatedError(name, `${ap} (${key}) declares ${n} elements of ${stride} bytes from byte ${accOffset} (${need} bytes), but ${vp} holds ${viewLength}`, { property: `${ap}.count`, byteOffset: viewOffset + accOffset });
    }
    const dv = new DataView(buf.buffer, buf.byteOffset + viewOffset + accOffset, Math.max(0, viewLength - accOffset));
    return { count: n, get: (i, c) => dv.getFloat32(i * stride + c * 4, true) };
  };

  // The SH degree of each primitive: the highest whole degree whose coefficients are all there.
  const shOf = (p: GltfPrimitive, where: string): ShDegree => {
    let degree = 0;
    for (let l = 1; l <= 3; l++) {
      const present = Array.from({ length: 2 * l + 1 }, (_, c) => `${EXT}:SH_DEGREE_${l}_COEF_${c}` in p.attributes!).filter(Boolean).length;
      if (present === 0) break;
      if (present !== 2 * l + 1) throw new BadShError(name, `${where} has ${present} of the ${2 * l + 1} SH_DEGREE_${l} coefficients`, { property: `${where}.attributes` });
      degree = l;
    }
    return degree as ShDegree;
  };
  const fileDegree = Math.min(...prims.map(({ p, where }) => shOf(p, where))) as ShDegree;
  const degree = keptShDegree(fileDegree, options);
  const K = shCoeffCount(degree);
  const parts = prims.map(({ p, where }) => {
    const pos = attribute(p, where, 'POSITION', 'VEC3');
    const need = (key: string, type: string): FloatAttribute => {
      const a = attribute(p, where, `${EXT}:${key}`, type);
      if (a.count !== pos.count) throw new GltfFormatError(name, `${where}: ${EXT}:${key} has ${a.count} elements, POSITION ${pos.count}`, { property: `${where}.attributes["${EXT}:${key}"]` });
      return a;
    };
    const sh: FloatAttribute[] = [];
    for (let k = 0; k < K; k++) {
      const l = Math.floor(Math.sqrt(k));
      sh.push(need(`SH_DEGREE_${l}_COEF_${k - l * l}`, 'VEC3'));
    }
    return { pos, rot: need('ROTATION', 'VEC4'), scale: need('SCALE', 'VEC3'), opacity: need('OPACITY', 'SCALAR'), sh };
  });
  const total = parts.reduce((a, x) => a + x.pos.count, 0);
  if (total === 0) throw new EmptySceneError(name, 'the splat primitives hold 0 splats: nothing to draw');
  // Accessors may share bytes, so the count is bounded by the budget, not by the buffers' size.
  checkMemory(name, total, degree, options, 'the splat primitives\' accessors');

  const { index, stride } = canonicalRowIndex(degree);
  const rows = new Float32Array(Math.min(total, DECODE_BATCH_ROWS) * stride);
  const sink = new SplatSink(degree, total, name, options);
  const tally = new Tally();
  for (const { pos, rot, scale, opacity, sh } of parts) {
    const n = pos.count;
    for (let first = 0; first < n; first += DECODE_BATCH_ROWS) {
      const end = Math.min(n, first + DECODE_BATCH_ROWS);
      for (let i = first; i < end; i++) {
        const r = (i - first) * stride;
        // 180 degrees about z back to the PLY frame.
        rows[r] = -pos.get(i, 0);
        rows[r + 1] = -pos.get(i, 1);
        rows[r + 2] = pos.get(i, 2);
        for (let a = 0; a < 3; a++) rows[r + 3 + a] = Math.log(scale.get(i, a));
        const qx = rot.get(i, 0), qy = rot.get(i, 1), qz = rot.get(i, 2), qw = rot.get(i, 3);
        // (0, 0, 0, 1) * (w, x, y, z) = (-z, -y, x, w), in w, x, y, z order.
        rows[r + 6] = -qz;
        rows[r + 7] = -qy;
        rows[r + 8] = qx;
        rows[r + 9] = qw;
        // Linear opacity: out-of-range values clamped to [0, 1] (NaN stays, and is counted by the kernel).
        const o = opacity.get(i, 0);
        const oc = o < 0 ? 0 : o > 1 ? 1 : o;
        rows[r + 10] = Math.log(oc / (1 - oc));
        for (let k = 0; k < K; k++) {
          const sign = k % 2 === 1 ? -1 : 1;
          for (let c = 0; c < 3; c++) rows[r + 11 + k * 3 + c] = sign * sh[k]!.get(i, c);
        }
      }
      decodeSplatRows(rows, 0, stride, end - first, index, sink, tally);
    }
  }
  return sink.finish(format, tally, total);
}
