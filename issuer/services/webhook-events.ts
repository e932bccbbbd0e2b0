/**
 * What the issuer tells other systems (docs/issuer.md "Webhooks"): the event types, the body of a message, and
 * when a failed delivery is tried again. Pure.
 */
import crypto from 'node:crypto';

export const WEBHOOK_EVENT_TYPES = [
  'checkin.created',
  'checkin.exited',
  'checkin.annulled',
  'ticket.revoked',
  'scanner.enrolled',
  'scanner.revoked',
  'audit.head',
  'double_admission.detected',
  // docs/protocol.md "Handouts (project extension)": each handout given (a refused one is not).
  'handout.given',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent only by `webhook test`, to the one endpoint tested; nobody subscribes to it. */
export const TEST_EVENT_TYPE = 'webhook.test';

export const isWebhookEventType = (value: string): value is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);

/** The body of every message: its type, when it happened, and what (no holder names: a receiver looks a tid up). */
export interface WebhookBody {
  type: WebhookEventType | typeof TEST_EVENT_TYPE;
  timestamp: string;
  data: Record<string, unknown>;
}

/** A message id: unique, and the receiver's idempotency key (`webhook-id`). */
export const newMessageId = (): string => `msg_${randomHex(12)}`;

/**
 * Random bytes as hex, cut from a pool filled 4 KiB at a time: every check-in makes a message id (the outbox
 * decides only afterwards whether an endpoint takes it), and a randomBytes call of its own cost a check-in about
 * 3% of the database thread's time (docs/benchmarks.md "SQLite check-in cost, and the half rate in bursts"). The same CSPRNG; each byte is used once.
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolAt = POOL_SIZE;
function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    pool = crypto.randomBytes(POOL_SIZE);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}
export const newEndpointId = (): string => `whe_${crypto.randomBytes(8).toString('hex')}`;

/**
 * Seconds to wait after the n-th failed attempt (n from 1): quick at first, for a receiver restarting, then
 * hours apart; about 24 hours from the first attempt to the last. After the last the delivery is dead-lettered.
 */
export const RETRY_DELAYS_S: readonly number[] = [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800];
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

/** When to try again after `attempts` failed attempts, or null: dead-letter it. */
export function nextAttemptAt(attempts: number, nowMs: number): string | null {
  const delay = RETRY_DELAYS_S[attempts - 1];
  return delay === undefined ? null : new Date(nowMs + delay * 1000).toISOString();
}

/** The event types of `--events`: a comma list of known types, or `all`. */
export function parseEventTypes(text: string): WebhookEventType[] | '*' {
  const wanted = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (wanted.length === 1 && wanted[0] === 'all') return '*';
  if (wanted.length === 0) throw new Error(`name the events: ${WEBHOOK_EVENT_TYPES.join(', ')}, or all`);
  for (const type of wanted) {
    if (!isWebhookEventType(type)) throw new Error(`unknown event "${type}": use ${WEBHOOK_EVENT_TYPES.join(', ')}, or all`);
  }
  return [...new Set(wanted as WebhookEventType[])];
}
