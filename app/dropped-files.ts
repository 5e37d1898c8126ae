/**
 * The files of a drop or a file dialog, with their paths: a dropped folder is
 * read whole (webkitGetAsEntry, its subfolders too), so that an unbundled
 * SOG's folder or a .gltf with its .bin opens as one scene (scene-files.ts
 * picks which file is the scene).
 */

export interface PathedFile {
  /** The path within what was dropped ("room/meta.json"), or the bare name. */
  path: string;
  file: File;
}

/** Most files read from a dropped folder (a scene's folder holds a handful). */
const MAX_FILES = 1000;

/** The files a drop carries, folders read recursively; entries that fail to read are left out. */
export async function droppedFiles(dt: DataTransfer): Promise<PathedFile[]> {
  // Entries must be taken during the drop event, before any await.
  const entries = Array.from(dt.items ?? [], (item) => (item.kind === 'file' ? item.webkitGetAsEntry?.() ?? null : null));
  if (entries.length === 0 || entries.some((e) => e === null)) return fromList(dt.files);
  const out: PathedFile[] = [];
  const visit = async (entry: FileSystemEntry): Promise<void> => {
    if (out.length >= MAX_FILES) return;
    if (entry.isFile) {
      const file = await new Promise<File | null>((res) => (entry as FileSystemFileEntry).file(res, () => res(null)));
      if (file) out.push({ path: entry.fullPath.replace(/^\/+/, ''), file });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries gives a batch at a time, until an empty one.
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res) => reader.readEntries(res, () => res([])));
        if (batch.length === 0) break;
        for (const e of batch) await visit(e);
      }
    }
  };
  for (const e of entries) await visit(e!);
  return out;
}

/** A FileList (the file dialog, with `multiple`): bare names, or the folder path where the browser gives one. */
export function fromList(list: FileList | null | undefined): PathedFile[] {
  return Array.from(list ?? [], (file) => ({ path: file.webkitRelativePath || file.name, file }));
}
