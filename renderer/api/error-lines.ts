/**
 * A failed load as a page user reads it: one line that says what is wrong with
 * the file and what to do, and the loader's own message (its numbers, offsets,
 * the signatures it looked for) as details behind it. The loaders' typed errors
 * (scenes/errors.ts) stay as they are, for programs that branch on them; this is
 * the wording at the library's boundary: the viewer's `message` event carries
 * both (`text`, `details`), the `error` event the typed error itself.
 *
 * Also the one check of a file's size against its header that belongs to the load
 * flow (scene-open.ts): a header that declares more splats than the file can hold
 * is said to be short before the GPU budget is asked about a count that is not there.
 * Pure: unit-tested in Node.
 */
import { formatBytes } from '../../scenes/budget';
import { TruncatedError, UnknownFormatError, UnsupportedError } from '../../scenes/errors';
import { shCoeffCount, type ShDegree } from '../../scenes/splat-cloud';
import { GpuBudgetError } from '../frame/gpu-budget';
import { budgetLine } from './load-sh';

/** A failed load in words: one line, and the long form (null when the line is all there is). */
export interface ErrorLine {
  text: string;
  details: string | null;
}

/** The formats a scene is recognised as, for the details of a file that is none of them. */
const FORMATS_READ =
  'Formats read (recognised from the content, not the name): PLY (3DGS binary, PlayCanvas compressed, ASCII, big-endian, point clouds), .splat, Niantic .spz, PlayCanvas SOG (.sog, or meta.json with its .webp files), glTF / GLB with KHR_gaussian_splatting, streamed LOD lod-meta.json.';

/** Well-known files that are not scenes, by their first bytes (hex, as the loader's message writes them). */
const KNOWN_SIGNATURES: readonly [prefix: string, what: string][] = [
  ['ff d8 ff', 'a JPEG image'],
  ['89 50 4e 47', 'a PNG image'],
  ['47 49 46 38', 'a GIF image'],
  ['52 49 46 46', 'a RIFF file (WebP image, WAV)'],
  ['25 50 44 46', 'a PDF document'],
  ['1a 45 df a3', 'a WebM / Matroska video'],
  ['37 7a bc af', 'a 7-Zip archive'],
  ['52 61 72 21', 'a RAR archive'],
  ['7f 45 4c 46', 'an executable (ELF)'],
  ['4d 5a', 'a Windows executable'],
  ['42 4d', 'a BMP image'],
];

/** The printable text of hex bytes "68 65 6c 6c", or null where one is not printable. */
function asciiOf(hex: string): string | null {
  const codes = hex.split(' ').map((h) => parseInt(h, 16));
  if (codes.some((c) => !(c >= 0x20 && c < 0x7f) && c !== 0x09 && c !== 0x0a && c !== 0x0d)) return null;
  return String.fromCharCode(...codes).replace(/\s+/g, ' ');
}

/** What a file of no scene format starts like, from the loader's "it looks like ... (first bytes xx xx ...)". */
function startsLike(message: string): string {
  const looks = /it looks like (.*)$/.exec(message)?.[1] ?? '';
  const hex = /\(first bytes ([0-9a-f ]+)\)/.exec(looks)?.[1]?.trim() ?? '';
  if (/^a PLY whose first line is damaged/.test(looks)) return looks.replace(/^a PLY/, 'a PLY file');
  const known = KNOWN_SIGNATURES.find(([prefix]) => hex.startsWith(prefix));
  if (known) return known[1];
  const text = hex ? asciiOf(hex) : null;
  if (text !== null) {
    if (/^\s*</.test(text)) return `HTML or XML text ("${text.trim()}…": a web page where a file was expected?)`;
    if (/^\s*[{[]/.test(text)) return `JSON that is no scene we read ("${text.trim()}…")`;
    return `text ("${text}…")`;
  }
  return hex ? `binary data of no format we know (first bytes ${hex})` : 'nothing we know';
}

/**
 * A failed load's line and details. Worded here (not by the loaders): a file of no
 * format ("not a splat scene: it starts like a JPEG image"), an empty file, a glTF
 * whose data lies in a separate file (open the .gltf together with its .bin), a
 * scene the GPU cannot hold (the way out: a lower SH degree); any other error's
 * message is already one line.
 */
export function loadErrorLine(err: unknown): ErrorLine {
  if (err instanceof GpuBudgetError) return { text: budgetLine(err), details: null };
  if (err instanceof UnknownFormatError) {
    const empty = /\band 0 bytes\b/.test(err.message) || /first bytes none/.test(err.message);
    const text = empty ? `${err.file}: not a splat scene: the file is empty (0 bytes)` : `${err.file}: not a splat scene: it starts like ${startsLike(err.message)}`;
    return { text, details: `${err.message}\n${FORMATS_READ}` };
  }
  // `property` names the buffer in Node; from the worker only the message says it (reviveLoadError).
  if (err instanceof UnsupportedError && (/^buffers\[\d+\]\.uri$/.test(err.property ?? '') || /\bbuffers\[\d+\] is a separate file\b/.test(err.message))) {
    const glb = /\.glb$/i.test(err.file);
    const text = glb
      ? `${err.file}: this .glb keeps its data in a separate file, which is read only beside a .gltf: open the .gltf together with its .bin (choose both files at once, or drop their folder)`
      : `${err.file}: its data is in a separate file: open the .gltf together with its .bin (choose both files at once, or drop their folder)`;
    return { text, details: err.message };
  }
  if (err instanceof Error) return { text: err.message.replace(/\s*[\r\n]+\s*/g, ' '), details: null };
  return { text: String(err), details: null };
}

/**
 * The fewest bytes a file of `splats` rows of SH degree `shDegree` can have as the
 * binary PLY whose header declared them (LoadProgress.declared comes from the binary
 * PLY fast path only): one byte for each of the 14 properties a splat needs (x, y, z,
 * f_dc_0..2, opacity, scale_0..2, rot_0..3) and for each f_rest_* of the degree kept.
 */
export function leastPlyBytes(splats: number, shDegree: ShDegree): number {
  return splats * (14 + 3 * (shCoeffCount(shDegree) - 1));
}

/**
 * Refuses a header that declares more splats than the file's `size` bytes can hold,
 * before the count reaches the GPU budget (a 5.9 KB file claiming 2e9 splats is short,
 * not too big for the GPU). Nothing when the size is unknown.
 *
 * @throws TruncatedError naming the count, the least bytes it takes and the file's size
 */
export function checkDeclaredSize(name: string, declared: { splats: number; shDegree: ShDegree }, size: number | undefined): void {
  if (size === undefined || !(size >= 0)) return;
  const least = leastPlyBytes(declared.splats, declared.shDegree);
  if (least <= size) return;
  throw new TruncatedError(
    name,
    `the header declares ${declared.splats.toLocaleString('en-US')} splats, at least ${formatBytes(least)}, but the file is ${formatBytes(size)}: it is cut short, or its header is wrong`,
    { element: 'vertex' },
  );
}
