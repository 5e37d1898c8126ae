/**
 * The panel's "Objects" folder (docs/USAGE.md, 'objects'): scenes of the scene list (or a
 * file) added as placed objects beside the loaded scene (viewer.add), a list to select
 * one (the loaded scene first, viewer.sceneObject, then the objects in the order added),
 * and for the one selected: its position, rotation (Euler degrees, X then Y then Z about
 * the world's axes: object-math.ts) and scale, shown or hidden, removed, exported as PLY
 * or SPZ (viewer.export, a download), and crop mode (its crop box, object.crop, with a
 * handle on each face; reset). The selected object's box, the move gizmo and the crop
 * handles are drawn over the scene by object-overlay.ts; the fields follow the gizmo.
 *
 * The loaded scene is an object like the others; removing it takes it off screen (the
 * added objects stay; opening a scene of the list shows one again).
 */
import type GUI from 'lil-gui';
import type { Controller } from 'lil-gui';
import { GpuBudgetError, type SceneInput, type SplatObject, type Viewer } from '../renderer/api/index';
import { eulerToQuat, quatToEuler, type Box, type V3 } from './object-math';
import { ObjectOverlay, type OverlayTarget } from './object-overlay';
import { downloadBlob } from './screenshot';

export interface ObjectPanelHooks {
  /** The scene list as a dropdown takes it: `{ label: id }`. */
  sceneChoices(): Record<string, string>;
  /** A scene list entry as the viewer takes it (undefined: not in the list). */
  sceneInput(id: string): SceneInput | undefined;
  /** Files chosen with "Add file as object…" (a scene, or a scene and the files it names): into the scene list, then addScene. */
  addFiles(files: FileList): void;
  /** The message line: a failed add or export says why (null: the line leaves). */
  say(text: string | null, kind?: 'error' | 'info'): void;
}

const NONE = 'none';
const SCENE = 'scene';
const round = (x: number, k = 1e4) => Math.round(x * k) / k;

export class ObjectPanel {
  private readonly folder: GUI;
  private readonly overlay: ObjectOverlay;
  /** The selected object (viewer.sceneObject or an added one), or null. */
  private selection: SplatObject | null = null;
  /** What the folder's controls edit. */
  private readonly state = { add: '', object: NONE, px: 0, py: 0, pz: 0, rx: 0, ry: 0, rz: 0, scale: 1, visible: true, crop: false };
  private addControl: Controller;
  private objectControl: Controller;
  private readonly editControls: Controller[] = [];
  private readonly positionControls: Controller[] = [];
  private readonly note: HTMLElement;
  private readonly fileInput: HTMLInputElement;
  /** The list last shown (the loaded scene's object and the added ones): rebuilt when it changes. */
  private listed: { scene: SplatObject | null; objects: SplatObject[] } = { scene: null, objects: [] };
  private stopped = false;

