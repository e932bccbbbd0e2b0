/**
 * Webhooks (docs/issuer.md "Webhooks"): what the rest of the issuer calls to tell of a change (`announce`, inside
 * the change's write job), and the endpoint administration the CLI runs, as named write jobs.
 */
import { AdminError } from '../error-catalogue.js';
import { namedJob } from '../store/named-jobs.js';
import type { Dialect, Sql } from '../store/sql.js';
import { WriteBatch } from '../store/write-batch.js';
import { scanLogHead } from '../store/audit-log.js';
import {
  disableEndpoint,
  enableEndpoint,
  endpointHealth,
  findEndpoint,
  insertEndpoint,
  addMessageTo,
  replayToEndpoint,
  type EndpointHealth,
} from '../store/webhooks.js';
import { newEndpointId, newMessageId, type WebhookBody, type WebhookEventType } from './webhook-events.js';

/**
 * Tells every endpoint that takes `type` of a change, in the change's own transaction: the message is written when
 * the change commits and never when it does not (docs/issuer.md "Webhooks": at least once, nothing uncommitted).
 */
export async function announce(
  db: Sql,
  type: WebhookEventType,
  eid: string | null,
  data: Record<string, unknown>,
  at: string,
): Promise<void> {
  const batch = new WriteBatch();
  announceTo(batch, db.dialect, type, eid, data, at);
  await batch.run(db);
}

/** announce, as writes of the change's own batch (store/write-batch.ts), sent with the change's other writes. */
export function announceTo(
  batch: WriteBatch,
  dialect: Dialect,
  type: WebhookEventType,
  eid: string | null,
  data: Record<string, unknown>,
  at: string,
): void {
  const body: WebhookBody = { type, timestamp: at, data };
  addMessageTo(batch, dialect, { message_id: newMessageId(), type, eid, payload: JSON.stringify(body), created_at: at });
}

export interface NewEndpoint {
  url: string;
  events: readonly string[] | '*';
  eid: string | null;
  secret: string;
  now: string;
}

export const addEndpointWrite = namedJob('webhook-add', async (db, args: NewEndpoint): Promise<EndpointHealth> => {
  if (args.eid !== null && (await db.get('SELECT 1 AS one FROM events WHERE eid = ?', [args.eid])) === undefined)
    throw new AdminError('EVENT_NOT_FOUND', `no event ${args.eid} at this issuer`);
  const endpointId = newEndpointId();
  await insertEndpoint(db, {
    endpoint_id: endpointId,
    url: args.url,
    events: args.events === '*' ? '*' : args.events.join(' '),
    eid: args.eid,
    secret: args.secret,
    created_at: args.now,
    disabled_at: null,
  });
  return (await endpointHealth(db)).find((endpoint) => endpoint.endpoint_id === endpointId)!;
});

export const disableEndpointWrite = namedJob(
  'webhook-disable',
  async (db, args: { endpointId: string; now: string }): Promise<EndpointHealth> => {
    if (!(await disableEndpoint(db, args.endpointId, args.now))) throw endpointNotFound(args.endpointId);
    return (await endpointHealth(db)).find((endpoint) => endpoint.endpoint_id === args.endpointId)!;
  },
);

export const enableEndpointWrite = namedJob('webhook-enable', async (db, args: { endpointId: string }): Promise<EndpointHealth> => {
  if (!(await enableEndpoint(db, args.endpointId))) throw endpointNotFound(args.endpointId);
  return (await endpointHealth(db)).find((endpoint) => endpoint.endpoint_id === args.endpointId)!;
});

export const replayWrite = namedJob(
  'webhook-replay',
  async (db, args: { endpointId: string; since: string; now: string }): Promise<number> => {
    const endpoint = await findEndpoint(db, args.endpointId);
    if (!endpoint) throw endpointNotFound(args.endpointId);
    return replayToEndpoint(db, endpoint, args.since, args.now);
  },
);

/**
 * `audit.head`: the scan log's chain head, so a receiver keeps proof of the log as it was (docs/issuer.md "Audit:
 * tamper-evident logs"), every `everyMs`. Every serving process runs this now and then; none is written while the
 * last one is younger than that, so several processes send one between them.
 */
/**
 * On PostgreSQL every `serve` process runs the audit head's timer: a transaction lock of its own (not the chain
 * head's, which check-ins take) makes a second process wait, then find the first one's message and write none.
 */
const AUDIT_HEAD_LOCK_KEY = 0x746b61756468;

export const auditHeadWrite = namedJob('webhook-audit-head', async (db, args: { now: string; everyMs: number }): Promise<boolean> => {
  if (db.dialect === 'postgres') await db.get(`SELECT pg_advisory_xact_lock(${AUDIT_HEAD_LOCK_KEY}) AS locked`);
  const last = await db.get<{ created_at: string }>(
    "SELECT created_at FROM webhook_messages WHERE type = 'audit.head' ORDER BY seq DESC LIMIT 1",
  );
  if (last !== undefined && Date.parse(args.now) - Date.parse(last.created_at) < args.everyMs) return false;
  const head = await scanLogHead(db);
  if (head === null) return false;
  await announce(db, 'audit.head', null, { position: head.position, hash: head.hash }, args.now);
  return true;
});

function endpointNotFound(endpointId: string): AdminError {
  return new AdminError('WEBHOOK_NOT_FOUND', `no webhook endpoint ${endpointId} at this issuer (see "ticket-issuer webhook list")`);
}
