/**
 * Sends the offline queue to the issuer (docs/protocol.md "Idempotency and
 * offline scans": send the queue when the network is back, with the stored
 * idempotency keys). Oldest first, at most `concurrency` requests in flight.
 * Every answer is committed before its worker sends the next scan, so a crash
 * mid-drain loses nothing and resends only unanswered scans, with the same
 * key and body (the issuer replays its stored answer: docs/protocol.md "Precedence", check 3).
 *
 * Answers that arrive within one event-loop turn share ONE transaction (group
 * commit, like the issuer's): with synchronous=FULL every commit is an fsync,
 * and one fsync per answer would cap the drain at the disk's fsync rate.
 */
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from '../decide/backoff.js';
import type { CheckInCall, IssuerClient, RateBudget } from './issuer-client.js';
import { checkInRequestFor, type LocalStore, type NewScan, type StoredScan } from '../store/local-store.js';

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

/** Why a drain pass ended. `leaving_room`: the rest of this rate-limit window is kept for live scans. */
export type DrainStop = 'empty' | 'offline' | 'rate_limited' | 'leaving_room' | 'unauthorized' | 'aborted';

export interface DrainReport {
  stop: DrainStop;
  /** Scans the issuer answered (or finally rejected) in this pass. */
  settled: StoredScan[];
  /** When the next pass is worth trying (backoff or Retry-After), if the queue is not empty. */
  retryAt: number | null;
}

/**
 * Requests in flight while draining. More in flight means more answers per
 * commit on both sides (the kiosk's and the issuer's group commits): on a
 * 2-core machine 8 drained about 1.4x faster than 4 (docs/benchmarks.md "Kiosk").
 * The issuer's per-scanner rate limit still bounds the drain (429 → Retry-After).
 */
export const DEFAULT_DRAIN_CONCURRENCY = 8;

/**
 * The live scans' share of the per-scanner rate limit. The limit counts the
 * door's scans and the drain's together (docs/protocol.md "Rate
 * limits"), so a drain that used it all up would leave the next guests to a
 * 429, i.e. to the offline policy (a refusal under the strict one). When the
 * issuer says (RateLimit-* headers) that no more than this is left, counting
 * every request the drain sent after the one that answer was for as spent
 * (checked before each send), the drain waits for the
 * next window. A tenth of 600 a minute is 60: more than a busy door scans in
 * a minute.
 */
export function liveScanReserve(limit: number): number {
  return Math.max(MIN_LIVE_SCAN_RESERVE, Math.ceil(limit * LIVE_SCAN_RESERVE_FRACTION));
}
const LIVE_SCAN_RESERVE_FRACTION = 0.1;
const MIN_LIVE_SCAN_RESERVE = 10;

export async function drainQueue(deps: DrainDeps): Promise<DrainReport> {
  const concurrency = Math.max(1, deps.concurrency ?? DEFAULT_DRAIN_CONCURRENCY);
  const random = deps.random ?? Math.random;
  const backoff = deps.backoff ?? DEFAULT_BACKOFF;
  const settled: StoredScan[] = [];
  const commits = new GroupCommit(deps.store);
  let stop: DrainStop | null = null;
  let blockedUntil: number | null = null;
  // The rate budget as the issuer last reported it: the answer to the most recently SENT request that carried
  // one (`seq`), and how many requests went out after it, which that answer did not count yet. Checked before
  // every send, not only as answers come in: answers often arrive together, and each worker deciding alone on
  // its own answer would send one more each, eating into the door's reserve.
  let sent = 0;
  let latest: (RateBudget & { seq: number }) | null = null;
  const leftAfterOurs = (budget: RateBudget & { seq: number }): number => budget.remaining - (sent - budget.seq);

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
        if (latest !== null && leftAfterOurs(latest) <= liveScanReserve(latest.limit)) {
          stop = 'leaving_room';
          blockedUntil = Math.max(blockedUntil ?? 0, deps.now() + latest.resetMs);
          return;
        }
        const scan = due[next++]!;
        const seq = ++sent;
        const call = await deps.client.checkIn(deps.checkInUrl, deps.apiKey, checkInRequestFor(scan), {
          timeoutMs: deps.timeoutMs ?? 10_000,
          ...(deps.signal ? { signal: deps.signal } : {}),
        });
        if (call.kind === 'answered' && call.rateBudget && (latest === null || seq > latest.seq)) latest = { ...call.rateBudget, seq };
        const sentAfter = sent - seq;
        const outcome = await commits.run(() => record(deps, scan, call, random, backoff, sentAfter));
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

/** Runs the jobs queued within one event-loop turn in one transaction; each caller resumes after that commit. */
class GroupCommit {
  private jobs: { work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly store: LocalStore) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // setImmediate: after this turn's I/O callbacks, so answers read together commit together.
      if (this.jobs.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const jobs = this.jobs;
    this.jobs = [];
    let results: unknown[];
    try {
      results = this.store.atomically(() => jobs.map((job) => job.work()));
    } catch (error) {
      // Nothing of the batch is on disk: every scan in it stays queued and is sent again later, same key.
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, i) => job.resolve(results[i]));
  }
}

