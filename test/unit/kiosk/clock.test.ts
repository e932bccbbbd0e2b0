/** decide/clock.ts: what the issuer's Date headers say of the kiosk's clock (docs/kiosk.md "The kiosk's clock"). */
import { describe, expect, it } from 'vitest';
import {
  CLOCK_WARNING_MS,
  clockView,
  clockWarns,
  issuerTimeAsLastKnown,
  nextKnownClock,
  offsetBoundsOf,
  type KnownClock,
} from '../../../main/kiosk/decide/clock.js';

const ISSUER_SECOND = Date.parse('2026-06-01T18:00:00Z');
const DATE = new Date(ISSUER_SECOND).toUTCString(); // "Mon, 01 Jun 2026 18:00:00 GMT": whole seconds
const HOUR_MS = 3_600_000;

describe('offsetBoundsOf: one answer', () => {
  it('bounds the offset by the Date second and the round trip, on the kiosk clock', () => {
    // The kiosk runs 2 h ahead; the request left at +0.1 s and the answer came at +0.3 s into the issuer's second.
    const sent = ISSUER_SECOND + 2 * HOUR_MS + 100;
    const received = ISSUER_SECOND + 2 * HOUR_MS + 300;
    const bounds = offsetBoundsOf(DATE, sent, received)!;
    expect(bounds).toEqual({ low_ms: -2 * HOUR_MS - 300, high_ms: -2 * HOUR_MS + 900 });
  });

  it('says nothing without a readable Date, or with a round trip that is negative or too long', () => {
    expect(offsetBoundsOf(null, 0, 10)).toBeNull();
    expect(offsetBoundsOf('yesterday-ish', 0, 10)).toBeNull();
    expect(offsetBoundsOf(DATE, 10, 0)).toBeNull();
    expect(offsetBoundsOf(DATE, 0, 60_000)).toBeNull();
  });
});

describe('nextKnownClock: the answers together', () => {
  it('narrows below a second by intersecting answers, so sub-second noise does not move it outside what was known', () => {
    // True offset -7,200,250 ms: each answer's bounds hold it.
    const first = nextKnownClock(null, { low_ms: -7_201_000, high_ms: -7_200_000 }, 1);
    const second = nextKnownClock(first, { low_ms: -7_200_400, high_ms: -7_199_500 }, 2);
    // The smallest correction the bounds allow (the bound nearest 0).
    expect(second).toEqual({ low_ms: -7_200_400, high_ms: -7_200_000, offset_ms: -7_200_000, measured_at_ms: 2 });
  });

  it("keeps a kiosk's own clock, to the millisecond, while the answers agree with it (bounds that hold 0)", () => {
    // Two kiosks synced by NTP: Date's one-second resolution must not move either one's scan times.
    const a = nextKnownClock(null, { low_ms: -700, high_ms: 300 }, 1);
    const b = nextKnownClock(null, { low_ms: -200, high_ms: 800 }, 1);
    expect([a.offset_ms, b.offset_ms]).toEqual([0, 0]);
    expect(issuerTimeAsLastKnown(5_000, a)).toBe(5_000);
    // A clock a second and more behind: corrected by the least the answers need.
    expect(nextKnownClock(null, { low_ms: 1_200, high_ms: 2_200 }, 1).offset_ms).toBe(1_200);
  });

  it('starts again from the new answer when it does not meet what was known (a clock was set)', () => {
    const known = nextKnownClock(null, { low_ms: -7_201_000, high_ms: -7_200_000 }, 1);
    const after = nextKnownClock(known, { low_ms: -500, high_ms: 500 }, 2);
    expect(after).toEqual({ low_ms: -500, high_ms: 500, offset_ms: 0, measured_at_ms: 2 });
  });
});

describe('the issuer time as last known, and the warning', () => {
  const known = (offset: number): KnownClock => ({ low_ms: offset, high_ms: offset, offset_ms: offset, measured_at_ms: 0 });

  it('is the kiosk clock plus the last offset; the kiosk clock alone before any answer', () => {
    expect(issuerTimeAsLastKnown(10 * HOUR_MS, known(-2 * HOUR_MS))).toBe(8 * HOUR_MS);
    expect(issuerTimeAsLastKnown(10 * HOUR_MS, null)).toBe(10 * HOUR_MS);
  });

  it('warns past a minute either way, not at it', () => {
    expect(clockWarns(known(CLOCK_WARNING_MS))).toBe(false);
    expect(clockWarns(known(-CLOCK_WARNING_MS))).toBe(false);
    expect(clockWarns(known(CLOCK_WARNING_MS + 1))).toBe(true);
    expect(clockWarns(known(-2 * HOUR_MS))).toBe(true);
    expect(clockWarns(null)).toBe(false);
    expect(clockView(known(-2 * HOUR_MS))).toEqual({ offset_ms: -2 * HOUR_MS, warn: true, measured_at: '1970-01-01T00:00:00.000Z' });
    expect(clockView(null)).toEqual({ offset_ms: null, warn: false, measured_at: null });
  });
});
