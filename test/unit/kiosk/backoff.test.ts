import { describe, expect, it } from 'vitest';
import { backoffDelayMs, parseRetryAfterMs } from '../../../main/kiosk/decide/backoff.js';

describe('backoffDelayMs', () => {
  const options = { baseMs: 100, maxMs: 1000 };
  it.each([
    [0, 50, 100],
    [1, 100, 200],
    [2, 200, 400],
    [3, 400, 800],
    [4, 500, 1000],
    [40, 500, 1000],
  ])('attempt %i lies in [%i, %i]', (attempt, low, high) => {
    expect(backoffDelayMs(attempt, () => 0, options)).toBe(low);
    expect(backoffDelayMs(attempt, () => 0.999999, options)).toBeLessThanOrEqual(high);
    expect(backoffDelayMs(attempt, () => 0.999999, options)).toBeGreaterThan(high * 0.99);
  });
  it('never retries at once, even with jitter at its lowest', () => {
    expect(backoffDelayMs(0, () => 0)).toBeGreaterThan(0);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-06-01T20:00:00Z');
  it.each([
    ['7', 7000],
    [' 0 ', 0],
    ['Mon, 01 Jun 2026 20:00:30 GMT', 30_000],
    ['Mon, 01 Jun 2026 19:00:00 GMT', 0],
  ])('%j → %i ms', (value, ms) => expect(parseRetryAfterMs(value, now)).toBe(ms));
  it.each([[null], [undefined], [''], ['soon'], ['-5'], ['1.5']])('%j → undefined', (value) => {
    expect(parseRetryAfterMs(value, now)).toBeUndefined();
  });
});
