import { describe, expect, it } from 'vitest';
import { StatusMessages, type StatusMessage } from './status-messages';

function line() {
  const seen: (StatusMessage | null)[] = [];
  const status = new StatusMessages((m) => void seen.push(m));
  return { status, seen, text: () => status.current?.text ?? null };
}

describe('StatusMessages: a message belongs to the action that raised it', () => {
  it('a refused choice stays until a later action succeeds, then leaves', () => {
    const { status, text } = line();
    status.raise('sort', "sort 'cpu' refused");
    expect(text()).toBe("sort 'cpu' refused");
    status.succeeded('settings'); // an unrelated later action succeeded
    expect(text()).toBeNull();
  });

  it('a failed load leaves when the next load, or any later action, succeeds', () => {
    const { status, text } = line();
    status.raise('load', 'cut.ply: truncated');
    status.succeeded('load');
    expect(text()).toBeNull();
    status.raise('load', 'cut.ply: truncated');
    status.succeeded('draw');
    expect(text()).toBeNull();
  });

  it("a progress line stays through other actions; its own action's end removes it", () => {
    const { status, text } = line();
    status.raise('benchmark', 'Benchmark: radix4 × 60 frames…', 'info', true);
    status.succeeded('sort');
    expect(text()).toBe('Benchmark: radix4 × 60 frames…');
    status.ended('sort');
    expect(text()).toBe('Benchmark: radix4 × 60 frames…');
    status.ended('benchmark');
    expect(text()).toBeNull();
  });

  it('a failed load\'s line carries its long form (details) for the page\'s toggle; the next line its own', () => {
    const { status } = line();
    status.raise('load', 'x.jpg: not a splat scene: it starts like a JPEG image', 'error', false, 'x.jpg: unknown-format: ...');
    expect(status.current?.details).toBe('x.jpg: unknown-format: ...');
    status.raise('sort', "sort 'cpu' refused");
    expect(status.current?.details).toBeNull();
  });

  it('a newer message replaces the older; hiding twice tells the page once', () => {
    const { status, seen, text } = line();
    status.raise('sort', 'a');
    status.raise('draw', 'b', 'info');
    expect(status.current).toEqual({ text: 'b', kind: 'info', action: 'draw', progress: false, details: null });
    status.ended('sort'); // not sort's any more
    expect(text()).toBe('b');
    status.hide();
    status.hide();
    expect(seen.filter((m) => m === null)).toHaveLength(1);
  });
});
