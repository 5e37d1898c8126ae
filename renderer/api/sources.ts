/**
 * What a host may pass as a scene, and how it becomes what the loader reads: a
 * URL (string or URL object), a File or Blob, an ArrayBuffer (or a typed array),
 * a generated scene (`{ generate: 'default:3000' }`, or the string
 * 'generate:default:3000' where only a string fits: an attribute), or files opened together (a
 * SOG's meta.json and .webp, a .gltf and its .bin).
 */
import type { LoadSource } from './scene-load-protocol';
import { sceneNameOfUrl } from './scene-load-protocol';
import type { LoadOptions } from '../../scenes/load-options';

export type SceneInput =
  | string
  | URL
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | { generate: string }
  | { file: Blob & { name: string }; companions?: { mainPath: string; files: Record<string, Blob> } };

/** The normalised source: generated in this thread, or read by the loader (worker). */
export type NormalSource = { kind: 'generated'; spec: string; id: string } | { kind: 'load'; load: LoadSource; id: string; size?: number };

function baseUrl(): string | undefined {
  return typeof location !== 'undefined' ? location.href : undefined;
}

/** `name`: what the scene is called when the input carries no name (an ArrayBuffer, a Blob). */
export function normalizeSource(input: SceneInput, options: LoadOptions, name?: string): NormalSource {
  if (typeof input === 'string' && input.startsWith('generate:')) {
    const spec = input.slice('generate:'.length) || 'default';
    return { kind: 'generated', spec, id: spec };
  }
  if (typeof input === 'string' || input instanceof URL) {
    const url = String(input);
    const href = new URL(url, baseUrl()).href;
    return { kind: 'load', id: url, load: { kind: 'url', name: name ?? sceneNameOfUrl(url), url: href, options } };
  }
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer as ArrayBuffer, input.byteOffset, input.byteLength);
    const blob = new Blob([bytes]);
    const n = name ?? 'scene';
    return { kind: 'load', id: `file:${n}`, size: blob.size, load: { kind: 'blob', name: n, blob, options } };
  }
  if (input instanceof Blob) {
    const n = name ?? ((input as Blob & { name?: string }).name || 'scene');
    return { kind: 'load', id: `file:${n}`, size: input.size, load: { kind: 'blob', name: n, blob: input, options } };
  }
  if ('generate' in input) return { kind: 'generated', spec: input.generate, id: input.generate };
  const main = input.companions?.mainPath ?? input.file.name;
  return {
    kind: 'load',
    id: `file:${main}`,
    size: input.file.size,
    load: { kind: 'blob', name: name ?? main, blob: input.file, ...(input.companions ? { companions: input.companions } : {}), options },
  };
}
