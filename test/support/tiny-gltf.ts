/**
 * A small .gltf with KHR_gaussian_splatting (SH degree 0) made from a cloud, for
 * tests of the loaders' references and budgets: its JSON (buffer 0 named by
 * `uri`; `primitives` splat primitives sharing one set of accessors) and its .bin.
 */
import type { SplatCloud } from '../../scenes/splat-cloud';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

export function tinyGltf(cloud: SplatCloud, uri: string, extra: Record<string, unknown> = {}, primitives = 1): { json: Uint8Array; bin: Uint8Array } {
  const n = cloud.count;
  const cols: [string, string, number, (i: number, c: number) => number][] = [
    ['POSITION', 'VEC3', 3, (i, c) => cloud.positions[i * 3 + c]!],
    ['KHR_gaussian_splatting:ROTATION', 'VEC4', 4, (i, c) => cloud.rotations[i * 4 + ((c + 1) % 4)]!],
    ['KHR_gaussian_splatting:SCALE', 'VEC3', 3, (i, c) => cloud.scales[i * 3 + c]!],
    ['KHR_gaussian_splatting:OPACITY', 'SCALAR', 1, (i) => cloud.opacities[i]!],
    ['KHR_gaussian_splatting:SH_DEGREE_0_COEF_0', 'VEC3', 3, (i, c) => cloud.sh[i * (cloud.sh.length / n) + c]!],
  ];
  const f = new Float32Array(n * 14);
  const doc: Record<string, any> = { asset: { version: '2.0' }, buffers: [{ uri, byteLength: f.byteLength }], bufferViews: [], accessors: [], meshes: [{ primitives: [] }], ...extra };
  let at = 0;
  const attributes: Record<string, number> = {};
  cols.forEach(([key, type, k, get], a) => {
    for (let i = 0; i < n; i++) for (let c = 0; c < k; c++) f[at + i * k + c] = get(i, c);
    doc.bufferViews.push({ buffer: 0, byteOffset: at * 4, byteLength: n * k * 4 });
    doc.accessors.push({ bufferView: a, componentType: 5126, count: n, type });
    attributes[key] = a;
    at += n * k;
  });
  for (let p = 0; p < primitives; p++) doc.meshes[0].primitives.push({ mode: 0, attributes });
  return { json: enc(JSON.stringify(doc)), bin: new Uint8Array(f.buffer) };
}

