import { describe, expect, it } from 'vitest';
import { FRAME_WINDOW, QueueClock } from './queue-clock';

describe('QueueClock (a frame\'s own time on a serial queue)', () => {
  it('two frames in flight: each frame\'s own time, not its submit-to-done (which holds the one ahead)', () => {
    const c = new QueueClock();
    // Frames of 600 ms, the next submitted while the one ahead runs.
    expect(c.frameCompleted(0, 600)).toBe(600);
    expect(c.frameCompleted(10, 1200)).toBe(600); // submit to done: 1,190
    expect(c.frameCompleted(620, 1800)).toBe(600); // 1,180
    expect(c.frameMs).toBe(600);
  });

  it('a trial sort between frames is its own, not the next frame\'s', () => {
    const c = new QueueClock();
    c.frameCompleted(0, 600);
    // A sort submitted at 600 (after the frame) runs 300 ms; a frame submitted at 610 waits behind it.
    expect(c.completed(600, 900)).toBe(300);
    expect(c.frameCompleted(610, 1500)).toBe(600);
    expect(c.frameMs).toBe(600);
  });

  it('an idle queue: from the submit', () => {
    const c = new QueueClock();
    c.frameCompleted(0, 5);
    expect(c.frameCompleted(100, 108)).toBe(8);
  });

  it('the median of the latest frames, so that one slow frame (a compile) does not set the budget', () => {
    const c = new QueueClock();
    let t = 0;
    for (const ms of [50, 50, 3000, 50, 50]) {
      c.frameCompleted(t, t + ms);
      t += ms;
    }
    expect(c.frameMs).toBe(50);
    for (let i = 0; i < FRAME_WINDOW; i++) {
      c.frameCompleted(t, t + 10);
      t += 10;
    }
    expect(c.frameMs).toBe(10);
  });

  it('completions reported in one tick (the same clock reading) read 0, never negative; reset forgets the queue', () => {
    const c = new QueueClock();
    expect(c.frameCompleted(0, 500)).toBe(500);
    expect(c.frameCompleted(10, 500)).toBe(0);
    expect(c.frameMs).toBe(500);
    c.reset();
    expect(c.frameMs).toBeNull();
    expect(c.frameCompleted(600, 650)).toBe(50);
  });

  it('forgetFrames: a new scene\'s frames alone set the budget, the queue\'s order kept', () => {
    const c = new QueueClock();
    for (let i = 0; i < 7; i++) c.frameCompleted(i * 10, i * 10 + 5); // an empty target's frames: 5 ms
    expect(c.frameMs).toBe(5);
    c.forgetFrames();
    expect(c.frameMs).toBeNull();
    // A submission ahead still counts as the queue's: the next frame starts when it completed.
    c.completed(100, 900);
    expect(c.frameCompleted(200, 1300)).toBe(400);
    expect(c.frameMs).toBe(400);
  });
});
