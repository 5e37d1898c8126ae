/**
 * How a viewer's collaborators speak to its host: its events (events.ts), and
 * the status lines among them (`message`), each owned by the action that raised it.
 */
import type { MessageAction, ViewerEventMap, ViewerEventName } from './events';

/** Dispatches one of the viewer's events (nothing once the viewer is destroyed). */
export type Emit = <K extends ViewerEventName>(type: K, detail: ViewerEventMap[K]['detail']) => void;

export class Voice {
  constructor(readonly emit: Emit) {}

  /** A line for the host's status bar (the `message` event), owned by `action`; `details`: its long form, if any. */
  say(text: string, kind: 'error' | 'info' = 'error', action: MessageAction = 'device', progress = false, details: string | null = null): void {
    this.emit('message', { text, kind, action, ...(progress ? { progress } : {}), ...(details ? { details } : {}) });
  }

  /** `action` succeeded: an earlier action's line no longer holds (the `message` event with null). */
  unsay(action: MessageAction): void {
    this.emit('message', { text: null, kind: 'info', action });
  }

  /** Something a UI shows changed (`clearGraph`: the frame times are of other work now). */
  change(clearGraph = false): void {
    this.emit('change', { clearGraph });
  }
}
