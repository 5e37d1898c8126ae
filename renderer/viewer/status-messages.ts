/**
 * The page's one-line message (#message), owned by the action that raised it: a
 * failed load, a refused sort or draw, a screenshot that failed. It leaves when a
 * later action succeeds (any user action: the line was about something the user
 * has moved on from), except a progress line ("Generating…", "Benchmark…"), which
 * only its own action ends. And the line of a refused sort or draw choice says
 * what to change. Pure: the page renders what `onChange` hears.
 */

/** What raised a message: the user's actions, and the page's own (device recovery). */
export type MessageAction = 'load' | 'sort' | 'draw' | 'settings' | 'screenshot' | 'benchmark' | 'device' | 'page';

export interface StatusMessage {
  text: string;
  kind: 'error' | 'info';
  action: MessageAction;
  /** A line about work in progress: only its own action removes it. */
  progress: boolean;
}

export class StatusMessages {
  private shown: StatusMessage | null = null;

  constructor(private readonly onChange: (message: StatusMessage | null) => void) {}

  /** The message on screen, or null. */
  get current(): StatusMessage | null {
    return this.shown;
  }

  /** `action` says `text` (replacing whatever was shown). */
  raise(action: MessageAction, text: string, kind: 'error' | 'info' = 'error', progress = false): void {
    this.shown = { text, kind, action, progress };
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

/** What the page runs, for {@link refusedChoiceLine}. */
export interface RunningChoice {
  sort: string;
  draw: string;
  /** Sort strategies that sort on the GPU (the tiles draw needs one). */
  gpuSorts: readonly string[];
}

/**
 * The line for a sort or draw choice the renderer refused, naming what to change to
 * have it and what runs meanwhile. Today's one refusal: the tiles draw sorts its
 * (tile, depth) pairs on the GPU, so it cannot run with a host sort (`cpu`):
 *   sort 'cpu' chosen while drawing tiles: "sort 'cpu' sorts on the host and draw 'tiles' needs a GPU sort: choose draw 'quads' first; still sorting with bitonic"
 *   draw 'tiles' chosen while sorting with cpu: "draw 'tiles' needs a GPU sort (radix4, radix16, …) and sort 'cpu' sorts on the host: choose one of them first; still drawing quads"
 * Any other refusal: the renderer's own words, then what still runs.
 */
export function refusedChoiceLine(what: 'sort' | 'draw', asked: string, running: RunningChoice, reason: string): string {
  const gpu = running.gpuSorts;
  const list = gpu.length > 4 ? `${gpu.slice(0, 3).join(', ')}, …` : gpu.join(', ');
  if (what === 'sort' && running.draw === 'tiles' && !gpu.includes(asked)) {
    return `sort '${asked}' sorts on the host and draw 'tiles' needs a GPU sort: choose draw 'quads' first; still sorting with ${running.sort}`;
  }
  if (what === 'draw' && asked === 'tiles' && !gpu.includes(running.sort)) {
    return `draw 'tiles' needs a GPU sort${list ? ` (${list})` : ''} and sort '${running.sort}' sorts on the host: choose ${gpu.length === 1 ? 'it' : 'one of them'} first; still drawing ${running.draw}`;
  }
  const still = what === 'sort' ? `still sorting with ${running.sort}` : `still drawing ${running.draw}`;
  return `${reason.replace(/\.$/, '')}; ${still}`;
}
