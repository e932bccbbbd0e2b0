/**
 * The webhook tables (docs/issuer.md "Webhooks"): endpoints, the outbox of messages, and each message's delivery
 * to each endpoint. A message and its deliveries are written by `enqueueWebhook` inside the write job of the change
 * it tells of, so a message exists exactly when its change committed. Deliveries are claimed for a while
 * (`claimed_until`) by one serving process at a time: on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so two
 * processes claiming at once take different rows; on SQLite the write lock serialises the claims.
 */
import type { WebhookEndpointView } from '../dashboard-api.js';
import type { Dialect, Sql } from './sql.js';
import type { WriteBatch } from './write-batch.js';

export interface WebhookEndpointRow {
  endpoint_id: string;
  url: string;
  /** Event types, space-separated, or '*'. */
  events: string;
  eid: string | null;
  secret: string;
  created_at: string;
  disabled_at: string | null;
}

/** An endpoint and its health, as `webhook list` and the dashboard show it; never its secret. */
export type EndpointHealth = WebhookEndpointView;

export interface ClaimedDelivery {
  message_id: string;
  endpoint_id: string;
  attempts: number;
  type: string;
  payload: string;
  url: string;
  secret: string;
}

export async function insertEndpoint(db: Sql, row: WebhookEndpointRow): Promise<void> {
  await db.run(
    'INSERT INTO webhook_endpoints (endpoint_id, url, events, eid, secret, created_at, disabled_at) VALUES (@endpoint_id, @url, @events, @eid, @secret, @created_at, @disabled_at)',
    { ...row },
  );
}

export function findEndpoint(db: Sql, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.get<WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE endpoint_id = ?', [endpointId]);
}

/** Stops new messages and further deliveries to the endpoint; its pending deliveries wait (a replay sends them later). */
export async function disableEndpoint(db: Sql, endpointId: string, now: string): Promise<boolean> {
  return (
    (await db.run('UPDATE webhook_endpoints SET disabled_at = COALESCE(disabled_at, ?) WHERE endpoint_id = ?', [now, endpointId]))
      .changes === 1
  );
}

/** Sends to the endpoint again: its deliveries still waiting are due as they were (docs/issuer.md "Webhooks"). */
export async function enableEndpoint(db: Sql, endpointId: string): Promise<boolean> {
  return (await db.run('UPDATE webhook_endpoints SET disabled_at = NULL WHERE endpoint_id = ?', [endpointId])).changes === 1;
}

export function endpointHealth(db: Sql): Promise<EndpointHealth[]> {
  return db.all<EndpointHealth>(
    `SELECT e.endpoint_id, e.url, e.events, e.eid, e.created_at, e.disabled_at,
       (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state = 'pending') AS pending,
       (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state = 'delivered') AS delivered,
       (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state = 'dead') AS dead,
       (SELECT max(d.delivered_at) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state = 'delivered') AS last_delivered_at,
       (SELECT d.last_error FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state <> 'delivered' AND d.last_error IS NOT NULL
          ORDER BY d.next_attempt_at DESC LIMIT 1) AS last_error,
       (SELECT d.last_status FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state <> 'delivered' AND d.last_error IS NOT NULL
          ORDER BY d.next_attempt_at DESC LIMIT 1) AS last_status
     FROM webhook_endpoints e ORDER BY e.created_at, e.endpoint_id`,
  );
}

/**
 * Writes a delivery of a message to every active endpoint that takes its type (and its event, if the endpoint is
 * for one event), and then the message itself, if any endpoint took it: a change no endpoint wants leaves no row.
 * Two writes of the change's batch (write-batch.ts): all of it commits with the change, or none.
 */
export function addMessageTo(
  batch: WriteBatch,
  dialect: Dialect,
  message: { message_id: string; type: string; eid: string | null; payload: string; created_at: string },
): void {
  // Millisecond ISO times throughout these tables, so that they compare as text (the issuer's isoUtc has none).
  const at = new Date(message.created_at).toISOString();
  const contains = dialect === 'postgres' ? "strpos(' ' || events || ' ', @needle) > 0" : "instr(' ' || events || ' ', @needle) > 0";
  const deliveries = batch.add({
    sql: `INSERT INTO webhook_deliveries (message_id, endpoint_id, state, attempts, next_attempt_at)
     SELECT @message_id, endpoint_id, 'pending', 0, @now FROM webhook_endpoints
     WHERE disabled_at IS NULL AND (eid IS NULL OR eid = @eid) AND (events = '*' OR ${contains})`,
    params: { message_id: message.message_id, now: at, eid: message.eid, needle: ` ${message.type} ` },
  });
  batch.add({
    sql: 'INSERT INTO webhook_messages (message_id, type, eid, payload, created_at) SELECT @message_id, @type, @eid, @payload, @created_at',
    params: { ...message, created_at: at },
    onlyAfter: deliveries,
  });
}

/**
 * Sends again, to one endpoint, every message since `since` that it takes: a new delivery, or a delivered or dead
 * one made pending again (same message id: the receiver's idempotency key sees a repeat). Returns how many.
 */
