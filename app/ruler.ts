/**
 * The ruler (docs/USAGE.md, 'measuring'): the panel's "Measure" folder. In measure mode
 * a click on the scene (a press and release without a drag: a drag still orbits) picks
 * the surface under the pointer on the GPU (viewer.pick); two clicks make a measurement,
 * a third starts the next. Its distance is shown in scene units, or in a real unit once
 * a scale is set: type the real length of the measurement on screen ('real length', with
 * its 'unit'), and every distance is scaled by real length / scene length from then on.
 * The two points, the line and the distance are drawn over the scene by an SVG above the
 * canvas, placed again every animation frame with the viewer's camera (viewer.project),
 * so that they stick to the scene while the camera moves. Esc leaves measure mode; a
 * double-click there places points rather than focusing.
 *
 * The measurement and the scale ride in the URL hash after the view (ruler-hash.ts,
 * page-hash.ts): a link or a reload shows the ruler again.
 */
import type GUI from 'lil-gui';
import type { Controller } from 'lil-gui';
import type { PickResult, ScreenPoint } from '../renderer/api/index';
import { decodeRulerHash, encodeRulerEntry, formatDistance, MAX_UNIT, sceneDistance, type V3 } from './ruler-hash';

const SVG = 'http://www.w3.org/2000/svg';
/** A press that moves more than this (CSS px) before its release is a drag, not a click. */
const CLICK_SLOP = 5;
const IDLE_NAME = 'Measure (click two points)';
const ACTIVE_NAME = 'Stop measuring (Esc)';

/** What the ruler needs of the viewer. */
export interface RulerViewer {
  pick(x: number, y: number): Promise<PickResult | null>;
  project(p: ArrayLike<number>): ScreenPoint | null;
}

export class Ruler {
  /** The measurement's points (world, scene units): none, the first, or both. */
  points: V3[] = [];
  /** Real units per scene unit, or null (distances in scene units). */
  scale: number | null = null;
  unit = 'm';
  /** Clicks in measure mode so far, and those where nothing was under the pointer (no point placed). */
  clicks = 0;
  misses = 0;
  private measuringNow = false;
  private readonly folder: GUI;
  private readonly ui = { measure: () => this.setMeasuring(!this.measuringNow), distance: '—', 'real length': 0, unit: 'm', clear: () => this.clear() };
  private readonly measureButton: Controller;
  private readonly distanceField: Controller;
  private readonly lengthField: Controller;
  private readonly svg: SVGSVGElement;
  private readonly line: SVGLineElement;
  private readonly halo: SVGLineElement;
  private readonly dots: SVGCircleElement[];
  private readonly label: SVGTextElement;
  private press: { x: number; y: number; id: number } | null = null;
  /** Picks in flight, one after the other (a click's point lands in click order). */
  private picking: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly listeners: [EventTarget, string, EventListener, boolean][] = [];

