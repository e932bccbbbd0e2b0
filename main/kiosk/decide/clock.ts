/**
 * The kiosk's clock against the issuer's (docs/kiosk.md "The kiosk's clock"): what one issuer answer's
 * `Date` header says of the offset (issuer time minus kiosk time), what the answers so far say together,
 * the issuer's time as last known (the kiosk's clock plus that offset), and whether staff are warned.
 *
 * Pure, in decide/: the client measures (sync/issuer-client.ts), sync/issuer-clock.ts keeps what is known.
 */
import type { KioskClockState } from '../../../renderer/kiosk-bridge-types.js';

/** Ready warns staff when the kiosk's clock is further than this from the issuer's (docs/kiosk.md "The kiosk's clock"). */
export const CLOCK_WARNING_MS = 60_000;

/**
 * An answer whose round trip took longer than this says too little of the clock to be used: the issuer
 * may have written its Date anywhere in it.
 */
export const MAX_SAMPLE_ROUND_TRIP_MS = 10_000;

/** What one answer says: the offset (issuer time minus kiosk time, ms) lies between these bounds. */
export interface OffsetBounds {
  low_ms: number;
  high_ms: number;
}

/** What the answers so far say of the offset, as kept in the local store. */
export interface KnownClock extends OffsetBounds {
  /** The estimate used: the smallest correction within the bounds (0 when they hold 0), in whole ms. */
  offset_ms: number;
  /** The kiosk's time (epoch ms) of the last answer. */
  measured_at_ms: number;
}

/**
 * The offset one answer shows. HTTP's Date has whole seconds (RFC 9110 "Date"): the issuer wrote it
 * during the second [Date, Date + 1 s), somewhere between the kiosk sending the request (sentAtMs) and
 * receiving the answer (receivedAtMs), both on the kiosk's clock. So the offset lies in
 * [Date - receivedAtMs, Date + 1000 - sentAtMs]. Null when the header is missing or unreadable, or the
 * round trip is negative or too long to say anything useful.
 */
export function offsetBoundsOf(dateHeader: string | null, sentAtMs: number, receivedAtMs: number): OffsetBounds | null {
  if (dateHeader === null) return null;
  const issuerMs = Date.parse(dateHeader);
  if (!Number.isFinite(issuerMs) || !Number.isFinite(sentAtMs) || !Number.isFinite(receivedAtMs)) return null;
  const roundTripMs = receivedAtMs - sentAtMs;
  if (roundTripMs < 0 || roundTripMs > MAX_SAMPLE_ROUND_TRIP_MS) return null;
  const second = Math.floor(issuerMs / 1000) * 1000;
  return { low_ms: second - receivedAtMs, high_ms: second + 1000 - sentAtMs };
}

/**
 * What is known after one more answer. Every answer's bounds hold the true offset while neither clock
 * is changed, so they are intersected: the estimate narrows well below the Date header's second, and
 * sub-second noise (where in its second the issuer wrote Date, how long the trip took) moves it only
 * within what was already known. Bounds that do not meet what is known mean a clock was set (NTP, staff,
 * a drift grown past the bounds): the new answer alone is then what is known.
 */
export function nextKnownClock(known: KnownClock | null, bounds: OffsetBounds, atMs: number): KnownClock {
  const meets = known !== null && bounds.low_ms <= known.high_ms && known.low_ms <= bounds.high_ms;
  const low = meets ? Math.max(known.low_ms, bounds.low_ms) : bounds.low_ms;
  const high = meets ? Math.min(known.high_ms, bounds.high_ms) : bounds.high_ms;
  return { low_ms: low, high_ms: high, offset_ms: smallestCorrection(low, high), measured_at_ms: atMs };
}

/**
 * The offset used: the smallest correction the answers allow. 0 while the bounds hold 0: the kiosk's clock
 * agrees with the issuer's as far as a Date header can tell, and is kept as it is, to the millisecond, so two
 * kiosks synced by NTP still order a ticket's scans as they happened (docs/protocol.md "Late scans are
 * ordered by `scanned_at`"); a middle of the bounds would move each by up to half a second its own way.
 */
function smallestCorrection(low: number, high: number): number {
  if (low <= 0 && 0 <= high) return 0;
  return Math.round(high < 0 ? high : low);
}

/** The issuer's time as last known (docs/kiosk.md "The kiosk's clock"): the kiosk's clock plus the last offset; the kiosk's clock before any answer. */
export function issuerTimeAsLastKnown(kioskNowMs: number, known: KnownClock | null): number {
  return known === null ? kioskNowMs : kioskNowMs + known.offset_ms;
}

/** Whether staff are warned: the kiosk's clock is more than a minute from the issuer's. */
export function clockWarns(known: KnownClock | null): boolean {
  return known !== null && Math.abs(known.offset_ms) > CLOCK_WARNING_MS;
}

/** What the screens show of the clock (KioskState.clock). */
export type ClockView = KioskClockState;

export function clockView(known: KnownClock | null): ClockView {
  return {
    offset_ms: known?.offset_ms ?? null,
    warn: clockWarns(known),
    measured_at: known ? new Date(known.measured_at_ms).toISOString() : null,
  };
}
