import { describe, expect, it } from 'vitest';
import type { Bounds } from '../../scenes/splat-cloud';
import { sub } from '../camera/camera';
import { CameraController } from '../camera/controller';
import { attachControls } from './input';
import { dist, expectPoseClose, expectVecClose, START } from '../../test/support/pose-compare';

/**
 * Just enough of an element for attachControls, on Node's own EventTarget:
 * the wiring is tested without a browser; the events are plain Events with
 * the fields the handlers read.
 */
class FakeElement extends EventTarget {
  style = { touchAction: 'auto' };
  clientWidth = 800;
  clientHeight = 600;
  tagName = 'CANVAS';
  readonly captured = new Set<number>();
  setPointerCapture(id: number) {
    this.captured.add(id);
  }
  releasePointerCapture(id: number) {
    this.captured.delete(id);
  }
  hasPointerCapture(id: number) {
    return this.captured.has(id);
  }
  getBoundingClientRect() {
    return { left: 10, top: 20, width: 800, height: 600 };
  }
}

function ev(type: string, props: Record<string, unknown> = {}): Event {
  return Object.assign(new Event(type, { cancelable: true }), props);
}

function mouse(type: string, x: number, y: number, button = 0, extra: Record<string, unknown> = {}): Event {
  return ev(type, { pointerId: 1, pointerType: 'mouse', button, clientX: x, clientY: y, shiftKey: false, ...extra });
}

function key(type: 'keydown' | 'keyup', code: string, extra: Record<string, unknown> = {}): Event {
  const k = code.startsWith('Key') ? code.slice(3).toLowerCase() : code;
  return ev(type, { code, key: k, shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, repeat: false, ...extra });
}

