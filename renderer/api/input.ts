/**
 * Pointer, wheel, touch and keyboard wiring of the CameraController: the DOM half
 * of the camera controls (docs/UX.md, 'Camera and input').
 */
import { CameraController } from '../camera/controller';
import { type Vec3 } from '../camera/camera';

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** Options of {@link attachControls}. */
export interface AttachControlsOptions {
  /** Where key events are listened for (default `window`, so keys work without focusing the canvas). */
  keyTarget?: EventTarget;
  /**
   * Picks the world point under element-relative CSS pixel (x, y), or null
   * (Viewer.pick, on the GPU); when given, double-click focuses that point, and
   * does nothing where it is null.
   */
  pick?: (x: number, y: number) => Promise<readonly number[] | null>;
  /** Called on H (help overlay), unless `onKey` is given. */
  onHelp?: () => void;
  /**
   * Takes over the non-movement keys: called with `e.key` lower-cased for
   * every keydown that is not a movement key, not in a text field, not a
   * repeat and without Ctrl/Alt/Meta. When given, the built-in F (frame),
   * R (reset) and H (help) actions are not performed, so the app can do its
   * own.
   */
  onKey?: (key: string, e: KeyboardEvent) => void;
  /** Called after any handled input, so an on-demand render loop can wake up. */
  onInput?: () => void;
  /** Speed factor while Shift is held (default 4). */
  fastFactor?: number;
  /** Speed factor while Ctrl is held (default 0.25). */
  slowFactor?: number;
}

// [forward, right, up] per physical key (KeyboardEvent.code, so W/A/S/D sit in the same place on AZERTY).
const MOVE_KEYS = new Map<string, Vec3>([
  ['KeyW', [1, 0, 0]],
  ['ArrowUp', [1, 0, 0]],
  ['KeyS', [-1, 0, 0]],
  ['ArrowDown', [-1, 0, 0]],
  ['KeyA', [0, -1, 0]],
  ['ArrowLeft', [0, -1, 0]],
  ['KeyD', [0, 1, 0]],
  ['ArrowRight', [0, 1, 0]],
  ['KeyQ', [0, 0, -1]],
  ['KeyE', [0, 0, 1]],
]);

// Pixels per wheel "line" and the largest zoom step one event may take: a
// trackpad pinch (wheel + ctrlKey) reports small deltas and is scaled up; a
// Ctrl+mouse-wheel notch must not then jump by a factor of ten.
const LINE_PX = 16;
const PINCH_SCALE = 6;
const MAX_WHEEL_PX = 200;

/**
 * Typing fields keep their keys: text-like inputs, textareas, selects (which
 * use the arrows) and contenteditable. Buttons and checkboxes (lil-gui
 * toggles keep focus after a click) do not, or W/A/S/D would stop working
 * after every GUI click.
 */
function isTypingTarget(t: EventTarget | null): boolean {
  const el = t as (HTMLElement & { type?: string }) | null;
  if (!el || typeof el.tagName !== 'string') return false;
  if (el.isContentEditable) return true;
  const tag = el.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (el.type ?? 'text').toLowerCase();
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'color', 'range', 'file', 'image'].includes(type);
}

/**
 * Feeds `controller` from DOM input on `element` (usually the canvas):
 * - mouse: left-drag rotate; right-, middle- or Shift+left-drag pan; wheel zoom
 *   (trackpad pinch arrives as Ctrl+wheel and zooms too); double-click focuses
 *   the picked point when `opts.pick` is given;
 * - touch (Pointer Events): one finger rotates, two fingers pan and pinch-zoom;
 * - keys (on window): W/A/S/D or arrows move, Q/E down/up (switching to fly
 *   mode), Shift faster, Ctrl slower, F frames the scene, R resets, H calls
 *   `opts.onHelp`; ignored while a text field has focus.
 *
 * Held keys are integrated by `controller.update(dt)`, which the render loop
 * calls every frame. Browser shortcuts with Ctrl still win where the browser
 * reserves them (Ctrl+W closes the tab): use the arrows with Ctrl.
 *
 * @returns a function that removes every listener and clears held keys.
 */
