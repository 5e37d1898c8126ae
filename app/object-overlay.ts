/**
 * The object panel's overlay (object-panel.ts): an SVG above the WebGPU canvas, drawn
 * again every animation frame with the viewer's camera (object-math.ts projects), that
 * shows the selected object's box (its bounds within its crop, oriented by its
 * transform) and either the move gizmo (three world-axis arrows at its position) or,
 * in crop mode, its crop box with a handle on each face.
 *
 * Dragging an arrow moves the object along that axis, dragging a face handle moves that
 * face of the crop box along its normal: the drag projected onto the axis's direction
 * on the screen (object-math.ts axisDragDistance, dragFace). The SVG takes pointer
 * events on its handles only (the rest of it lets them through to the canvas); a handle
 * captures the pointer, so the camera does not orbit during a drag. Handles carry
 * `data-handle` (`axis-x`.. `axis-z`, `face-x-min`.. `face-z-max`) for the tests.
 */
import { axisDragDistance, BOX_EDGES, boxCorners, croppedBox, dragFace, FACES, faceCenter, faceName, project, screenCamera, toWorld, worldPerPixels, type Box, type Face, type Placement, type ScreenCamera, type V3 } from './object-math';

const SVG = 'http://www.w3.org/2000/svg';
const AXIS_COLOURS = ['#ff5050', '#50e050', '#5090ff'];
/** The arrows' length on the screen, CSS pixels. */
const ARROW_PX = 70;

/** What the overlay draws: the selected thing and how. */
export interface OverlayTarget {
  /** Where it is (the loaded scene: the identity). */
  placement(): Placement;
  /** Its splats' bounds in its own frame. */
  bounds(): Box;
  /** Its crop box in its own frame, or null. */
  crop(): Box | null;
  /** Whether it can be moved and cropped (every object the panel selects is: the loaded scene too). */
  readonly editable: boolean;
  /** The gizmo moved it to `position`. */
  move(position: V3): void;
  /** A face handle set its crop box. */
  setCrop(box: Box): void;
}

type Drag = { kind: 'axis'; axis: 0 | 1 | 2; start: V3; x: number; y: number } | { kind: 'face'; face: Face; start: Box; x: number; y: number };

export class ObjectOverlay {
  readonly svg: SVGSVGElement;
  private target: OverlayTarget | null = null;
  private cropMode = false;
  private drag: Drag | null = null;
  private readonly boxPath: SVGPathElement;
  private readonly cropPath: SVGPathElement;
  private readonly arrows: { line: SVGLineElement; tip: SVGCircleElement }[] = [];
  private readonly faces: SVGRectElement[] = [];
  private stopped = false;
  /** Nothing is drawn (hideAll ran since the last draw): nothing to write each frame. */
  private blank = false;

