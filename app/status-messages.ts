/**
 * The page's one-line message (#message), owned by the action that raised it: a
 * failed load, a refused sort or draw, a screenshot that failed. It leaves when a
 * later action succeeds (any user action: the line was about something the user
 * has moved on from), except a progress line ("Generating…", "Benchmark…"), which
 * only its own action ends. The viewer's `message` events say which action raised
 * them (events.ts MessageAction); the page's own lines say theirs. Pure: the page
 * renders what `onChange` hears.
 */

import type { MessageAction } from '../renderer/api/index';

export interface StatusMessage {
  text: string;
  kind: 'error' | 'info';
  action: MessageAction;
  /** A line about work in progress: only its own action removes it. */
  progress: boolean;
  /** The long form behind the line (a failed load's loader message), shown under a 'details' toggle; null for none. */
  details: string | null;
}

export class StatusMessages {
  private shown: StatusMessage | null = null;

  constructor(private readonly onChange: (message: StatusMessage | null) => void) {}

  /** The message on screen, or null. */
  get current(): StatusMessage | null {
    return this.shown;
  }

  /** `action` says `text` (replacing whatever was shown), with its long form `details`, if any. */
  raise(action: MessageAction, text: string, kind: 'error' | 'info' = 'error', progress = false, details: string | null = null): void {
    this.shown = { text, kind, action, progress, details };
    this.onChange(this.shown);
  }

  /**
   * `action` succeeded: the message of an earlier action leaves (the line was about
   * something the user has moved on from), and so does this action's own; another
   * action's progress line stays.
   */
  succeeded(action: MessageAction): void {
    const m = this.shown;
    if (!m || (m.progress && m.action !== action)) return;
    this.hide();
  }

  /** `action`'s own message leaves (its work ended), whatever kind; another's stays. */
  ended(action: MessageAction): void {
    if (this.shown?.action === action) this.hide();
  }

  /** Hides whatever is shown. */
  hide(): void {
    if (!this.shown) return;
    this.shown = null;
    this.onChange(null);
  }
}
