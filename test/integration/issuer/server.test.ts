/** The issuer over real sockets (plain HTTP on 127.0.0.1), real SQLite files, and changes from other processes. */
import type { CheckInResponse, DiscoveryDocument, TicketStatus } from '../../../protocol/types.js';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { startServer, type RunningServer } from '../../../issuer/server.js';
import { openDatabase } from '../../../issuer/store/database.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { request } from '../../support/http-client.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';
import { revokeApiKeyElsewhere, revokeTicketElsewhere, rotateKeyElsewhere } from '../../support/other-process.js';

let fx: IssuerFixture;
let server: RunningServer;
let event: EventRow;

beforeAll(async () => {
  fx = createIssuerFixture({ baseUrl: 'http://127.0.0.1:8080' });
  server = await startServer({
    dataDir: fx.dataDir.root,
    host: '127.0.0.1',
    port: 0,
    plainHttp: true,
    logger: captureLog().logger,
    handleSignals: false,
  });
  event = fx.createEvent();
});

afterAll(async () => {
  await server.close();
  fx.cleanup();
});

function checkInBody(scanner: EnrolledScanner, tid: string) {
  return { tid, eid: event.eid, scanned_at: new Date().toISOString(), scanner_id: scanner.scannerId, idempotency_key: randomUUID() };
}

function checkIn(scanner: EnrolledScanner, tid: string) {
  return request<CheckInResponse>(`${server.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}` },
    body: checkInBody(scanner, tid),
  });
}

describe('over real sockets', () => {
  test('startServer reports a plain http URL and no fingerprint', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.fingerprint).toBeNull();
  });

  test('30 concurrent check-ins of one ticket from several scanners and keys: exactly one valid', async () => {
    const ticket = fx.issueTicket(event.eid);
    const keys: EnrolledScanner[] = [];
    for (let s = 0; s < 3; s++) {
      const scannerId = randomUUID();
      keys.push(fx.enrollScanner(event.eid, { scannerId }), fx.enrollScanner(event.eid, { scannerId }));
    }
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => checkIn(keys[i % keys.length]!, ticket.tid)));
    expect(responses.map((r) => r.status)).toEqual(Array(30).fill(200));
    const valid = responses.filter((r) => r.json.status === 'valid');
    const used = responses.filter((r) => r.json.status === 'already_used');
    expect(valid).toHaveLength(1);
    expect(used).toHaveLength(29);
    const checkedInAt = valid[0]!.json.ticket.checked_in_at;
    for (const r of used) expect(r.json.ticket.checked_in_at).toBe(checkedInAt);
    expect(fx.db.prepare('SELECT COUNT(*) AS n FROM checkins WHERE tid = ?').get(ticket.tid)).toEqual({ n: 1 });
  });

  test('10 concurrent enrollments with one token: exactly one 200', async () => {
    const { token, tokenId } = fx.createSetupToken(event.eid);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        request(`${server.url}/api/v1/scanners/enroll`, { method: 'POST', body: { token, scanner_id: randomUUID() } }),
      ),
    );
    // Ten requests fit the default per-IP limit of 10 per minute.
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) expect(r.json).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
    expect(fx.db.prepare('SELECT COUNT(*) AS n FROM api_keys WHERE token_id = ?').get(tokenId)).toEqual({ n: 1 });
  });

  test('a ticket revoked by another process is refused on the next scan', async () => {
    const scanner = fx.enrollScanner(event.eid);
    const ticket = fx.issueTicket(event.eid);
    const before = await request<TicketStatus>(`${server.url}/api/v1/tickets/${ticket.tid}/status`, {
      headers: { authorization: `Bearer ${scanner.apiKey}` },
    });
    expect(before.json.status).toBe('valid');
    expect(await revokeTicketElsewhere(fx.dataDir.database, ticket.tid)).toBe('1');
    const scan = await checkIn(scanner, ticket.tid);
    expect(scan.json).toMatchObject({ status: 'revoked', ticket: { checked_in_at: null } });
  });

  test('an API key revoked by another process answers 401 on the next request', async () => {
    const scanner = fx.enrollScanner(event.eid);
    const ticket = fx.issueTicket(event.eid);
    const url = `${server.url}/api/v1/tickets/${ticket.tid}/status`;
    expect((await request(url, { headers: { authorization: `Bearer ${scanner.apiKey}` } })).status).toBe(200);
    await revokeApiKeyElsewhere(fx.dataDir.database, scanner.apiKeyId);
    const refused = await request(url, { headers: { authorization: `Bearer ${scanner.apiKey}` } });
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });

  test('a key rotated by another process shows in discovery on the next request, with a new ETag', async () => {
    const url = `${server.url}/.well-known/ticket-issuer.json`;
    const before = await request(url);
    const kid = await rotateKeyElsewhere(fx.dataDir.database);
    const after = await request<DiscoveryDocument>(url, { headers: { 'if-none-match': before.headers.etag as string } });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json.keys[0]!.kid).toBe(kid);
  });
});