export async function replayToEndpoint(db: Sql, endpoint: WebhookEndpointRow, since: string, now: string): Promise<number> {
  const contains =
    db.dialect === 'postgres'
      ? "strpos(' ' || @events || ' ', ' ' || m.type || ' ') > 0"
      : "instr(' ' || @events || ' ', ' ' || m.type || ' ') > 0";
  const result = await db.run(
    `INSERT INTO webhook_deliveries (message_id, endpoint_id, state, attempts, next_attempt_at)
     SELECT m.message_id, @endpoint_id, 'pending', 0, @now FROM webhook_messages m
     WHERE m.created_at >= @since AND (@eid IS NULL OR m.eid = @eid) AND (@events = '*' OR ${contains}) AND m.type <> 'webhook.test'
     ON CONFLICT (message_id, endpoint_id) DO UPDATE SET state = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at,
       claimed_until = NULL, last_error = NULL, last_status = NULL`,
    { endpoint_id: endpoint.endpoint_id, now, since, eid: endpoint.eid, events: endpoint.events },
  );
  return result.changes;
}

/**
 * Claims up to `limit` due deliveries to active endpoints until `leaseUntil`, with what sending them needs: three
 * statements whatever the batch's size (the claim, the messages, the endpoints), not one read per delivery.
 */
export async function claimDueDeliveries(db: Sql, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]> {
  const due = `SELECT d.message_id, d.endpoint_id FROM webhook_deliveries d
    WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND (d.claimed_until IS NULL OR d.claimed_until <= @now)
      AND d.endpoint_id IN (SELECT endpoint_id FROM webhook_endpoints WHERE disabled_at IS NULL)
    ORDER BY d.next_attempt_at LIMIT @limit`;
  const claimed =
    db.dialect === 'postgres'
      ? await db.all<{ message_id: string; endpoint_id: string; attempts: number }>(
          `WITH due AS (${due} FOR UPDATE OF d SKIP LOCKED)
           UPDATE webhook_deliveries w SET claimed_until = @lease FROM due
           WHERE w.message_id = due.message_id AND w.endpoint_id = due.endpoint_id
           RETURNING w.message_id, w.endpoint_id, w.attempts`,
          { now, lease: leaseUntil, limit },
        )
      : await db.all<{ message_id: string; endpoint_id: string; attempts: number }>(
          `UPDATE webhook_deliveries SET claimed_until = @lease WHERE (message_id, endpoint_id) IN (${due})
           RETURNING message_id, endpoint_id, attempts`,
          { now, lease: leaseUntil, limit },
        );
  if (claimed.length === 0) return [];
  const messageIds = [...new Set(claimed.map((row) => row.message_id))];
  const endpointIds = [...new Set(claimed.map((row) => row.endpoint_id))];
  const messages = await db.all<{ message_id: string; type: string; payload: string }>(
    `SELECT message_id, type, payload FROM webhook_messages WHERE message_id IN (${messageIds.map(() => '?').join(', ')})`,
    messageIds,
  );
  const endpoints = await db.all<{ endpoint_id: string; url: string; secret: string }>(
    `SELECT endpoint_id, url, secret FROM webhook_endpoints WHERE endpoint_id IN (${endpointIds.map(() => '?').join(', ')})`,
    endpointIds,
  );
  const messageById = new Map(messages.map((message) => [message.message_id, message]));
  const endpointById = new Map(endpoints.map((endpoint) => [endpoint.endpoint_id, endpoint]));
  const deliveries: ClaimedDelivery[] = [];
  for (const row of claimed) {
    const message = messageById.get(row.message_id);
    const endpoint = endpointById.get(row.endpoint_id);
    if (message !== undefined && endpoint !== undefined)
      deliveries.push({ ...row, type: message.type, payload: message.payload, url: endpoint.url, secret: endpoint.secret });
  }
  return deliveries;
}

/** How one attempt went, to be recorded: delivered (`nextAttemptAt` unused), tried again at `nextAttemptAt`, or dead (null). */
export interface DeliveryAttempt {
  message_id: string;
  endpoint_id: string;
  delivered: boolean;
  status: number | null;
  error: string | null;
  /** When the answer came (delivered_at of a delivered one). */
  at: string;
  nextAttemptAt: string | null;
}

/**
 * Records a batch's attempts in the caller's one transaction (docs/issuer.md "Webhooks": one commit per batch of
 * outcomes, not one per delivery). A delivery whose outcome was never recorded is sent again when its claim runs out.
 */
export async function recordAttempts(db: Sql, attempts: readonly DeliveryAttempt[]): Promise<void> {
  for (const attempt of attempts) {
    if (attempt.delivered) await markDelivered(db, attempt.message_id, attempt.endpoint_id, attempt.status!, attempt.at);
    else await markFailed(db, attempt, { status: attempt.status, error: attempt.error!, nextAttemptAt: attempt.nextAttemptAt });
  }
}

async function markDelivered(db: Sql, messageId: string, endpointId: string, status: number, now: string): Promise<void> {
  await db.run(
    `UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = ?, last_status = ?, last_error = NULL,
       claimed_until = NULL WHERE message_id = ? AND endpoint_id = ?`,
    [now, status, messageId, endpointId],
  );
}

/** A failed attempt: tried again at `nextAttemptAt`, or dead-lettered (null) with the reason kept. */
async function markFailed(
  db: Sql,
  delivery: { message_id: string; endpoint_id: string },
  failure: { status: number | null; error: string; nextAttemptAt: string | null },
): Promise<void> {
  await db.run(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, state = ?, next_attempt_at = COALESCE(?, next_attempt_at), last_status = ?,
       last_error = ?, claimed_until = NULL WHERE message_id = ? AND endpoint_id = ?`,
    [
      failure.nextAttemptAt === null ? 'dead' : 'pending',
      failure.nextAttemptAt,
      failure.status,
      failure.error,
      delivery.message_id,
      delivery.endpoint_id,
    ],
  );
}