describe('attachControls', () => {
  function setup(opts: Parameters<typeof attachControls>[2] = {}) {
    const el = new FakeElement();
    const keys = new EventTarget();
    const c = new CameraController(START, { damping: Infinity });
    const detach = attachControls(el as unknown as HTMLElement, c, { keyTarget: keys, ...opts });
    return { el, keys, c, detach };
  }

  it('left-drag orbits, right- and shift-drag pan, and the canvas gets touch-action none', () => {
    const { el, c } = setup();
    expect(el.style.touchAction).toBe('none');
    el.dispatchEvent(mouse('pointerdown', 100, 100));
    expect(el.captured.has(1)).toBe(true);
    el.dispatchEvent(mouse('pointermove', 150, 100));
    el.dispatchEvent(mouse('pointerup', 150, 100));
    expect(el.captured.has(1)).toBe(false);
    c.update(0);
    expect(c.pose.eye[0]).toBeLessThan(0);
    expect(dist(c.pose)).toBeCloseTo(5, 9);

    for (const [button, shiftKey] of [
      [2, false],
      [1, false],
      [0, true],
    ] as const) {
      c.setPose(START);
      el.dispatchEvent(mouse('pointerdown', 100, 100, button, { shiftKey }));
      el.dispatchEvent(mouse('pointermove', 150, 100, button, { shiftKey }));
      el.dispatchEvent(mouse('pointerup', 150, 100, button, { shiftKey }));
      c.update(0);
      expect(c.pose.target[0], `button ${button} shift ${shiftKey}`).toBeLessThan(0);
      expectVecClose(sub(c.pose.eye, c.pose.target), sub(START.eye, START.target));
    }
  });

  it('wheel zooms and keeps the page from scrolling; the context menu is suppressed', () => {
    const onInput: string[] = [];
    const { el, c } = setup({ onInput: () => onInput.push('x') });
    const w = ev('wheel', { deltaY: 100, deltaMode: 0, ctrlKey: false });
    el.dispatchEvent(w);
    expect(w.defaultPrevented).toBe(true);
    c.update(0);
    expect(dist(c.pose)).toBeCloseTo(5 * Math.exp(100 * 0.0015), 9);
    // A line-mode wheel and a trackpad pinch (ctrl) both zoom in, each step bounded.
    el.dispatchEvent(ev('wheel', { deltaY: -3, deltaMode: 1, ctrlKey: false }));
    el.dispatchEvent(ev('wheel', { deltaY: -1e4, deltaMode: 0, ctrlKey: true }));
    c.update(0);
    expect(dist(c.pose)).toBeCloseTo(5 * Math.exp((100 - 48 - 200) * 0.0015), 9);
    expect(onInput.length).toBe(3);
    const menu = ev('contextmenu');
    el.dispatchEvent(menu);
    expect(menu.defaultPrevented).toBe(true);
  });

  it('two touch pointers pan and pinch-zoom; the finger left behind does not rotate', () => {
    const { el, c } = setup();
    const touch = (type: string, id: number, x: number, y: number) =>
      el.dispatchEvent(ev(type, { pointerId: id, pointerType: 'touch', button: 0, clientX: x, clientY: y }));
    touch('pointerdown', 1, 300, 300);
    touch('pointerdown', 2, 400, 300);
    touch('pointermove', 2, 500, 300); // spread 100 -> 200: zoom in by 2
    c.update(0);
    expect(dist(c.pose)).toBeCloseTo(2.5, 9);
    touch('pointerup', 2, 500, 300);
    const before = c.pose;
    touch('pointermove', 1, 350, 330);
    c.update(0);
    expectPoseClose(c.pose, before);
    touch('pointerup', 1, 350, 330);
    touch('pointerdown', 1, 300, 300);
    touch('pointermove', 1, 340, 300);
    c.update(0);
    expect(c.pose.eye[0]).toBeLessThan(0); // a fresh one-finger drag rotates again
  });

  it('W/A/S/D fly while held, Shift is faster, keys typed into a text field are ignored', () => {
    const { keys, c } = setup();
    keys.dispatchEvent(key('keydown', 'KeyW'));
    c.update(0.1);
    expect(c.mode).toBe('fly');
    const speed = c.moveSpeed * c.sceneScale;
    expect(c.pose.eye[2]).toBeCloseTo(-5 + speed * 0.1, 9);
    keys.dispatchEvent(key('keydown', 'ShiftLeft', { key: 'Shift', shiftKey: true }));
    c.update(0.1);
    expect(c.pose.eye[2]).toBeCloseTo(-5 + speed * 0.1 * 5, 9);
    keys.dispatchEvent(key('keyup', 'KeyW', { shiftKey: true }));
    const stopped = c.pose;
    c.update(0.1);
    expectPoseClose(c.pose, stopped);

    const typing = key('keydown', 'KeyD');
    Object.defineProperty(typing, 'target', { value: { tagName: 'INPUT', type: 'text', isContentEditable: false } });
    keys.dispatchEvent(typing);
    c.update(0.1);
    expectPoseClose(c.pose, stopped);
    // A lil-gui checkbox keeps focus after a click; that must not block flying.
    const checkbox = key('keydown', 'KeyD');
    Object.defineProperty(checkbox, 'target', { value: { tagName: 'INPUT', type: 'checkbox', isContentEditable: false } });
    keys.dispatchEvent(checkbox);
    c.update(0.1);
    expect(c.pose.eye[0]).toBeGreaterThan(stopped.eye[0]);
    // Losing window focus drops held keys (their keyup never comes).
    keys.dispatchEvent(ev('blur'));
    const afterBlur = c.pose;
    c.update(0.1);
    expectPoseClose(c.pose, afterBlur);
  });

  it('F frames the remembered scene and R resets, unless onKey takes over', () => {
    const { keys, c } = setup();
    const bounds: Bounds = { min: [4, 4, 4], max: [6, 6, 6] };
    c.frame(bounds, { keepDirection: false, setHome: true, snap: true });
    const home = c.pose;
    c.pan(200, 0, 600);
    c.update(0);
    keys.dispatchEvent(key('keydown', 'KeyF'));
    c.update(0);
    expectVecClose(c.pose.target, [5, 5, 5], 1e-9);
    c.orbit(100, 0);
    keys.dispatchEvent(key('keydown', 'KeyR'));
    c.update(0);
    expectPoseClose(c.pose, home, 1e-9);
    // Ctrl+R belongs to the browser.
    c.orbit(100, 0);
    keys.dispatchEvent(key('keydown', 'KeyR', { ctrlKey: true }));
    c.update(0);
    expect(c.pose.eye[0]).not.toBeCloseTo(home.eye[0], 3);

    const seen: string[] = [];
    const other = setup({ onKey: (k) => seen.push(k) });
    other.c.orbit(100, 0);
    other.keys.dispatchEvent(key('keydown', 'KeyR'));
    other.keys.dispatchEvent(key('keydown', 'KeyH'));
    other.c.update(0);
    expect(seen).toEqual(['r', 'h']);
    expect(other.c.pose.eye[0]).toBeLessThan(0); // not reset by the built-in R
  });

  it('detach removes every listener and restores touch-action', () => {
    const { el, keys, c, detach } = setup();
    keys.dispatchEvent(key('keydown', 'KeyW'));
    detach();
    expect(el.style.touchAction).toBe('auto');
    c.update(0.1);
    const p = c.pose;
    el.dispatchEvent(mouse('pointerdown', 100, 100));
    el.dispatchEvent(mouse('pointermove', 200, 100));
    el.dispatchEvent(ev('wheel', { deltaY: 100, deltaMode: 0, ctrlKey: false }));
    keys.dispatchEvent(key('keydown', 'KeyS'));
    c.update(0.1);
    expectPoseClose(c.pose, p);
  });
});