export function attachControls(element: HTMLElement, controller: CameraController, opts: AttachControlsOptions = {}): () => void {
  const keyTarget = opts.keyTarget ?? window;
  const fast = opts.fastFactor ?? 4;
  const slow = opts.slowFactor ?? 0.25;
  const touched = () => opts.onInput?.();

  type Gesture = 'rotate' | 'pan';
  const pointers = new Map<number, { x: number; y: number; gesture: Gesture }>();
  // After two fingers, the finger left on the glass must not suddenly rotate.
  let multiTouch = false;

  const spread = () => {
    const [a, b] = [...pointers.values()];
    return { cx: (a.x + b.x) / 2, cy: (a.y + b.y) / 2, d: Math.hypot(a.x - b.x, a.y - b.y) };
  };

  const onPointerDown = (e: PointerEvent) => {
    let gesture: Gesture = 'rotate';
    if (e.pointerType !== 'touch') {
      // Mouse and pen: the button picks the gesture.
      if (e.button === 1 || e.button === 2 || (e.button === 0 && e.shiftKey)) gesture = 'pan';
      else if (e.button !== 0) return;
      // No text selection or focus stealing while dragging (click and dblclick still fire).
      e.preventDefault();
    }
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, gesture });
    if (pointers.size >= 2) multiTouch = true;
    try {
      element.setPointerCapture(e.pointerId);
    } catch {
      // Capture is a nicety (drags continue outside the element); synthetic events can't take it.
    }
  };

  const onPointerMove = (e: PointerEvent) => {
    const p = pointers.get(e.pointerId);
    if (!p) return;
    if (pointers.size >= 2) {
      const before = spread();
      p.x = e.clientX;
      p.y = e.clientY;
      const after = spread();
      controller.pan(after.cx - before.cx, after.cy - before.cy, element.clientHeight);
      if (before.d > 0 && after.d > 0) controller.zoomBy(before.d / after.d);
      touched();
      return;
    }
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    p.x = e.clientX;
    p.y = e.clientY;
    if (multiTouch || (dx === 0 && dy === 0)) return;
    if (p.gesture === 'pan') controller.pan(dx, dy, element.clientHeight);
    else controller.orbit(dx, dy);
    touched();
  };

  const onPointerEnd = (e: PointerEvent) => {
    if (!pointers.delete(e.pointerId)) return;
    if (pointers.size === 0) multiTouch = false;
    try {
      if (element.hasPointerCapture(e.pointerId)) element.releasePointerCapture(e.pointerId);
    } catch {
      // Already released by the browser.
    }
  };

  const onWheel = (e: WheelEvent) => {
    e.preventDefault(); // the page must not scroll (or browser-zoom on pinch) under the canvas
    let delta = e.deltaY;
    if (e.deltaMode === 1) delta *= LINE_PX;
    else if (e.deltaMode === 2) delta *= element.clientHeight || 800;
    if (e.ctrlKey) delta *= PINCH_SCALE;
    controller.zoom(clamp(delta, -MAX_WHEEL_PX, MAX_WHEEL_PX));
    touched();
  };

  const onContextMenu = (e: Event) => e.preventDefault(); // right-drag pans

  let attached = true;
  const onDblClick = (e: MouseEvent) => {
    if (!opts.pick) return;
    const r = element.getBoundingClientRect();
    opts.pick(e.clientX - r.left, e.clientY - r.top).then(
      (p) => {
        if (!p || !attached) return;
        controller.focusOn(p);
        touched();
      },
      () => undefined, // a pick that failed (a lost device) focuses nothing
    );
  };

  const held = new Set<string>();
  let shift = false;
  let ctrl = false;
  const applyMove = () => {
    let f = 0;
    let r = 0;
    let u = 0;
    for (const code of held) {
      const m = MOVE_KEYS.get(code);
      if (!m) continue;
      f += m[0];
      r += m[1];
      u += m[2];
    }
    const k = (shift ? fast : 1) * (ctrl ? slow : 1);
    // W and Up together are one "forward", not double speed.
    controller.setMoveInput(clamp(f, -1, 1) * k, clamp(r, -1, 1) * k, clamp(u, -1, 1) * k);
  };

  const onKeyDown = (ev: Event) => {
    const e = ev as KeyboardEvent;
    shift = e.shiftKey;
    ctrl = e.ctrlKey;
    if (e.altKey || e.metaKey || isTypingTarget(e.target)) {
      applyMove();
      return;
    }
    if (MOVE_KEYS.has(e.code)) {
      e.preventDefault(); // arrows would scroll the page
      held.add(e.code);
      applyMove();
      touched();
      return;
    }
    applyMove(); // Shift/Ctrl pressed while moving changes the speed now
    if (e.ctrlKey || e.repeat) return; // Ctrl+F, Ctrl+R belong to the browser
    if (opts.onKey) {
      opts.onKey(e.key.toLowerCase(), e);
      touched();
      return;
    }
    if (e.code === 'KeyF') {
      if (element.clientWidth > 0 && element.clientHeight > 0) controller.aspect = element.clientWidth / element.clientHeight;
      controller.frame();
    } else if (e.code === 'KeyR') controller.reset();
    else if (e.code === 'KeyH') opts.onHelp?.();
    else return;
    touched();
  };

  const onKeyUp = (ev: Event) => {
    const e = ev as KeyboardEvent;
    shift = e.shiftKey;
    ctrl = e.ctrlKey;
    // Always release, even if focus moved to a text field meanwhile, or the key sticks.
    held.delete(e.code);
    applyMove();
  };

  const onBlur = () => {
    // Key-ups are lost while the window is unfocused.
    held.clear();
    shift = ctrl = false;
    applyMove();
  };

  const prevTouchAction = element.style.touchAction;
  element.style.touchAction = 'none'; // the browser must not scroll or zoom on touch drags

  element.addEventListener('pointerdown', onPointerDown);
  element.addEventListener('pointermove', onPointerMove);
  element.addEventListener('pointerup', onPointerEnd);
  element.addEventListener('pointercancel', onPointerEnd);
  element.addEventListener('lostpointercapture', onPointerEnd);
  element.addEventListener('wheel', onWheel, { passive: false });
  element.addEventListener('contextmenu', onContextMenu);
  element.addEventListener('dblclick', onDblClick);
  keyTarget.addEventListener('keydown', onKeyDown);
  keyTarget.addEventListener('keyup', onKeyUp);
  keyTarget.addEventListener('blur', onBlur);

  return () => {
    attached = false;
    element.removeEventListener('pointerdown', onPointerDown);
    element.removeEventListener('pointermove', onPointerMove);
    element.removeEventListener('pointerup', onPointerEnd);
    element.removeEventListener('pointercancel', onPointerEnd);
    element.removeEventListener('lostpointercapture', onPointerEnd);
    element.removeEventListener('wheel', onWheel);
    element.removeEventListener('contextmenu', onContextMenu);
    element.removeEventListener('dblclick', onDblClick);
    keyTarget.removeEventListener('keydown', onKeyDown);
    keyTarget.removeEventListener('keyup', onKeyUp);
    keyTarget.removeEventListener('blur', onBlur);
    for (const id of pointers.keys()) {
      try {
        if (element.hasPointerCapture(id)) element.releasePointerCapture(id);
      } catch {
        // Nothing to release.
      }
    }
    pointers.clear();
    held.clear();
    controller.setMoveInput(0, 0, 0);
    element.style.touchAction = prevTouchAction;
  };
}
