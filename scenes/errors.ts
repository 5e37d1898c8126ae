/**
 * The error types every scene loader throws for bad input, so that callers
 * (the CLI, the GUI's file picker, tests) can report a file problem in one
 * line and tell it apart from a bug in the program.
 *
 * SceneLoadError is the base: `instanceof SceneLoadError` means "the file is
 * bad", anything else is a bug. Each cause has its own subclass (and `code`),
 * so that a caller can branch on the class or on the code.
 */

/**
 * What went wrong, coarse enough to branch on (one per subclass below):
 * - `not-ply` / `unknown-format`: the bytes are no format we read.
 * - `bad-header`: the header is malformed (no `end_header`, unknown keyword,
 *   bad count...).
 * - `unknown-type`: a property type that PLY does not define.
 * - `duplicate-name`: two elements or two properties of one element share a name.
 * - `empty-element`: an element declares rows but no properties.
 * - `truncated`: the body is shorter than the header declares.
 * - `extra-data`: an ASCII body holds more values than the header declares.
 * - `missing-element`: a required element (e.g. `vertex`) is not declared.
 * - `missing-property`: a required property is not declared.
 * - `bad-sh`: the `f_rest_*` properties do not make a whole SH degree 0..3.
 * - `unsupported`: valid input that this loader does not read (e.g. a list
 *   property on the vertex element, an SPZ version it does not know).
 * - `bad-data`: a value in the body is malformed (e.g. a non-number in ASCII).
 * - `bad-chunk`: a compressed PLY chunk's min/max range is not finite.
 * - `empty-scene`: the file holds no splat that can be drawn.
 * - `bad-spz`: an SPZ header or table of contents is inconsistent.
 * - `decompress`: gzip or ZSTD data is corrupt or larger than declared.
 * - `bad-zip`: a zip container (.sog) whose directory or entries are malformed.
 * - `bad-image`: an image inside a scene (SOG's WebP textures) that does not decode
 *   or has the wrong size.
 * - `bad-sog`: a SOG meta.json that is not JSON, or a field of the wrong type or range.
 * - `bad-gltf`: a glTF / GLB container, JSON, accessor or buffer view that is malformed.
 * - `bad-lod`: a streamed-LOD `lod-meta.json` that is not JSON, has a field of the
 *   wrong type or range, or names chunk ranges its SOG files do not hold.
 * - `too-large`: the scene needs more memory than one array can hold, or than
 *   the load's memory budget (LoadOptions.memoryBudget).
 * - `bomb`: compressed data that inflates past 1,000 times its compressed size
 *   (a decompression bomb), refused before inflating further.
 * - `bad-reference`: a file a scene names (a glTF buffer or image URI, a SOG
 *   texture, a lod-meta.json chunk) that is not a plain relative path inside the
 *   scene's folder, or that is not a regular file there.
 * - `aborted`: the caller cancelled the load (AbortSignal).
 * - `read-failed`: the byte source (file stream, fetch body) failed.
 */
export type SceneLoadErrorCode =
  | 'not-ply'
  | 'unknown-format'
  | 'bad-header'
  | 'unknown-type'
  | 'duplicate-name'
  | 'empty-element'
  | 'truncated'
  | 'extra-data'
  | 'missing-element'
  | 'missing-property'
  | 'bad-sh'
  | 'unsupported'
  | 'bad-data'
  | 'bad-chunk'
  | 'empty-scene'
  | 'bad-spz'
  | 'decompress'
  | 'bad-zip'
  | 'bad-image'
  | 'bad-sog'
  | 'bad-gltf'
  | 'bad-lod'
  | 'too-large'
  | 'bomb'
  | 'bad-reference'
  | 'aborted'
  | 'read-failed';

/**
 * A number as an error message shows it: a finite value as JavaScript writes it,
 * the others in words ("not a number", "infinity", "-infinity"), so that no
 * message reads "NaN" where a checked number belongs.
 */
