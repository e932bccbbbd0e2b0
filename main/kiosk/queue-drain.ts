/**
 * Sends the offline queue to the issuer (spec "Offline behaviour of a
 * scanner": send the queue when connectivity returns, with the stored
 * idempotency keys). Oldest first, at most `concurrency` requests in flight.
 * Every answer is committed as it arrives, so a crash mid-drain loses nothing
 * and resends only unanswered scans, with the same key and body.
 */
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import type { CheckInCall, IssuerClient } from './issuer-client.js';
import { checkInRequestFor, type LocalStore, type StoredScan } from './local-store.js';

export interface DrainDeps {
  store: LocalStore;
  client: IssuerClient;
  /** The enrolled issuer: only its scans are sent (with its check-in URL). */
  iss: string;
  checkInUrl: string;
  apiKey: string;
  now: () => number;
  random?: () => number;
  concurrency?: number;
  /** Per request; the drain is not on the door's critical path, so this is longer than the scan budget. */
  timeoutMs?: number;
  backoff?: BackoffOptions;
  /** How many due scans one call looks at. */
  batchLimit?: number;
  signal?: AbortSignal;
}

/** Why a drain pass ended. */
export type DrainStop = 'empty' | 'offline' | 'rate_limited' | 'unauthorized' | 'aborted';

export interface DrainReport {
  stop: DrainStop;
  /** Scans the issuer answered (or finally rejected) in this pass. */
  settled: StoredScan[];
  /** When the next pass is worth trying (backoff or Retry-After), if the queue is not empty. */
  retryAt: number | null;
}

export const DEFAULT_DRAIN_CONCURRENCY = 4;

export async function drainQueue(deps: DrainDeps): Promise<DrainReport> {
  const concurrency = Math.max(1, deps.concurrency ?? DEFAULT_DRAIN_CONCURRENCY);
  const random = deps.random ?? Math.random;
  const backoff = deps.backoff ?? DEFAULT_BACKOFF;
  const settled: StoredScan[] = [];
  let stop: DrainStop | null = null;
  let blockedUntil: number | null = null;

  while (stop === null) {
    const due = deps.store.dueScans(deps.now(), deps.batchLimit ?? 200).filter((scan) => scan.iss === deps.iss);
    if (due.length === 0) break;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (stop === null && next < due.length) {
        if (deps.signal?.aborted) {
          stop = 'aborted';
          return;
        }
        const scan = due[next++]!;
        const call = await deps.client.checkIn(deps.checkInUrl, deps.apiKey, checkInRequestFor(scan), {
          timeoutMs: deps.timeoutMs ?? 10_000,
          ...(deps.signal ? { signal: deps.signal } : {}),
        });
        const outcome = record(deps, scan, call, random, backoff);
        if (outcome.settled) settled.push(deps.store.scan(scan.idempotency_key)!);
        if (outcome.stop && stop === null) stop = outcome.stop;
        if (outcome.retryAt !== undefined) blockedUntil = Math.max(blockedUntil ?? 0, outcome.retryAt);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  }
  const finalStop: DrainStop = stop ?? 'empty';
  return { stop: finalStop, settled, retryAt: retryAtFor(finalStop, blockedUntil, deps.store.nextDueAt()) };
}

function retryAtFor(stop: DrainStop, blockedUntil: number | null, nextDue: number | null): number | null {
  switch (stop) {
    case 'offline':
    case 'rate_limited':
      // The issuer is down or asked us to wait: nothing is worth sending before that.
      return blockedUntil ?? nextDue;
    case 'unauthorized':
      return null; // only a re-enrollment can help
    case 'empty':
    case 'aborted':
      return nextDue; // scans waiting out their own backoff, if any
  }
}

interface RecordOutcome {
  settled: boolean;
  stop?: DrainStop;
  retryAt?: number;
}

/** Commits what one call taught us about one scan. */
function record(deps: DrainDeps, scan: StoredScan, call: CheckInCall, random: () => number, backoff: BackoffOptions): RecordOutcome {
  const answeredAt = new Date(deps.now()).toISOString();
  const { store } = deps;
  switch (call.kind) {
    case 'answered':
      store.recordAnswer(scan.idempotency_key, { status: call.response.status, body: call.response, answeredAt, final: 'done' });
      return { settled: true };
    case 'signature_reported':
    case 'not_found':
      store.recordAnswer(scan.idempotency_key, { status: call.kind, body: null, answeredAt, final: 'done' });
      return { settled: true };
    case 'rejected':
      // 400/409: resending the same request cannot succeed (e.g. scanned_at older than 48 h).
      store.recordAnswer(scan.idempotency_key, {
        status: 'rejected',
        body: { status: call.status, code: call.code ?? null, details: call.details ?? null },
        answeredAt,
        final: 'failed',
        error: call.code ?? `HTTP ${call.status}`,
      });
      return { settled: true };
    case 'unauthorized':
      // Not the scan's fault: it stays queued untouched until the kiosk re-enrolls.
      return { settled: false, stop: 'unauthorized' };
    case 'rate_limited': {
      const wait = call.retryAfterMs ?? backoffDelayMs(scan.attempts, random, backoff);
      const retryAt = deps.now() + wait;
      store.recordRetry(scan.idempotency_key, retryAt, 'RATE_LIMITED');
      return { settled: false, stop: 'rate_limited', retryAt };
    }
    case 'unreachable':
    case 'server_error': {
      const retryAt = deps.now() + backoffDelayMs(scan.attempts, random, backoff);
      store.recordRetry(scan.idempotency_key, retryAt, call.kind === 'unreachable' ? call.detail : `HTTP ${call.status}`);
      return { settled: false, stop: 'offline', retryAt };
    }
  }
}
