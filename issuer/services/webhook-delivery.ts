/**
 * Sends the webhook messages (docs/issuer.md "Webhooks"), in every `serve` process: claims due deliveries for a
 * while (one process at a time has a delivery; on PostgreSQL `FOR UPDATE SKIP LOCKED`), POSTs each, signed, to
 * its endpoint, and records the batch's outcomes in one write job (one commit): delivered on a 2xx, else tried
 * again later (webhook-events.ts RETRY_DELAYS_S), and dead-lettered with the reason after the last attempt. At
 * least once: a process killed after the receiver answered and before the outcomes were recorded sends them again
 * when the claim runs out, with the same `webhook-id`, which the receiver uses to drop the repeat.
 */
import { namedJob } from '../store/named-jobs.js';
import type { SqlDatabase } from '../store/sql.js';
import { claimDueDeliveries, recordAttempts, type ClaimedDelivery, type DeliveryAttempt } from '../store/webhooks.js';
import { nextAttemptAt } from './webhook-events.js';
import { signWebhook } from './webhook-signature.js';

/** A claimed delivery belongs to its process this long: well past the request's timeout. */
export const CLAIM_MS = 60_000;
export const REQUEST_TIMEOUT_MS = 10_000;
const BATCH = 50;
const IDLE_POLL_MS = 500;

export const claimDeliveriesWrite = namedJob('webhook-claim', (db, args: { now: string; leaseUntil: string; limit: number }) =>
  claimDueDeliveries(db, args.now, args.leaseUntil, args.limit),
);

/** A batch's outcomes, one commit for all (docs/issuer.md "Webhooks"). */
export const recordAttemptsWrite = namedJob('webhook-outcomes', (db, args: { attempts: DeliveryAttempt[] }) =>
  recordAttempts(db, args.attempts),
);

export interface DeliveryOutcome {
  ok: boolean;
  status: number | null;
  /** Why it failed, in words for the operator (never the secret or the body). */
  error: string | null;
}

/** POSTs one message, signed, and says how it went. */
export async function sendOne(
  delivery: Pick<ClaimedDelivery, 'message_id' | 'payload' | 'url' | 'secret'>,
  nowMs: number,
): Promise<DeliveryOutcome> {
  const headers = signWebhook(delivery.secret, delivery.message_id, nowMs / 1000, delivery.payload);
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'ticket-issuer-webhooks', ...headers },
      body: delivery.payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    // The answer's body is of no use; reading it lets the connection be reused.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status, error: null };
    return { ok: false, status: response.status, error: `the endpoint answered ${response.status}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const name = (error as Error).name;
    return {
      ok: false,
      status: null,
      error:
        name === 'TimeoutError'
          ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`
          : `could not reach the endpoint${cause ? ` (${cause})` : ''}`,
    };
  }
}

/** What to record of one attempt: delivered, or failed and when to try again (null: dead-lettered). Pure. */
export function attemptOf(
  delivery: Pick<ClaimedDelivery, 'message_id' | 'endpoint_id' | 'attempts'>,
  outcome: DeliveryOutcome,
  atMs: number,
): DeliveryAttempt {
  return {
    message_id: delivery.message_id,
    endpoint_id: delivery.endpoint_id,
    delivered: outcome.ok,
    status: outcome.status,
    error: outcome.error,
    at: new Date(atMs).toISOString(),
    nextAttemptAt: outcome.ok ? null : nextAttemptAt(delivery.attempts + 1, atMs),
  };
}

export interface Deliverer {
  /** Sends what is due now, at once (the tests, `webhook test`); resolves when the batch is recorded. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the loop: what is due is sent, a full batch at once again, else after a short pause. */
export function startDeliverer(database: SqlDatabase, onError: (error: unknown) => void, now: () => number = Date.now): Deliverer {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  const runOnce = async (): Promise<number> => {
    const nowMs = now();
    // A read first: a process with nothing to send writes nothing (SQLite would take its write lock every poll).
    const due = await database.read.get(
      "SELECT 1 AS one FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?) LIMIT 1",
      [new Date(nowMs).toISOString(), new Date(nowMs).toISOString()],
    );
    if (due === undefined) return 0;
    const claimed = await database.write(
      claimDeliveriesWrite({ now: new Date(nowMs).toISOString(), leaseUntil: new Date(nowMs + CLAIM_MS).toISOString(), limit: BATCH }),
    );
    if (claimed.length === 0) return 0; // another process claimed them first
    const attempts = await Promise.all(claimed.map(async (delivery) => attemptOf(delivery, await sendOne(delivery, now()), now())));
    await database.write(recordAttemptsWrite({ attempts }));
    return claimed.length;
  };

  const loop = (): void => {
    if (stopped) return;
    running = runOnce().catch((error: unknown) => {
      onError(error);
      return 0;
    });
    void running.then((sent) => {
      running = null;
      if (!stopped) timer = setTimeout(loop, sent >= BATCH ? 0 : IDLE_POLL_MS);
    });
  };
  timer = setTimeout(loop, 0);

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}