  constructor(
    gui: GUI,
    private readonly viewer: RulerViewer,
    private readonly canvas: HTMLElement,
  ) {
    this.folder = gui.addFolder('Measure');
    this.folder.close();
    this.measureButton = this.folder.add(this.ui, 'measure').name(IDLE_NAME);
    this.distanceField = this.folder.add(this.ui, 'distance').name('distance').disable();
    this.lengthField = this.folder
      .add(this.ui, 'real length')
      .name('real length')
      .onFinishChange((v: number) => this.setRealLength(Number(v)));
    this.folder
      .add(this.ui, 'unit')
      .name('unit')
      .onFinishChange((v: string) => {
        this.unit = String(v).trim().slice(0, MAX_UNIT);
        this.changed();
      });
    this.folder.add(this.ui, 'clear').name('clear the ruler');

    const svg = (this.svg = document.createElementNS(SVG, 'svg'));
    svg.id = 'ruler-overlay';
    svg.style.cssText = 'position:fixed;pointer-events:none;overflow:visible;z-index:1;';
    this.halo = this.el('line', { stroke: '#000', 'stroke-width': '5', 'stroke-opacity': '0.6', 'stroke-linecap': 'round' });
    this.line = this.el('line', { stroke: '#ffe14a', 'stroke-width': '2', 'stroke-linecap': 'round' });
    this.dots = [0, 1].map((k) => {
      const c = this.el('circle', { r: '5', fill: '#ffe14a', stroke: '#000', 'stroke-width': '1.5' });
      c.dataset.point = String(k);
      return c;
    });
    this.label = this.el('text', { fill: '#fff', stroke: '#000', 'stroke-width': '3', 'paint-order': 'stroke', 'font-size': '14', 'font-family': 'system-ui, sans-serif', 'text-anchor': 'middle' });
    this.label.id = 'ruler-label';
    canvas.after(svg);

    this.on(canvas, 'pointerdown', (e) => this.onDown(e as PointerEvent));
    this.on(canvas, 'pointerup', (e) => this.onUp(e as PointerEvent));
    // In measure mode a double-click places points; it does not focus (input.ts listens after this).
    this.on(canvas, 'dblclick', (e) => this.measuringNow && e.stopImmediatePropagation(), true);
    this.on(window, 'keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Escape' && this.measuringNow) this.setMeasuring(false);
    });
    const frame = () => {
      if (this.stopped) return;
      this.draw();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    this.changed();
  }

  /** Measure mode: clicks on the scene place points. */
  get measuring(): boolean {
    return this.measuringNow;
  }

  setMeasuring(on: boolean): void {
    this.measuringNow = on;
    this.measureButton.name(on ? ACTIVE_NAME : IDLE_NAME);
    this.canvas.style.cursor = on ? 'crosshair' : '';
    if (on) this.folder.open();
  }

  /** The measurement's length in scene units, or null without two points. */
  get sceneLength(): number | null {
    return this.points.length === 2 ? sceneDistance(this.points[0]!, this.points[1]!) : null;
  }

  /** The distance as shown ('1.234 m', '0.5 units'), or null without two points. */
  get distanceText(): string | null {
    const d = this.sceneLength;
    return d === null ? null : formatDistance(d, this.scale, this.unit);
  }

  /** Places the next point at the surface under CSS pixel (x, y) of the canvas; false where there is none. */
  async clickAt(x: number, y: number): Promise<boolean> {
    const hit = await this.viewer.pick(x, y);
    if (!hit) return false;
    if (this.points.length === 2) this.points = [];
    this.points.push([...hit.point]);
    this.changed();
    return true;
  }

  /** The real length of the measurement on screen sets the scale (real units per scene unit). */
  setRealLength(length: number): void {
    const d = this.sceneLength;
    if (!(length > 0) || d === null || !(d > 0)) return;
    this.scale = length / d;
    this.changed();
  }

  clear(): void {
    this.points = [];
    this.scale = null;
    this.changed();
  }

  /** The hash entries of the ruler (page-hash.ts): none without a measurement. */
  hashEntries(): string[] {
    const [a, b] = this.points;
    return a && b ? [encodeRulerEntry({ a, b, scale: this.scale, unit: this.unit })] : [];
  }

  /** A hash applied (the start's, a link's, the user's edit): its measurement, or none. */
  applyHash(hash: string): void {
    const r = decodeRulerHash(hash);
    const had = this.points.length === 2;
    if (!r && !had) return;
    this.points = r ? [r.a, r.b] : [];
    if (r) {
      this.scale = r.scale;
      this.unit = r.unit || this.unit;
      this.folder.open();
    }
    this.changed();
  }

  destroy(): void {
    this.stopped = true;
    for (const [t, type, f, capture] of this.listeners) t.removeEventListener(type, f, capture);
    this.svg.remove();
    this.folder.destroy();
  }

  private on(target: EventTarget, type: string, f: EventListener, capture = false): void {
    target.addEventListener(type, f, capture);
    this.listeners.push([target, type, f, capture]);
  }

  private onDown(e: PointerEvent): void {
    this.press = this.measuringNow && e.button === 0 && e.isPrimary ? { x: e.clientX, y: e.clientY, id: e.pointerId } : null;
  }

  private onUp(e: PointerEvent): void {
    const p = this.press;
    this.press = null;
    if (!p || !this.measuringNow || e.pointerId !== p.id || Math.hypot(e.clientX - p.x, e.clientY - p.y) > CLICK_SLOP) return;
    const r = this.canvas.getBoundingClientRect();
    const [x, y] = [e.clientX - r.left, e.clientY - r.top];
    this.picking = this.picking.then(() =>
      this.clickAt(x, y).then(
        (hit) => {
          this.clicks++;
          if (!hit) this.misses++;
        },
        () => {
          this.clicks++;
          this.misses++;
        },
      ),
    );
  }

  /** The panel's fields follow the measurement. */
  private changed(): void {
    this.ui.distance = this.distanceText ?? (this.points.length === 1 ? 'click the second point' : '—');
    this.ui.unit = this.unit;
    const d = this.sceneLength;
    this.ui['real length'] = d === null ? 0 : Number((d * (this.scale ?? 1)).toPrecision(6));
    this.distanceField.updateDisplay();
    this.lengthField.updateDisplay();
    for (const c of this.folder.controllers) c.updateDisplay();
    this.draw();
  }

  private el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string>): SVGElementTagNameMap[K] {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    this.svg.appendChild(e);
    return e;
  }

  /** The points, the line and the label where the camera on screen sees them. */
  private draw(): void {
    const r = this.canvas.getBoundingClientRect();
    Object.assign(this.svg.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
    const at = this.points.map((p) => this.viewer.project(p));
    this.dots.forEach((c, k) => {
      const s = at[k];
      c.style.display = s ? '' : 'none';
      if (s) {
        c.setAttribute('cx', s.x.toFixed(1));
        c.setAttribute('cy', s.y.toFixed(1));
      }
    });
    const [a, b] = at;
    const both = !!(a && b);
    for (const l of [this.halo, this.line]) {
      l.style.display = both ? '' : 'none';
      if (a && b) {
        l.setAttribute('x1', a.x.toFixed(1));
        l.setAttribute('y1', a.y.toFixed(1));
        l.setAttribute('x2', b.x.toFixed(1));
        l.setAttribute('y2', b.y.toFixed(1));
      }
    }
    const text = this.distanceText;
    this.label.style.display = a && b && text ? '' : 'none';
    if (a && b && text) {
      this.label.textContent = text;
      this.label.setAttribute('x', ((a.x + b.x) / 2).toFixed(1));
      this.label.setAttribute('y', ((a.y + b.y) / 2 - 10).toFixed(1));
      this.label.dataset.sceneLength = String(this.sceneLength);
    }
  }
}