  constructor(
    private readonly canvas: HTMLElement,
    private readonly pose: () => { eye: readonly number[]; target: readonly number[]; up: readonly number[]; fovyDeg: number },
  ) {
    const svg = document.createElementNS(SVG, 'svg');
    svg.id = 'object-overlay';
    svg.style.cssText = 'position:fixed;pointer-events:none;overflow:visible;z-index:1;';
    this.svg = svg;
    this.boxPath = this.el('path', { fill: 'none', stroke: '#ffd24a', 'stroke-width': '1.5', 'stroke-opacity': '0.9' });
    this.cropPath = this.el('path', { fill: 'none', stroke: '#ff8c1a', 'stroke-width': '2', 'stroke-dasharray': '6 3' });
    for (let a = 0; a < 3; a++) {
      const line = this.el('line', { stroke: AXIS_COLOURS[a]!, 'stroke-width': '4', 'stroke-linecap': 'round' });
      const tip = this.el('circle', { r: '8', fill: AXIS_COLOURS[a]!, stroke: '#000', 'stroke-width': '1' });
      for (const part of [line, tip]) this.handle(part, `axis-${'xyz'[a]}`, (e) => this.startAxis(e, a as 0 | 1 | 2));
      this.arrows.push({ line, tip });
    }
    for (const face of FACES) {
      const rect = this.el('rect', { width: '12', height: '12', fill: AXIS_COLOURS[face.axis]!, stroke: '#fff', 'stroke-width': '1.5' });
      this.handle(rect, `face-${faceName(face)}`, (e) => this.startFace(e, face));
      this.faces.push(rect);
    }
    canvas.after(svg);
    this.hideAll();
    const frame = () => {
      if (this.stopped) return;
      this.draw();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  /** Shows `target` (null: nothing), with its crop box and face handles in crop mode, else the move gizmo. */
  show(target: OverlayTarget | null, cropMode: boolean): void {
    this.target = target;
    this.cropMode = cropMode;
    this.drag = null;
    this.draw();
  }

  /** A drag is in progress. */
  get dragging(): boolean {
    return this.drag !== null;
  }

  destroy(): void {
    this.stopped = true;
    this.svg.remove();
  }

  private el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string>): SVGElementTagNameMap[K] {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    this.svg.appendChild(e);
    return e;
  }

  /** A draggable part: takes the pointer (the canvas below never sees the drag), moves with it, lets go. */
  private handle(part: SVGElement, name: string, start: (e: PointerEvent) => void): void {
    part.dataset.handle = name;
    part.style.pointerEvents = 'auto';
    part.style.cursor = 'grab';
    part.addEventListener('pointerdown', (e) => {
      if (e.button !== 0 || !this.target?.editable) return;
      e.preventDefault();
      e.stopPropagation();
      part.setPointerCapture(e.pointerId);
      start(e);
    });
    part.addEventListener('pointermove', (e) => {
      if (!this.drag || !part.hasPointerCapture(e.pointerId)) return;
      e.stopPropagation();
      this.dragTo(e.clientX, e.clientY);
    });
    const end = (e: PointerEvent) => {
      if (part.hasPointerCapture(e.pointerId)) part.releasePointerCapture(e.pointerId);
      this.drag = null;
    };
    part.addEventListener('pointerup', end);
    part.addEventListener('pointercancel', end);
  }

  private startAxis(e: PointerEvent, axis: 0 | 1 | 2): void {
    const p = this.target!.placement().position;
    this.drag = { kind: 'axis', axis, start: [p[0]!, p[1]!, p[2]!], x: e.clientX, y: e.clientY };
  }

  private startFace(e: PointerEvent, face: Face): void {
    const t = this.target!;
    const box = t.crop() ?? t.bounds();
    this.drag = { kind: 'face', face, start: { min: [...box.min], max: [...box.max] }, x: e.clientX, y: e.clientY };
  }

  private camera(): { cam: ScreenCamera; left: number; top: number } {
    const r = this.canvas.getBoundingClientRect();
    return { cam: screenCamera(this.pose(), Math.max(1, r.width), Math.max(1, r.height)), left: r.left, top: r.top };
  }

  private dragTo(x: number, y: number): void {
    const d = this.drag;
    const t = this.target;
    if (!d || !t) return;
    const { cam } = this.camera();
    const px: [number, number] = [x - d.x, y - d.y];
    if (d.kind === 'axis') {
      const dir: V3 = [0, 0, 0];
      dir[d.axis] = 1;
      const s = axisDragDistance(cam, d.start, dir, px);
      const pos: V3 = [...d.start];
      pos[d.axis] += s;
      t.move(pos);
    } else {
      t.setCrop(dragFace(cam, t.placement(), d.start, d.face, px));
    }
    this.draw();
  }

  private hideAll(): void {
    if (this.blank) return;
    this.blank = true;
    this.boxPath.setAttribute('d', '');
    this.cropPath.setAttribute('d', '');
    for (const a of this.arrows) {
      a.line.style.display = 'none';
      a.tip.style.display = 'none';
    }
    for (const f of this.faces) f.style.display = 'none';
  }

  /** Everything again for the camera now. */
  private draw(): void {
    const t = this.target;
    if (!t) {
      this.hideAll();
      return;
    }
    this.blank = false;
    const { cam, left, top } = this.camera();
    const s = this.svg.style;
    s.left = `${left}px`;
    s.top = `${top}px`;
    s.width = `${cam.width}px`;
    s.height = `${cam.height}px`;
    const place = t.placement();
    const bounds = t.bounds();
    const crop = t.crop();
    this.boxPath.setAttribute('d', boxPathData(cam, place, croppedBox(bounds, crop)));
    const cropBox = this.cropMode && t.editable ? crop ?? bounds : null;
    this.cropPath.setAttribute('d', cropBox ? boxPathData(cam, place, cropBox) : '');
    FACES.forEach((face, i) => {
      const rect = this.faces[i]!;
      const at = cropBox ? project(cam, toWorld(place, faceCenter(cropBox, face))) : null;
      rect.style.display = at ? '' : 'none';
      if (at) {
        rect.setAttribute('x', String(at.x - 6));
        rect.setAttribute('y', String(at.y - 6));
      }
    });
    const origin = project(cam, place.position);
    const gizmo = t.editable && !this.cropMode && origin !== null;
    for (let a = 0; a < 3; a++) {
      const { line, tip } = this.arrows[a]!;
      line.style.display = gizmo ? '' : 'none';
      tip.style.display = gizmo ? '' : 'none';
      if (!gizmo) continue;
      const dir: V3 = [0, 0, 0];
      dir[a] = worldPerPixels(cam, origin.depth, ARROW_PX);
      const end = project(cam, [place.position[0]! + dir[0], place.position[1]! + dir[1], place.position[2]! + dir[2]]);
      const e = end ?? origin;
      line.setAttribute('x1', String(origin.x));
      line.setAttribute('y1', String(origin.y));
      line.setAttribute('x2', String(e.x));
      line.setAttribute('y2', String(e.y));
      tip.setAttribute('cx', String(e.x));
      tip.setAttribute('cy', String(e.y));
    }
  }
}

/** A box of the object's frame placed in the world, as SVG path data of its 12 edges (an edge with an end behind the eye left out). */
function boxPathData(cam: ScreenCamera, place: Placement, box: Box): string {
  const pts = boxCorners(box).map((c) => project(cam, toWorld(place, c)));
  let d = '';
  for (const [i, j] of BOX_EDGES) {
    const a = pts[i];
    const b = pts[j];
    if (a && b) d += `M${a.x.toFixed(1)} ${a.y.toFixed(1)}L${b.x.toFixed(1)} ${b.y.toFixed(1)}`;
  }
  return d;
}