export function shownNumber(v: number): string {
  if (v - v === 0) return String(v);
  return v !== v ? 'not a number' : v > 0 ? 'infinity' : '-infinity';
}

/** A value read from a file as an error message shows it: "missing", a number by shownNumber, else JSON (at most 60 characters). */
export function shownValue(v: unknown): string {
  if (v === undefined) return 'missing';
  if (typeof v === 'number') return shownNumber(v);
  const j = JSON.stringify(v);
  return j === undefined ? typeof v : j.length > 60 ? `${j.slice(0, 60)}...` : j;
}

/** Optional location details of a {@link SceneLoadError}. */
export interface SceneLoadErrorDetails {
  /** The element the problem is about, when there is one. */
  element?: string;
  /** The property the problem is about, when there is one. */
  property?: string;
  /** Byte offset in the file where the problem is, when it is known. */
  byteOffset?: number;
  /** The underlying error, when this one wraps another. */
  cause?: unknown;
}

/**
 * A problem with a scene file (not a bug in the loader). Its message is one
 * line: `FILE: CODE: DETAIL`, where DETAIL names the element, property and
 * byte offset where they apply.
 */
export class SceneLoadError extends Error {
  override name = 'SceneLoadError';
  /** The file name the caller gave the loader. */
  readonly file: string;
  /** The kind of problem. */
  readonly code: SceneLoadErrorCode;
  /** The element the problem is about, when there is one. */
  readonly element?: string;
  /** The property the problem is about, when there is one. */
  readonly property?: string;
  /** Byte offset in the file where the problem is, when known. */
  readonly byteOffset?: number;

  /**
   * @param file - name of the file, as given to the loader
   * @param code - the kind of problem
   * @param detail - what is wrong, naming the property and byte offset where
   *   they apply (newlines are folded so the message stays one line)
   * @param details - structured element / property / byte offset / cause
   */
  constructor(file: string, code: SceneLoadErrorCode, detail: string, details: SceneLoadErrorDetails = {}) {
    super(`${file}: ${code}: ${detail}`.replace(/\s*[\r\n]+\s*/g, ' '), details.cause === undefined ? undefined : { cause: details.cause });
    this.file = file;
    this.code = code;
    if (details.element !== undefined) this.element = details.element;
    if (details.property !== undefined) this.property = details.property;
    if (details.byteOffset !== undefined) this.byteOffset = details.byteOffset;
  }
}

/** The bytes start with no signature we know (PLY, gzip SPZ, NGSP) and are not a .splat either. */
export class UnknownFormatError extends SceneLoadError {
  override name = 'UnknownFormatError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'unknown-format', detail, details);
  }
}

/** The file starts with `ply` but not with the PLY magic line. */
export class NotPlyError extends SceneLoadError {
  override name = 'NotPlyError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'not-ply', detail, details);
  }
}

/** A malformed header line, a missing `format` or `end_header`. */
export class HeaderSyntaxError extends SceneLoadError {
  override name = 'HeaderSyntaxError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-header', detail, details);
  }
}

/** A property type name PLY does not define (looked up in a Map, so `constructor` is unknown too). */
export class UnknownTypeError extends SceneLoadError {
  override name = 'UnknownTypeError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'unknown-type', detail, details);
  }
}

/** Two elements, or two properties of one element, with the same name. */
export class DuplicateNameError extends SceneLoadError {
  override name = 'DuplicateNameError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'duplicate-name', detail, details);
  }
}

/** An element that declares rows but no properties (rows of 0 bytes cannot be counted). */
export class EmptyElementError extends SceneLoadError {
  override name = 'EmptyElementError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'empty-element', detail, details);
  }
}

/** The body ends before the rows the header declares. */
export class TruncatedError extends SceneLoadError {
  override name = 'TruncatedError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'truncated', detail, details);
  }
}

/** An ASCII body holds values after the last declared row. */
export class ExtraDataError extends SceneLoadError {
  override name = 'ExtraDataError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'extra-data', detail, details);
  }
}

