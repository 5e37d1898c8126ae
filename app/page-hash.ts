/**
 * The view in the URL hash (view-url.ts): written every 500 ms while the view
 * changes (replaceState: no history entry per move); a hash the page did not
 * write (the user's edit, back / forward, a pasted link) is applied instead:
 * its pose, or its scene opened first when it was saved for another.
 */
import type { CameraPose } from '../renderer/api/index';
import type { SceneSource } from './scene-list';
import { decodeViewState, encodeViewHash, sceneIdIsUrl, viewAppliesTo, type ViewState } from './view-url';

export interface HashHost {
  sceneId(): string | null;
  applyPose(pose: CameraPose): void;
  /** The source of a scene opened earlier in the visit, by its identity. */
  sceneSource(id: string): SceneSource | undefined;
  open(source: SceneSource): void;
  busy(): boolean;
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
    return view;
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
    const hash = encodeViewHash(pose, this.host.sceneId());
    if (location.hash !== hash) {
      history.replaceState(null, '', hash);
      this.known = location.hash;
    }
  }

  private apply(hash: string): void {
    if (hash === this.known) return;
    this.known = hash;
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
