/**
 * A viewer's camera: the orbit/fly controller (camera/controller.ts) and the
 * built-in input driving it (input.ts), the pose as hosts see it, and the first
 * view of each new scene (its dense body, from a side that shows it: framing.ts).
 */
import type { SplatCloud } from '../../scenes/splat-cloud';
import { defaultForward, fitPose, length, normalize, sub, upVector, type CameraPose, type UpAxis } from '../camera/camera';
import { CameraController } from '../camera/controller';
import { bodyViewSteps, type BodyView } from '../camera/framing';
import { chooseUpAxis, detectUpAxis, upNeedsDetection, upNote, type UpChoice, type UpInputs } from '../camera/up-axis';
import { attachControls, type AttachControlsOptions } from './input';
import type { RenderSettings } from './settings';
import type { RenderTarget } from './targets';

/** The camera as hosts see it: eye, target, up and vertical field of view (degrees). */
export interface ViewerCamera {
  eye: readonly number[];
  target: readonly number[];
  up: readonly number[];
  fovy: number;
}

/** Runs a generator of steps to its end at once. */
export function stepsRun<T>(steps: Generator<void, T, void>): T {
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

export class ViewCamera {
  readonly controller: CameraController;
  private detach: (() => void) | null = null;
  /** The explicit up choices so far (user this visit, the link's view, the saved setting): any of them beats detection. */
  readonly upChosen: { user: UpAxis | null; link: UpAxis | null; saved: UpAxis | null } = { user: null, link: null, saved: null };
  /** The up axis the current scene opened with, and who set it (the panel's note). */
  upChoice: UpChoice | null = null;

  constructor(
    private readonly settings: RenderSettings,
    private readonly target: RenderTarget,
    /** The view changed: the next frame draws (and sorts). */
    private readonly redraw: () => void,
    /** The pose was set: a UI over the viewer follows. */
    private readonly posed: () => void,
  ) {
    this.controller = new CameraController({ eye: [0, 0, -5], target: [0, 0, 0], up: upVector(settings.upAxis), fovyDeg: settings.fovyDeg });
  }

  /** Orbit / fly input on the target's element (mouse, touch, keys); `pick` finds the point a double-click focuses. */
  attachControls(options: Pick<AttachControlsOptions, 'keyTarget' | 'onKey'>, pick: (x: number, y: number) => Promise<readonly number[] | null>): void {
    const element = this.target.element;
    if (!element) return;
    if (!options.keyTarget && element.tabIndex < 0) element.tabIndex = 0;
    this.detach = attachControls(element, this.controller, {
      keyTarget: options.keyTarget ?? element,
      pick,
      ...(options.onKey ? { onKey: options.onKey } : {}),
      onInput: this.redraw,
    });
  }

  get pose(): CameraPose {
    return this.controller.pose;
  }

  get camera(): ViewerCamera {
    const p = this.controller.pose;
    return { eye: [...p.eye], target: [...p.target], up: [...p.up], fovy: p.fovyDeg };
  }

  set camera(c: Partial<ViewerCamera>) {
    const p = this.controller.pose;
    this.setPose({ eye: c.eye ?? p.eye, target: c.target ?? p.target, up: c.up ?? p.up, fovyDeg: c.fovy ?? p.fovyDeg } as CameraPose);
  }

  /** Jumps to a pose, the field of view included; the up-axis setting follows a pose whose up is one of its axes. */
  setPose(pose: CameraPose, from?: 'link'): void {
    this.controller.setPose(pose);
    this.settings.fovyDeg = pose.fovyDeg;
    const axis = (['-y', '+y', '+z', '-z'] as const).find((a) => length(sub(normalize(pose.up), upVector(a))) < 1e-3);
    if (axis) this.settings.upAxis = axis;
    // A link's view sets the up axis as an explicit choice (kept over detection).
    if (axis && from === 'link') this.chooseUp(axis, 'link');
    this.redraw();
    this.posed();
  }

  /** Frames the scene's dense body from the current direction. */
  frameScene(): void {
    this.controller.aspect = this.target.width / Math.max(1, this.target.height);
    this.controller.frame();
    this.redraw();
  }

  /** Back to the scene's first view. */
  resetView(): void {
    this.controller.reset();
    this.redraw();
  }

  /** The note under the up-axis control: "up: +z (detected)"; '' before a scene. */
  get upNote(): string {
    return this.upChoice ? upNote(this.upChoice) : '';
  }

  /** An explicit up choice (the link's view, a saved setting): kept over detection for the scenes that open after. */
  chooseUp(axis: UpAxis, by: 'link' | 'saved'): void {
    this.upChosen[by] = axis;
    this.settings.upAxis = axis;
    // A link's view is applied to the scene on screen: its up is that scene's now.
    if (this.upChoice || by === 'link') this.upChoice = { axis, source: by };
  }

  /**
   * A new scene's up axis (issue 34), set before its first view is worked out: an
   * explicit choice, else what its points say (detectUpAxis), else -y.
   */
  sceneUp(cloud: SplatCloud): UpChoice {
    const inputs: UpInputs = { ...this.upChosen };
    if (upNeedsDetection(inputs)) inputs.detected = detectUpAxis(cloud.positions);
    this.upChoice = chooseUpAxis(inputs);
    this.settings.upAxis = this.upChoice.axis;
    return this.upChoice;
  }

  /** The user's choice (the panel, the API): kept for the scenes that open after. */
  setUpAxis(axis: UpAxis): void {
    this.upChosen.user = axis;
    this.upChoice = { axis, source: 'user' };
    this.settings.upAxis = axis;
    this.controller.setUp(axis);
    this.controller.frame(undefined, { keepDirection: false, setHome: true });
    this.redraw();
  }

  /** The first view of a scene (framing.ts): its dense body, seen from a side that shows it. */
  bodyViewSteps(cloud: SplatCloud): Generator<void, BodyView, void> {
    // + cloud: the body's bounds cover what its splats show (scales, opacities), not only their centres.
    return bodyViewSteps(cloud.positions, upVector(this.settings.upAxis), defaultForward(this.settings.upAxis), cloud);
  }

  /** A new scene's first view, made ready with it (`view`) or worked out now; also its home (R). */
  frameNew(cloud: SplatCloud, view: BodyView | null): void {
    const up = upVector(this.settings.upAxis);
    this.controller.aspect = this.target.width / Math.max(1, this.target.height);
    this.controller.setUp(this.settings.upAxis);
    // Computed for another up axis (changed while the scene was made ready): again.
    const body = view && view.up.every((v, i) => v === up[i]) ? view : stepsRun(this.bodyViewSteps(cloud));
    // The dense body, not the floaters (camera/framing.ts); F frames the same bounds.
    this.controller.frame(body.body, { keepDirection: false, setHome: true, snap: true });
    // From a side that shows it: a body much longer one way is not framed end-on.
    if (body.forward.some((v, i) => v !== defaultForward(this.settings.upAxis)[i])) {
      this.controller.setPose(fitPose(body.body, up, this.settings.fovyDeg, this.controller.aspect, body.forward));
      this.controller.setHome();
    }
  }

  destroy(): void {
    this.detach?.();
    this.detach = null;
  }
}
