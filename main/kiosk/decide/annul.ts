/**
 * The rules of annulling a check-in at the door (docs/kiosk.md "Annul at the door"): how long after a
 * check-in staff may still undo it, and what the issuer's answer to an annulment means for the door.
 * Whether this scanner may annul at all is the last heartbeat's right (door-operations.ts canAnnul).
 *
 * Pure, in decide/: the flow that sends the annulment and records it is main/kiosk/door-annul.ts.
 */
import type { AnnulResult } from '../kiosk-api.js';
import type { CheckInAnswer } from './scan-decision.js';

/** How long after a check-in staff may still annul it at the door (KioskCoreOptions.annulWindowMs). */
export const DEFAULT_ANNUL_WINDOW_MS = 2 * 60_000;

export const ANNUL_NOT_ALLOWED_MESSAGE = 'this scanner may not annul check-ins: ask the box office';

/** The check-in is older than the annul window: too late to undo it at the door (null: still in time). */
export function annulTooLate(checkedInAt: string, nowMs: number, windowMs: number): AnnulResult | null {
  return nowMs - Date.parse(checkedInAt) > windowMs ? { type: 'too_late', checked_in_at: checkedInAt, window_ms: windowMs } : null;
}

/** What the door does with the issuer's answer to an annulment. */
export type AnnulAnswer =
  /** The answer to show; `tell_peers`: the issuer confirmed it, so the LAN's kiosks forget the admission too. */
  | { then: 'show' | 'tell_peers'; result: AnnulResult }
  /** The issuer refused this scanner's key: the annulment is held, the scanner unauthorised. */
  | { then: 'unauthorized' }
  /** No answer now: the annulment stays queued and is sent again (after Retry-After for a 429). */
  | { then: 'retry'; retryAfterMs: number | undefined; error: 'unreachable' | 'server_error' | 'rate_limited' };

export function annulAnswer(call: CheckInAnswer, tid: string): AnnulAnswer {
  switch (call.kind) {
    case 'answered':
      if (call.response.status === 'annulled') return { then: 'tell_peers', result: { type: 'annulled', tid } };
      if (call.response.status === 'not_checked_in') return { then: 'show', result: { type: 'not_checked_in', tid } };
      return { then: 'show', result: { type: 'unavailable', message: `the issuer answered ${call.response.status}` } };
    case 'action_not_allowed':
      return { then: 'show', result: { type: 'not_allowed', message: ANNUL_NOT_ALLOWED_MESSAGE } };
    case 'not_found':
      return { then: 'show', result: { type: 'not_checked_in', tid } };
    case 'signature_reported':
    case 'rejected':
      return {
        then: 'show',
        result: {
          type: 'unavailable',
          message: `the issuer refused the annulment (${call.kind === 'rejected' ? (call.code ?? call.status) : call.kind})`,
        },
      };
    case 'unauthorized':
      return { then: 'unauthorized' };
    case 'unreachable':
    case 'server_error':
      return { then: 'retry', retryAfterMs: undefined, error: call.kind };
    case 'rate_limited':
      return { then: 'retry', retryAfterMs: call.retryAfterMs, error: call.kind };
  }
}
