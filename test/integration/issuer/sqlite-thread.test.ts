/**
 * SQLite on its database thread (issuer/store/sqlite-thread.ts), with the real
 * compiled thread script on a real data dir: named jobs run there and their
 * answers and refusals come back as the classes the routes expect; a closure
 * cannot be sent; a thread that dies fails every waiting and later write
 * as "database unavailable" (503), never hangs, and a new one takes over.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdminError, ApiError, isDatabaseUnavailable, toApiError } from '../../../issuer/error-catalogue.js';
import { revokeTicketWrite } from '../../../issuer/services/admin-actions.js';
import { checkIn } from '../../../issuer/services/check-in.js';
import { checkReadiness } from '../../../issuer/services/readiness.js';
import { openDatabase } from '../../../issuer/store/database.js';
import { SqliteThreadDatabase, THREAD_EXITED, type ThreadEvent } from '../../../issuer/store/sqlite-thread.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The compiled thread, as serve starts it (vitest's global setup ran npm run build). */
const THREAD_SCRIPT = new URL(`file://${path.join(root, 'dist', 'issuer', 'database-thread.js')}`);

let fx: IssuerFixture;
let thread: SqliteThreadDatabase | null = null;

beforeEach(() => {
  fx = createIssuerFixture();
});

afterEach(async () => {
  await thread?.close();
  thread = null;
  fx.cleanup();
});

const start = async (script = THREAD_SCRIPT) =>
  (thread = await SqliteThreadDatabase.start(fx.dataDir.database, script, openDatabase(fx.dataDir.database, { migrate: false })));

describe('the SQLite database thread', () => {
  it('runs named jobs: the write is committed and seen by another connection; an AdminError comes back as one', async () => {
    const database = await start();
    const event = fx.createEvent();
    const ticket = fx.issueTicket(event.eid);
    await expect(database.write(revokeTicketWrite({ tid: ticket.tid, reason: 'refund', now: new Date().toISOString() }))).resolves.toEqual({
      tid: ticket.tid,
      status: 'revoked',
    });
    expect(fx.db.prepare('SELECT revoke_reason FROM tickets WHERE tid = ?').get(ticket.tid)).toEqual({ revoke_reason: 'refund' });
    const missing = database.write(revokeTicketWrite({ tid: 'NO-SUCH-TICKET', reason: null, now: new Date().toISOString() }));
    await expect(missing).rejects.toBeInstanceOf(AdminError);
    await expect(missing).rejects.toMatchObject({ code: 'TICKET_NOT_FOUND' });
  });

  it('a check-in on the thread: valid once, then the stored answer; a refusal carries its ApiError', async () => {
    const database = await start();
    const event = fx.createEvent();
    const ticket = fx.issueTicket(event.eid);
    const scanner = fx.enrollScanner(event.eid);
    const row = fx.db.prepare('SELECT key_hash FROM api_keys WHERE api_key_id = ?').get(scanner.apiKeyId) as { key_hash: string };
    const credential = {
      apiKeyId: scanner.apiKeyId,
      keyHash: row.key_hash,
      scannerId: scanner.scannerId,
      eid: event.eid,
      gateId: null,
      role: 'steward' as const,
    };
    const body = {
      tid: ticket.tid,
      eid: event.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
    };
    const first = await checkIn(database, credential, body, undefined);
    expect(first).toMatchObject({ ok: true, httpStatus: 200 });
    const replay = await checkIn(database, credential, body, undefined);
    expect(replay).toEqual(first);
    const conflict = await checkIn(database, credential, { ...body, scanned_at: new Date(Date.now() - 1000).toISOString() }, undefined);
    expect(conflict.ok).toBe(false);
    expect(!conflict.ok && conflict.error).toBeInstanceOf(ApiError);
    expect(!conflict.ok && conflict.error.statusCode).toBe(409);
  });

  it('refuses a job that is not named: a closure cannot cross to the thread', async () => {
    const database = await start();
    await expect(database.write(async (tx) => tx.run('DELETE FROM tickets'))).rejects.toThrow(/named job/);
  });

  it('a thread that dies fails the waiting write and every later one as database unavailable (503)', async () => {
    // A stand-in thread that says ready, then exits when the first write arrives, with that write unanswered.
    const dying = new URL(
      `data:text/javascript,${encodeURIComponent(
        "import { parentPort } from 'node:worker_threads'; parentPort.on('message', () => process.exit(3)); parentPort.postMessage({ kind: 'ready' });",
      )}`,
    );
    const database = await start(dying);
    const waiting = database.write(revokeTicketWrite({ tid: 'T', reason: null, now: new Date().toISOString() }));
    await expect(waiting).rejects.toMatchObject({ code: THREAD_EXITED });
    const error = await waiting.catch((failure: unknown) => failure);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(toApiError(error).statusCode).toBe(503);
    await expect(database.write(revokeTicketWrite({ tid: 'T', reason: null, now: new Date().toISOString() }))).rejects.toMatchObject({
      code: THREAD_EXITED,
    });
    await expect(database.drained()).resolves.toBeUndefined();
    // Reads still work on the main thread, but a load balancer must stop sending this process traffic.
    expect(await checkReadiness(database, 2)).toMatchObject({ ready: false, reason: 'database_unavailable' });
  });

  it('a new thread takes over after one dies: writes fail as 503 meanwhile, then work again; both moments are told', async () => {
    // The real thread, plus a listener that kills it when a write named "test-crash-thread" arrives.
    const crashing = new URL(
      `data:text/javascript,${encodeURIComponent(
        [
          "import { parentPort } from 'node:worker_threads';",
          "parentPort.on('message', (m) => { if (m.kind === 'writes' && m.writes.some((w) => w.name === 'test-crash-thread')) process.exit(7); });",
          `await import(${JSON.stringify(THREAD_SCRIPT.href)});`,
        ].join('\n'),
      )}`,
    );
    // A write that only carries the name: a job defined with namedJob but in no list would keep the thread from starting.
    const crash = (args: object) => Object.assign(() => Promise.resolve(null), { jobName: 'test-crash-thread', jobArgs: args });
    const database = await start(crashing);
    const events: ThreadEvent[] = [];
    database.notify = (event) => events.push(event);
    const event = fx.createEvent();
    const [first, second] = [fx.issueTicket(event.eid), fx.issueTicket(event.eid)];
    const revoke = (tid: string) => database.write(revokeTicketWrite({ tid, reason: 'refund', now: new Date().toISOString() }));
    await expect(revoke(first.tid)).resolves.toMatchObject({ status: 'revoked' });

    await expect(database.write(crash({}))).rejects.toMatchObject({ code: THREAD_EXITED });
    await expect(revoke(second.tid)).rejects.toMatchObject({ code: THREAD_EXITED });
    expect(await checkReadiness(database, 2)).toMatchObject({ ready: false, reason: 'database_unavailable' });
    expect(events).toEqual([{ kind: 'stopped', error: expect.any(Error), retryInMs: 500 }]);

    const deadline = Date.now() + 15_000;
    while (!events.some((told) => told.kind === 'restarted') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(events.at(-1)).toEqual({ kind: 'restarted', restarts: 1 });
    await expect(revoke(second.tid)).resolves.toMatchObject({ status: 'revoked' });
    expect(fx.db.prepare('SELECT COUNT(*) AS n FROM tickets WHERE revoked_at IS NOT NULL').get()).toEqual({ n: 2 });
    expect(await checkReadiness(database, 2)).toMatchObject({ ready: true });
  });
});
