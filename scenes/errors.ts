/**
 * The one error type every scene loader throws for bad input, so that callers
 * (the CLI, the GUI's file picker, tests) can report a file problem in one
 * line and tell it apart from a bug in the program.
 */

/**
 * What went wrong, coarse enough to branch on:
 * - `not-ply`: the bytes do not start with the PLY magic line.
 * - `bad-header`: the header is malformed (no `end_header`, unknown keyword or
 *   type, bad count, duplicate property...).
 * - `truncated`: the body is shorter than the header declares.
 * - `missing-element`: a required element (e.g. `vertex`) is not declared.
 * - `missing-property`: a required property is not declared.
 * - `bad-sh`: the `f_rest_*` properties do not make a whole SH degree 0..3.
 * - `unsupported`: valid PLY that this loader does not read (e.g. a list
 *   property on the vertex element).
 * - `bad-data`: the body could not be decoded (e.g. a malformed ASCII body).
 */
export type SceneLoadErrorCode =
  | 'not-ply'
  | 'bad-header'
  | 'truncated'
  | 'missing-element'
  | 'missing-property'
  | 'bad-sh'
  | 'unsupported'
  | 'bad-data';

/** Optional location details of a {@link SceneLoadError}. */
export interface SceneLoadErrorDetails {
  /** The property the problem is about, when there is one. */
  property?: string;
  /** Byte offset in the file where the problem is, when it is known. */
  byteOffset?: number;
  /** The underlying error, when this one wraps another. */
  cause?: unknown;
}

/**
 * A problem with a scene file (not a bug in the loader). Its message is one
 * line: `FILE: CODE: DETAIL`, where DETAIL names the property and byte offset
 * where they apply.
 */
export class SceneLoadError extends Error {
  override name = 'SceneLoadError';
  /** The file name the caller gave the loader. */
  readonly file: string;
  /** The kind of problem. */
  readonly code: SceneLoadErrorCode;
  /** The property the problem is about, when there is one. */
  readonly property?: string;
  /** Byte offset in the file where the problem is, when known. */
  readonly byteOffset?: number;

  /**
   * @param file - name of the file, as given to the loader
   * @param code - the kind of problem
   * @param detail - what is wrong, naming the property and byte offset where
   *   they apply (newlines are folded so the message stays one line)
   * @param details - structured property / byte offset / cause
   */
  constructor(file: string, code: SceneLoadErrorCode, detail: string, details: SceneLoadErrorDetails = {}) {
    super(`${file}: ${code}: ${detail}`.replace(/\s*[\r\n]+\s*/g, ' '), details.cause === undefined ? undefined : { cause: details.cause });
    this.file = file;
    this.code = code;
    if (details.property !== undefined) this.property = details.property;
    if (details.byteOffset !== undefined) this.byteOffset = details.byteOffset;
  }
}
