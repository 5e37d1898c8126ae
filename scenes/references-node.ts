/**
 * The files a scene names, read from beside it in Node (the CLI: info, render,
 * bench), under the rule of scenes/references.ts and then some that only a file
 * system has: the path is resolved against the scene's folder with symbolic links
 * followed (realpath) and must stay under the folder's own real path; only a
 * regular file is opened (stat first, so a FIFO, a device such as /dev/zero or
 * /dev/stdin, a socket or a folder is refused before open), its size is known
 * before reading and must fit the load's memory budget, and exactly that many
 * bytes are read. Kept apart from references.ts so that the page's bundle never
 * sees a node: import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BadReferenceError, TooLargeError } from './errors';
import { formatBytes } from './budget';
import { memoryBudgetOf, type LoadOptions } from './load-options';
import { referenceProblem, shownReference } from './references';

/** What a FileGetter (loadScene's getFile) for the files beside `scenePath` throws and reads. */
export type NodeSceneFileGetter = (name: string) => Promise<Uint8Array>;

/**
 * A getFile for loadScene / loadSceneStream that reads the files a scene at
 * `scenePath` names, from its folder only.
 *
 * @param options - `memoryBudget`: the largest file read (default 4 GB)
 * @returns a getter that rejects with BadReferenceError (outside the folder, not a
 *   regular file), TooLargeError (past the budget) or a plain Error (missing: the
 *   loader wraps it in a ReadFailedError naming the reference)
 */
export function nodeSceneFileGetter(scenePath: string, options?: LoadOptions): NodeSceneFileGetter {
  const file = path.basename(scenePath);
  const folder = path.dirname(path.resolve(scenePath));
  const maxBytes = memoryBudgetOf(options);
  let realFolder: Promise<string> | null = null;
  const refuse = (name: string, why: string): BadReferenceError =>
    new BadReferenceError(file, `${shownReference(name)} is refused: ${why}; a scene may name only regular files inside its own folder`, { element: name });
  return async (name) => {
    const why = referenceProblem(name, false);
    if (why !== null) throw refuse(name, why);
    const root = await (realFolder ??= fs.promises.realpath(folder));
    const target = path.resolve(root, ...name.split('/'));
    if (!isInside(root, target)) throw refuse(name, `it resolves to ${target}, outside ${root}`);
    let real: string;
    try {
      real = await fs.promises.realpath(target);
    } catch (e) {
      throw new Error(`${(e as NodeJS.ErrnoException).code ?? 'cannot resolve'}: no file ${name} in ${root}`);
    }
    if (!isInside(root, real)) throw refuse(name, `it is a link to ${real}, outside ${root}`);
    const st = await fs.promises.stat(real);
    if (!st.isFile()) throw refuse(name, `it is ${kindOf(st)}, not a regular file`);
    if (st.size > maxBytes) throw new TooLargeError(file, `${shownReference(name)} is ${formatBytes(st.size)}, more than the memory budget of ${formatBytes(maxBytes)} (LoadOptions.memoryBudget)`, { element: name });
    // O_NONBLOCK: should the path have become a FIFO since the stat, open does not wait for a writer.
    const fh = await fs.promises.open(real, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      const st2 = await fh.stat();
      if (!st2.isFile() || st2.ino !== st.ino || st2.dev !== st.dev) throw refuse(name, 'it changed while it was opened');
      const size = Math.min(st.size, st2.size);
      const out = new Uint8Array(size);
      let at = 0;
      while (at < size) {
        const { bytesRead } = await fh.read(out, at, size - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return at === size ? out : out.subarray(0, at);
    } finally {
      await fh.close();
    }
  };
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a plain file';
}