describe('graceful shutdown', () => {
  test('close() answers the requests in flight, commits them, then closes the database', async () => {
    const shutdownFx = createIssuerFixture({ baseUrl: 'http://127.0.0.1:8080' });
    const shutdownEvent = shutdownFx.createEvent();
    const scanner = shutdownFx.enrollScanner(shutdownEvent.eid);
    const tickets = Array.from({ length: 12 }, () => shutdownFx.issueTicket(shutdownEvent.eid));
    shutdownFx.db.close();

    const app = await build({ dataDir: shutdownFx.dataDir.root, logger: captureLog().logger });
    let arrived = 0;
    let allArrived!: () => void;
    const everyoneInHandler = new Promise<void>((resolve) => (allArrived = resolve));
    app.addHook('preHandler', async () => {
      if (++arrived === tickets.length) allArrived();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const responses = Promise.all(
      tickets.map((ticket) =>
        request<CheckInResponse>(`http://127.0.0.1:${port}/api/v1/tickets/check-in`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scanner.apiKey}` },
          body: {
            tid: ticket.tid,
            eid: shutdownEvent.eid,
            scanned_at: new Date().toISOString(),
            scanner_id: scanner.scannerId,
            idempotency_key: randomUUID(),
          },
        }),
      ),
    );
    await everyoneInHandler;
    const closed = app.close();
    const answers = await responses;
    await closed;
    expect(answers.map((a) => a.json.status)).toEqual(Array(tickets.length).fill('valid'));

    const db = openDatabase(shutdownFx.dataDir.database);
    expect(db.prepare('SELECT COUNT(*) AS n FROM checkins').get()).toEqual({ n: tickets.length });
    db.close();
    const { default: fs } = await import('node:fs');
    fs.rmSync(shutdownFx.root, { recursive: true, force: true });
  });

  test('a stalled request cannot hold shutdown past the grace period: its connection is cut, with a warning', async () => {
    const stallFx = createIssuerFixture({ baseUrl: 'http://127.0.0.1:8080' });
    stallFx.db.close();
    const log = captureLog();
    const app = await build({ dataDir: stallFx.dataDir.root, logger: log.logger, shutdownGraceMs: 300 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    // Headers promising 100 bytes of body, then only 10 of them: a request in progress for ever.
    const socket = net.connect(port, '127.0.0.1');
    const socketClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.resume(); // reading, so the server's end of the connection is noticed
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /api/v1/tickets/check-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tid":"01',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));

    await app.close();
    await socketClosed;
    expect(log.text()).toContain('connections still open after the shutdown grace period');
    const { default: fs } = await import('node:fs');
    fs.rmSync(stallFx.root, { recursive: true, force: true });
  });

  test('a keep-alive connection whose answer ends during shutdown is closed, not kept for the keep-alive timeout', async () => {
    const keepFx = createIssuerFixture({ baseUrl: 'http://127.0.0.1:8080' });
    keepFx.db.close();
    const log = captureLog();
    // A grace period far longer than the test's timeout: close() must finish without it.
    const app = await build({ dataDir: keepFx.dataDir.root, logger: log.logger, shutdownGraceMs: 600_000 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.addHook('onRequest', async () => held);
    let shutdownBegan!: () => void;
    const shuttingDown = new Promise<void>((resolve) => (shutdownBegan = resolve));
    app.addHook('preClose', async () => shutdownBegan());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const agent = new http.Agent({ keepAlive: true });
    const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/.well-known/ticket-issuer.json', agent }, (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
        })
        .on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = app.close();
    await shuttingDown;
    release();
    // Answered in full, told to close the connection, and close() returns although the client would keep it alive.
    expect(await answer).toEqual({ status: 200, connection: 'close' });
    await closed;
    expect(log.text()).not.toContain('shutdown grace period');
    agent.destroy();
    const { default: fs } = await import('node:fs');
    fs.rmSync(keepFx.root, { recursive: true, force: true });
  });
});
