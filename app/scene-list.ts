/**
 * The scenes offered in the panel's scene list: the generated ones, then every
 * scene opened during the visit (files, URLs), so that going back to one is a
 * click. A file is kept as its File handle (no copy of its bytes), a URL as the URL.
 *
 * Each scene has an identity, written into the view hash (view-url.ts) so a view is
 * only applied to the scene it was saved for:
 *   generated  `default`, `default:3000`, `synthetic:100000`
 *   URL        the URL as given (`?scene=` / the hash can reopen it)
 *   file       `file:NAME` (cannot be reopened from a link, only matched)
 */

export type SceneSource =
  | { kind: 'generated'; spec: string }
  | { kind: 'url'; url: string }
  // A file opened with others (a SOG's folder, a .gltf and its .bin): its path among them, and them by path (scene-files.ts).
  | { kind: 'file'; file: Blob & { name: string }; companions?: { mainPath: string; files: Record<string, Blob> } };

export interface SceneEntry {
  id: string;
  /** What the list shows (unique). */
  label: string;
  source: SceneSource;
}

/** The identity of a scene source (see the module comment). */
export function sceneIdOf(source: SceneSource): string {
  switch (source.kind) {
    case 'generated':
      return source.spec;
    case 'url':
      return source.url;
    case 'file':
      return `file:${source.companions?.mainPath ?? source.file.name}`;
  }
}

function baseLabel(source: SceneSource): string {
  switch (source.kind) {
    case 'generated':
      return source.spec;
    case 'url': {
      const last = source.url.split('?')[0].split('/').filter(Boolean).pop() ?? source.url;
      try {
        return decodeURIComponent(last);
      } catch {
        return last;
      }
    }
    case 'file':
      return source.companions?.mainPath ?? source.file.name;
  }
}

export class SceneList {
  private readonly entries: SceneEntry[] = [];

  constructor(generated: readonly string[]) {
    for (const spec of generated) this.add({ kind: 'generated', spec });
  }

  /**
   * Adds a source (or refreshes the one with the same identity: a file opened
   * again replaces the kept handle) and returns its entry.
   */
  add(source: SceneSource): SceneEntry {
    const id = sceneIdOf(source);
    const existing = this.entries.find((e) => e.id === id);
    if (existing) {
      existing.source = source;
      return existing;
    }
    const base = baseLabel(source);
    let label = base;
    for (let k = 2; this.entries.some((e) => e.label === label); k++) label = `${base} (${k})`;
    const entry = { id, label, source };
    this.entries.push(entry);
    return entry;
  }

  get(id: string): SceneEntry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  /** The entries in the order added. */
  all(): readonly SceneEntry[] {
    return this.entries;
  }

  /** `{ label: id }` for the panel's dropdown, in the order added. */
  options(): Record<string, string> {
    return Object.fromEntries(this.entries.map((e) => [e.label, e.id]));
  }
}