  constructor(
    gui: GUI,
    private readonly viewer: Viewer,
    canvas: HTMLElement,
    private readonly hooks: ObjectPanelHooks,
  ) {
    this.overlay = new ObjectOverlay(canvas, () => viewer.view);
    const folder = gui.addFolder('Objects');
    this.folder = folder;
    this.state.add = Object.values(hooks.sceneChoices())[0] ?? '';
    this.addControl = folder.add(this.state, 'add', hooks.sceneChoices()).name('scene to add');
    folder.add({ add: () => void this.addScene(this.state.add) }, 'add').name('Add as object');
    this.fileInput = document.createElement('input');
    this.fileInput.type = 'file';
    this.fileInput.accept = '.ply,.splat,.spz,.sog,.glb,.gltf,.bin,.json,.webp';
    this.fileInput.multiple = true;
    this.fileInput.hidden = true;
    this.fileInput.addEventListener('change', () => {
      if (this.fileInput.files?.length) hooks.addFiles(this.fileInput.files);
      this.fileInput.value = '';
    });
    folder.domElement.appendChild(this.fileInput);
    folder.add({ file: () => this.fileInput.click() }, 'file').name('Add file as object…');
    this.objectControl = folder.add(this.state, 'object', { '(none)': NONE }).name('selected').onChange((v: string) => this.select(this.selectionOf(v)));

    const sel = folder.addFolder('Selected object');
    const edit = (c: Controller) => (this.editControls.push(c), c);
    for (const k of ['px', 'py', 'pz'] as const) {
      const c = edit(sel.add(this.state, k).step(0.01).name(`position ${k[1]}`).onChange(() => this.applyTransform()));
      this.positionControls.push(c);
    }
    for (const k of ['rx', 'ry', 'rz'] as const) edit(sel.add(this.state, k, -180, 180, 0.5).name(`rotation ${k[1]} (°)`).onChange(() => this.applyTransform()));
    edit(sel.add(this.state, 'scale').min(0.001).step(0.01).name('scale').onChange(() => this.applyTransform()));
    edit(sel.add(this.state, 'visible').name('visible').onChange((v: boolean) => this.setVisible(v)));
    edit(sel.add(this.state, 'crop').name('crop mode').onChange(() => this.showOverlay()));
    edit(sel.add({ reset: () => this.resetCrop() }, 'reset').name('Reset crop'));
    edit(sel.add({ ply: () => void this.export('ply') }, 'ply').name('Export PLY'));
    edit(sel.add({ spz: () => void this.export('spz') }, 'spz').name('Export SPZ'));
    edit(sel.add({ remove: () => this.removeSelected() }, 'remove').name('Remove'));
    this.note = document.createElement('div');
    this.note.className = 'sv-object-note';
    sel.$children.appendChild(this.note);
    this.select(null);
    const tick = () => {
      if (this.stopped) return;
      this.syncList();
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  /** The scene list changed (a scene opened): the "scene to add" dropdown shows it. */
  sceneListChanged(): void {
    const choices = this.hooks.sceneChoices();
    if (!Object.values(choices).includes(this.state.add)) this.state.add = Object.values(choices)[0] ?? '';
    this.addControl = this.addControl.options(choices).name('scene to add');
  }

  /** Adds the scene list's entry `id` as an object (at the identity) and selects it. */
  addScene(id: string): Promise<SplatObject | null> {
    const input = this.hooks.sceneInput(id);
    if (!input) return Promise.resolve(null);
    return this.add(input, id);
  }

  /** The selected object (the loaded scene's, viewer.sceneObject, or an added one), or null. */
  get object(): SplatObject | null {
    return this.selection && !this.selection.removed ? this.selection : null;
  }

  destroy(): void {
    this.stopped = true;
    this.overlay.destroy();
    this.folder.destroy();
  }

  private async add(input: SceneInput, label: string): Promise<SplatObject | null> {
    this.hooks.say(`Adding ${label} as an object…`, 'info');
    try {
      const object = await this.viewer.add(input);
      this.hooks.say(null);
      this.syncList();
      this.select(object);
      return object;
    } catch (e) {
      this.hooks.say(`${label} was not added: ${e instanceof Error ? e.message : String(e)}`, 'error');
      return null;
    }
  }

  /** The list again when the loaded scene or the objects changed (an add, a remove, a load that ended them). */
  private syncList(): void {
    const scene = this.viewer.sceneObject;
    const objects = this.viewer.objects;
    const same = scene === this.listed.scene && objects.length === this.listed.objects.length && objects.every((o, i) => o === this.listed.objects[i]);
    if (same) return;
    this.listed = { scene, objects };
    const choices: Record<string, string> = { '(none)': NONE };
    if (scene) choices[`scene: ${scene.name}`] = SCENE;
    objects.forEach((o, i) => (choices[`${i + 1}. ${o.name}`] = String(i)));
    const s = this.selection;
    if (s && s !== scene && !objects.includes(s)) this.select(null);
    this.state.object = this.valueOf(this.selection);
    this.objectControl = this.objectControl.options(choices).name('selected').onChange((v: string) => this.select(this.selectionOf(v)));
    this.objectControl.updateDisplay();
  }

  private valueOf(s: SplatObject | null): string {
    if (!s) return NONE;
    if (s === this.viewer.sceneObject) return SCENE;
    const i = this.viewer.objects.indexOf(s);
    return i >= 0 ? String(i) : NONE;
  }

  private selectionOf(v: string): SplatObject | null {
    if (v === SCENE) return this.viewer.sceneObject;
    return this.viewer.objects[Number(v)] ?? null;
  }

  /** Selects `s`: its fields, its box over the scene. */
  private select(s: SplatObject | null): void {
    this.selection = s;
    this.state.object = this.valueOf(s);
    this.objectControl.updateDisplay();
    const o = this.object;
    this.state.crop = false;
    if (o) {
      const t = o.transform;
      [this.state.px, this.state.py, this.state.pz] = t.position.map((x) => round(x));
      [this.state.rx, this.state.ry, this.state.rz] = quatToEuler(t.rotation).map((x) => round(x, 100));
      this.state.scale = round(t.scale);
      this.state.visible = o.visible;
    }
    for (const c of this.editControls) c.enable(o !== null).updateDisplay();
    this.note.textContent = o
      ? `${o === this.viewer.sceneObject ? 'The loaded scene (Remove takes it off screen; open a scene to show one again). ' : ''}${o.splats.toLocaleString('en-US')} splats. Rotation: X, then Y, then Z about the world axes. Drag an arrow to move it; crop mode: drag a face.`
      : '';
    this.showOverlay();
  }

  private showOverlay(): void {
    this.overlay.show(this.target(), this.state.crop);
  }

  /** What the overlay draws for the selection. */
  private target(): OverlayTarget | null {
    const o = this.object;
    if (!o) return null;
    return {
      editable: true,
      placement: () => o.transform,
      bounds: () => o.localBounds,
      crop: () => o.crop,
      move: (p: V3) => {
        if (o.removed) return;
        o.transform = { position: p };
        [this.state.px, this.state.py, this.state.pz] = p.map((x) => round(x));
        for (const c of this.positionControls) c.updateDisplay();
      },
      setCrop: (box: Box) => {
        if (!o.removed) o.crop = box;
      },
    };
  }

  private applyTransform(): void {
    const o = this.object;
    if (!o || o.removed) return;
    const { px, py, pz, rx, ry, rz, scale } = this.state;
    o.transform = { position: [px, py, pz], rotation: eulerToQuat([rx, ry, rz]), scale: Math.max(0.001, scale) };
  }

  private setVisible(v: boolean): void {
    const o = this.object;
    if (!o || o.removed) return;
    try {
      o.visible = v;
    } catch (e) {
      // Too big to show with the rest: it stays hidden, the line says why.
      this.state.visible = o.visible;
      this.hooks.say(e instanceof GpuBudgetError ? e.message : `Not shown: ${e instanceof Error ? e.message : String(e)}`, 'error');
      for (const c of this.editControls) c.updateDisplay();
    }
  }

  private resetCrop(): void {
    const o = this.object;
    if (o && !o.removed) o.crop = null;
  }

  private removeSelected(): void {
    const o = this.object;
    if (!o) return;
    o.remove();
    this.select(null);
    this.syncList();
  }

  private async export(format: 'ply' | 'spz'): Promise<void> {
    const o = this.object;
    if (!o || o.removed) return;
    try {
      const blob = await this.viewer.export(o, format);
      downloadBlob(blob, `${o.name.replace(/\.[a-z0-9]+$/i, '').replace(/[^a-z0-9_-]+/gi, '-') || 'object'}.${format}`);
    } catch (e) {
      this.hooks.say(`Export failed: ${e instanceof Error ? e.message : String(e)}`, 'error');
    }
  }
}