function retryAtFor(stop: DrainStop, blockedUntil: number | null, nextDue: number | null): number | null {
  switch (stop) {
    case 'offline':
    case 'rate_limited':
    case 'leaving_room':
      // The issuer is down, asked us to wait, or the rest of the window is the door's: nothing is worth sending before that.
      return blockedUntil ?? nextDue;
    case 'unauthorized':
      return null; // only a re-enrollment can help
    case 'empty':
    case 'aborted':
      return nextDue; // scans waiting out their own backoff, if any
  }
}

/**
 * An entry this kiosk admitted while the issuer did not answer (its request had gone out, so it was queued
 * as sent, without `admitted_offline`), answered `venue_full` when it finally reached the issuer: the person
 * is inside all the same. venue_full changed nothing at the issuer, so the entry is queued once more, under
 * a new idempotency key and saying `admitted_offline`, which the issuer never refuses for capacity
 * (docs/protocol.md "Occupancy"). Without it the admission would go unrecorded and the ticket stay usable.
 */
function resendAsAdmitted(store: LocalStore, scan: StoredScan): void {
  const resend: NewScan = {
    code: scan.code,
    iss: scan.iss,
    tid: scan.tid,
    eid: scan.eid,
    gate_id: scan.gate_id,
    scanner_id: scan.scanner_id,
    scanned_at: scan.scanned_at,
    signature_status: scan.signature_status,
    queue_state: 'pending',
    action: 'entry',
    ticket_type: scan.ticket_type,
    sent_as_offline: true,
    // A party's part keeps its people (docs/kiosk.md "Party tickets"): the issuer counts what still fits.
    ...(scan.people === null ? {} : { people: scan.people }),
  };
  store.insertScan(resend);
}

/** What the store keeps of an issuer's answer to one scan: LocalStore.recordAnswer's argument. */
export type StoredAnswer = Parameters<LocalStore['recordAnswer']>[1];

/**
 * The store's record of a final answer to one check-in call, or null when
 * the call settled nothing (offline, rate-limited, a server error, a
 * revoked key): one mapping for the door's own scan and the queue drain.
 */
export function storedAnswerOf(call: CheckInCall, answeredAt: string): StoredAnswer | null {
  switch (call.kind) {
    case 'answered':
      return { status: call.response.status, body: call.response, answeredAt, final: 'done' };
    case 'signature_reported':
    case 'not_found':
      return { status: call.kind, body: null, answeredAt, final: 'done' };
    case 'action_not_allowed':
      // An annulment this scanner has no right to: resending cannot succeed (docs/kiosk.md "Annul at the door").
      return { status: call.kind, body: null, answeredAt, final: 'failed', error: 'FORBIDDEN action_not_allowed' };
    case 'rejected':
      // 400/409: resending the same request cannot succeed (e.g. scanned_at older than 48 h).
      return {
        status: 'rejected',
        body: { status: call.status, code: call.code ?? null, details: call.details ?? null },
        answeredAt,
        final: 'failed',
        error: call.code ?? `HTTP ${call.status}`,
      };
    default:
      return null;
  }
}

interface RecordOutcome {
  settled: boolean;
  stop?: DrainStop;
  retryAt?: number;
}

/**
 * Commits what one call taught us about one scan. `sentAfter`: drain requests
 * sent after this one, which the issuer's remaining budget in its answer does
 * not count yet; they are counted against the live scans' reserve.
 */
function record(
  deps: DrainDeps,
  scan: StoredScan,
  call: CheckInCall,
  random: () => number,
  backoff: BackoffOptions,
  sentAfter: number,
): RecordOutcome {
  const { store } = deps;
  const answer = storedAnswerOf(call, new Date(deps.now()).toISOString());
  if (answer !== null) store.recordAnswer(scan.idempotency_key, answer);
  switch (call.kind) {
    case 'answered': {
      // rule_refused likewise (docs/kiosk.md "Check-in rules offline"): the rules changed after this kiosk admitted the person.
      // party_exceeded likewise (docs/kiosk.md "Party tickets"): the party filled elsewhere after this kiosk let the part in.
      const refusedAfterTheFact =
        call.response.status === 'venue_full' || call.response.status === 'rule_refused' || call.response.status === 'party_exceeded';
      if (refusedAfterTheFact && scan.admitted_offline && !scan.sent_as_offline) resendAsAdmitted(store, scan);
      const budget = call.rateBudget;
      if (budget && budget.remaining - sentAfter <= liveScanReserve(budget.limit)) {
        return { settled: true, stop: 'leaving_room', retryAt: deps.now() + budget.resetMs };
      }
      return { settled: true };
    }
    case 'signature_reported':
    case 'not_found':
    case 'action_not_allowed':
    case 'rejected':
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
