/**
 * The view in the URL hash (view-url.ts): written every 500 ms while the view
 * changes (replaceState: no history entry per move); a hash the page did not
 * write (the user's edit, back / forward, a pasted link) is applied instead:
 * its pose, or its scene opened first when it was saved for another. The camera
 * path, when there is one, rides along as the hash's `path=` entry (its short form,
 * docs/PATHS.md): `#cam=...&scene=...&path=...`; a hash with one sets the page's path.
 * The page's own entries ride after it (the ruler's `&ruler=...`, ruler-hash.ts): the
 * host gives them (extraEntries) and reads them back from every hash applied (hashApplied).
 */
import { decodePathHash, encodePathHash, type CameraPath, type CameraPose } from '../renderer/api/index';
import type { SceneSource } from './scene-list';
import { decodeViewState, encodeViewHash, sceneIdIsUrl, viewAppliesTo, type ViewState } from './view-url';

export interface HashHost {
  sceneId(): string | null;
  applyPose(pose: CameraPose): void;
  /** The source of a scene opened earlier in the visit, by its identity. */
  sceneSource(id: string): SceneSource | undefined;
  open(source: SceneSource): void;
  busy(): boolean;
  /** The page's camera path, or null. */
  path(): CameraPath | null;
  /** A path from the hash (a link, the user's edit). */
  applyPath(path: CameraPath): void;
  /** A hash whose path entry is not a valid path: the reason (CameraPathError's message). */
  badPath(message: string): void;
  /** The page's own entries after the view's and the path's (`ruler=...`); none: []. */
  extraEntries?(): string[];
  /** The hash at start, or one the page did not write: the page's own entries read theirs from it. */
  hashApplied?(hash: string): void;
}

/** The view's hash with the path's entry after it (none without a path). */
export function withPathEntry(viewHash: string, path: CameraPath | null): string {
  return path ? `${viewHash}&${encodePathHash(path).slice(1)}` : viewHash;
}

export class HashSync {
  /** The hash as this page last wrote or applied it: anything else is the user's edit. */
  private known = '';
  private written = 0;
  /** A view from the hash waiting for the scene it was saved for. */
  pending: ViewState | null = null;

  constructor(private readonly host: HashHost) {
    window.addEventListener('hashchange', (e) => this.apply(new URL(e.newURL).hash));
  }

  /** The view at start (before the first scene opens). */
  start(): ViewState | null {
    const view = decodeViewState(location.hash);
    this.known = location.hash;
    this.pending = view;
    this.applyPath(location.hash);
    this.host.hashApplied?.(location.hash);
    return view;
  }

  /** The hash's path entry, if any, becomes the page's path (a bad one is reported, the path kept). */
  private applyPath(hash: string): void {
    try {
      const path = decodePathHash(hash);
      if (path) this.host.applyPath(path);
    } catch (e) {
      this.host.badPath(e instanceof Error ? e.message : String(e));
    }
  }

  /** A scene `id` is on screen: the pending view applies if it was saved for it. */
  sceneShown(id: string): void {
    const saved = this.pending;
    this.pending = null;
    if (saved && viewAppliesTo(saved, id)) this.host.applyPose(saved.pose);
  }

  sync(now: number, pose: CameraPose): void {
    if (location.hash !== this.known) {
      this.apply(location.hash);
      return;
    }
    if (now - this.written < 500) return;
    this.written = now;
    const hash = [withPathEntry(encodeViewHash(pose, this.host.sceneId()), this.host.path()), ...(this.host.extraEntries?.() ?? [])].join('&');
    if (location.hash !== hash) {
      history.replaceState(null, '', hash);
      this.known = location.hash;
    }
  }

  private apply(hash: string): void {
    if (hash === this.known) return;
    this.known = hash;
    this.host.hashApplied?.(hash);
    if (!this.host.busy()) this.applyPath(hash);
    const view = decodeViewState(hash);
    if (!view || this.host.busy()) return;
    if (viewAppliesTo(view, this.host.sceneId() ?? '')) {
      this.host.applyPose(view.pose);
      return;
    }
    // Another scene's view: open that scene when the page can, then apply it.
    const entry = view.scene ? this.host.sceneSource(view.scene) : undefined;
    const source: SceneSource | null = entry ?? (view.scene && sceneIdIsUrl(view.scene) ? { kind: 'url', url: view.scene } : null);
    if (!source) return;
    this.pending = view;
    this.host.open(source);
  }
}
