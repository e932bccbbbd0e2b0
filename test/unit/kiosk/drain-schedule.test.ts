/**
 * When the offline queue is sent (main/kiosk/sync/drain-schedule.ts), on fake
 * timers and a stub pass: no socket, no store.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DrainSchedule } from '../../../main/kiosk/sync/drain-schedule.js';
import type { DrainReport } from '../../../main/kiosk/sync/queue-drain.js';

const BACKOFF = { baseMs: 1000, maxMs: 30_000 };
const EMPTY: DrainReport = { stop: 'empty', settled: [], retryAt: null };

let passes: number;
let result: () => Promise<DrainReport | null>;

function schedule(auto = true): DrainSchedule {
  return new DrainSchedule({
    pass: () => {
      passes += 1;
      return result();
    },
    auto,
    backoff: BACKOFF,
    now: Date.now,
    random: () => 0,
  });
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  passes = 0;
  result = async () => EMPTY;
});
afterEach(() => vi.useRealTimers());

describe('DrainSchedule', () => {
  it('runs one pass at a time: a call during a pass gets that pass', async () => {
    let finish!: (report: DrainReport) => void;
    result = () => new Promise((resolve) => (finish = resolve));
    const drains = schedule();
    const first = drains.runNow();
    const second = drains.runNow();
    expect(passes).toBe(1);
    finish(EMPTY);
    expect(await first).toBe(await second);
    result = async () => EMPTY;
    await drains.runNow();
    expect(passes).toBe(2);
  });

  it('soon() passes at once; a hold moves it to the hold’s end', async () => {
    const drains = schedule();
    drains.soon();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);
    drains.holdUntil(Date.now() + 5000);
    drains.soon();
    await vi.advanceTimersByTimeAsync(4999);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);
  });

  it('a first retry is the first backoff step or the Retry-After, whichever is later, and never delays a planned pass', async () => {
    const drains = schedule();
    expect(drains.firstRetryAt() - Date.now()).toBe(BACKOFF.baseMs / 2);
    expect(drains.firstRetryAt(7000) - Date.now()).toBe(7000);
    drains.soon();
    drains.atUnlessScheduled(Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);
  });

  it('after a rate-limited pass, holds until its retry time; an empty queue schedules nothing', async () => {
    const drains = schedule();
    drains.afterPass({ stop: 'rate_limited', settled: [], retryAt: Date.now() + 10_000 });
    drains.soon();
    await vi.advanceTimersByTimeAsync(9999);
    expect(passes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(1);
    drains.afterPass(EMPTY);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes).toBe(1);
  });

  it('a failing pass is tried again after the longest backoff', async () => {
    result = async () => {
      throw new Error('disk I/O error');
    };
    const drains = schedule();
    drains.soon();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(BACKOFF.maxMs - 1);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);
    await drains.close();
  });

  it('without auto, and once closed, sets no timer', async () => {
    const manual = schedule(false);
    manual.soon();
    manual.later();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes).toBe(0);
    const closed = schedule();
    await closed.close();
    closed.soon();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes).toBe(0);
  });
});