/** A required element is not declared. */
export class MissingElementError extends SceneLoadError {
  override name = 'MissingElementError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'missing-element', detail, details);
  }
}

/** A required property is not declared. */
export class MissingPropertyError extends SceneLoadError {
  override name = 'MissingPropertyError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'missing-property', detail, details);
  }
}

/** The SH properties do not make a whole degree. */
export class BadShError extends SceneLoadError {
  override name = 'BadShError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-sh', detail, details);
  }
}

/** Valid input this loader does not read. */
export class UnsupportedError extends SceneLoadError {
  override name = 'UnsupportedError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'unsupported', detail, details);
  }
}

/** A malformed value in the body (ASCII token, negative list length...). */
export class BadValueError extends SceneLoadError {
  override name = 'BadValueError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-data', detail, details);
  }
}

/** A compressed PLY chunk with a non-finite or inverted min/max range. */
export class ChunkRangeError extends SceneLoadError {
  override name = 'ChunkRangeError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-chunk', detail, details);
  }
}

/** Nothing to draw: no rows, or every row dropped as undrawable. */
export class EmptySceneError extends SceneLoadError {
  override name = 'EmptySceneError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'empty-scene', detail, details);
  }
}

/** An SPZ header or table of contents that contradicts itself or the file size. */
export class SpzFormatError extends SceneLoadError {
  override name = 'SpzFormatError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-spz', detail, details);
  }
}

/** Corrupt gzip / ZSTD data, or more data than the header declares. */
export class DecompressError extends SceneLoadError {
  override name = 'DecompressError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'decompress', detail, details);
  }
}

/** A zip container (.sog) whose end record, central directory or local headers are malformed. */
export class ZipFormatError extends SceneLoadError {
  override name = 'ZipFormatError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-zip', detail, details);
  }
}

/** An image in a scene (a SOG WebP texture) that does not decode, or whose size does not fit the scene. */
export class ImageDecodeError extends SceneLoadError {
  override name = 'ImageDecodeError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-image', detail, details);
  }
}

/** A SOG meta.json that is not JSON, or has a field of the wrong type or range (`property`: the field's path). */
export class SogFormatError extends SceneLoadError {
  override name = 'SogFormatError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-sog', detail, details);
  }
}

/** A malformed glTF / GLB: container, JSON, accessor, buffer view or buffer (`property`: the JSON path). */
export class GltfFormatError extends SceneLoadError {
  override name = 'GltfFormatError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-gltf', detail, details);
  }
}

/** A malformed lod-meta.json (streamed LOD), or a chunk that does not match it (`property`: the JSON path). */
export class LodFormatError extends SceneLoadError {
  override name = 'LodFormatError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-lod', detail, details);
  }
}

/** The scene would need arrays larger than the platform allows. */
export class TooLargeError extends SceneLoadError {
  override name = 'TooLargeError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'too-large', detail, details);
  }
}

/** Compressed data (gzip, ZSTD, a zip entry, a WebP) that inflates past 1,000x its compressed size. */
export class CompressionBombError extends SceneLoadError {
  override name = 'CompressionBombError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bomb', detail, details);
  }
}

/**
 * A reference a scene makes to another file (`property`: where it is written, e.g.
 * `buffers[0].uri`; `element`: the reference as written) that is refused: not a
 * relative path, a '..' segment, a scheme other than data:, a path that leaves the
 * scene's folder once resolved, or (in Node) not a regular file.
 */
export class BadReferenceError extends SceneLoadError {
  override name = 'BadReferenceError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'bad-reference', detail, details);
  }
}

/** The caller aborted the load. */
export class LoadAbortedError extends SceneLoadError {
  override name = 'LoadAbortedError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'aborted', detail, details);
  }
}

/** The byte source failed (I/O error, network error). */
export class ReadFailedError extends SceneLoadError {
  override name = 'ReadFailedError';
  constructor(file: string, detail: string, details: SceneLoadErrorDetails = {}) {
    super(file, 'read-failed', detail, details);
  }
}
