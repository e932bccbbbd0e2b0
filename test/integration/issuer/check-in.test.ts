/** POST /api/v1/tickets/check-in through app.inject, on a real SQLite file. */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { findCheckin, scanLogByOutcome, scanLogForEvent } from '../../../issuer/store/checkins.js';
import { revokeApiKey } from '../../../issuer/store/scanners.js';
import { revokeTicket } from '../../../issuer/store/tickets.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

const HOUR = 3600_000;
let fx: IssuerFixture;
let app: FastifyInstance;
let event: EventRow;
let otherEvent: EventRow;
let scanner: EnrolledScanner;

beforeAll(async () => {
  fx = createIssuerFixture();
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
  event = fx.createEvent({ name: 'Main night' });
  otherEvent = fx.createEvent({ name: 'Other night' });
  scanner = fx.enrollScanner(event.eid);
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

function body(tid: string, changes: Record<string, unknown> = {}) {
  return {
    tid,
    eid: event.eid,
    scanned_at: new Date().toISOString(),
    scanner_id: scanner.scannerId,
    idempotency_key: randomUUID(),
    ...changes,
  };
}

function checkIn(payload: string | object, options: { apiKey?: string | null; headers?: Record<string, string> } = {}) {
  const apiKey = options.apiKey === undefined ? scanner.apiKey : options.apiKey;
  const headers: Record<string, string> = { ...options.headers };
  if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
  if (typeof payload === 'string') headers['content-type'] = 'application/json';
  return app.inject({ method: 'POST', url: '/api/v1/tickets/check-in', headers, payload });
}

describe('outcomes', () => {
  test('first scan is valid (checked in at scanned_at); another key for the same tid is already_used with the original time', async () => {
    const ticket = fx.issueTicket(event.eid, { holderName: 'Grace', ticketType: 'VIP' });
    const scannedAt = new Date(Date.now() - 10 * 60_000).toISOString();
    const first = await checkIn(body(ticket.tid, { scanned_at: scannedAt }));
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.json()).toEqual({
      status: 'valid',
      ticket: { tid: ticket.tid, eid: event.eid, holder_name: 'Grace', ticket_type: 'VIP', checked_in_at: scannedAt },
    });
    expect(await findCheckin(fx.sql, ticket.tid)).toMatchObject({
      checked_in_at: scannedAt,
      api_key_id: scanner.apiKeyId,
      scanner_id: scanner.scannerId,
    });

    const second = await checkIn(body(ticket.tid));
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ status: 'already_used', ticket: { checked_in_at: scannedAt } });
  });

  test("wrong_event names the ticket's own event", async () => {
    const ticket = fx.issueTicket(otherEvent.eid);
    const response = await checkIn(body(ticket.tid));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'wrong_event', ticket: { tid: ticket.tid, eid: otherEvent.eid, checked_in_at: null } });
  });

  test('revoked and expired tickets are refused with HTTP 200 and checked_in_at null', async () => {
    const revoked = fx.issueTicket(event.eid);
    await revokeTicket(fx.sql, revoked.tid, 'refund', new Date().toISOString());
    expect((await checkIn(body(revoked.tid))).json()).toMatchObject({ status: 'revoked', ticket: { checked_in_at: null } });

    const expired = fx.issueTicket(event.eid, { expiresAt: new Date(Date.now() - HOUR) });
    expect((await checkIn(body(expired.tid))).json()).toMatchObject({ status: 'expired', ticket: { checked_in_at: null } });
    expect(await findCheckin(fx.sql, revoked.tid)).toBeUndefined();
    expect(await findCheckin(fx.sql, expired.tid)).toBeUndefined();
  });

  test('expiry is judged at scanned_at: a scan queued offline before expiry admits when sent later', async () => {
    const ticket = fx.issueTicket(event.eid, { expiresAt: new Date(Date.now() - HOUR) });
    const response = await checkIn(body(ticket.tid, { scanned_at: new Date(Date.now() - 2 * HOUR).toISOString() }));
    expect(response.json()).toMatchObject({ status: 'valid' });
  });

  test('unknown tid → 404 NOT_FOUND', async () => {
    const response = await checkIn(body('01UNKNOWNTICKET0000000000'));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  test('another event in the request, or another gate for a gate-scoped key → 403 FORBIDDEN', async () => {
    const ticket = fx.issueTicket(otherEvent.eid);
    const forbidden = await checkIn(body(ticket.tid, { eid: otherEvent.eid }));
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });

    const gated = fx.enrollScanner(event.eid, { gateId: 'north' });
    const mine = fx.issueTicket(event.eid);
    const southGate = await checkIn(body(mine.tid, { gate_id: 'south', scanner_id: gated.scannerId }), { apiKey: gated.apiKey });
    expect(southGate.statusCode).toBe(403);
    const northGate = await checkIn(body(mine.tid, { gate_id: 'north', scanner_id: gated.scannerId }), { apiKey: gated.apiKey });
    expect(northGate.json()).toMatchObject({ status: 'valid' });
    expect((await findCheckin(fx.sql, mine.tid))?.gate_id).toBe('north');
  });

  test('a reported invalid signature → 400 INVALID_REQUEST reason invalid_signature, audited, state unchanged', async () => {
    const ticket = fx.issueTicket(event.eid);
    const report = body(ticket.tid, { signature_status: 'invalid', gate_id: 'east' });
    const response = await checkIn(report);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', details: { reason: 'invalid_signature' } } });
    expect(await findCheckin(fx.sql, ticket.tid)).toBeUndefined();
    const audit = (await scanLogByOutcome(fx.sql, 'invalid_signature')).find((row) => row.tid === ticket.tid);
    expect(audit).toMatchObject({
      eid: event.eid,
      scanner_id: scanner.scannerId,
      api_key_id: scanner.apiKeyId,
      gate_id: 'east',
      idempotency_key: report.idempotency_key,
    });
    // The ticket itself is untouched: a normal scan admits it.
    expect((await checkIn(body(ticket.tid))).json()).toMatchObject({ status: 'valid' });
  });
});

describe('authentication (401 before anything about the body)', () => {
  test('missing, unknown, malformed, expired and revoked keys → 401 UNAUTHORIZED', async () => {
    const ticket = fx.issueTicket(event.eid);
    const expired = fx.enrollScanner(event.eid, { expiresAt: new Date(Date.now() - 1000) });
    const revoked = fx.enrollScanner(event.eid);
    await revokeApiKey(fx.sql, revoked.apiKeyId, new Date().toISOString());
    for (const headers of [
      {},
      { authorization: 'Bearer tvk_not-a-key' },
      { authorization: `Basic ${scanner.apiKey}` },
      { authorization: `Bearer ${expired.apiKey}` },
      { authorization: `Bearer ${revoked.apiKey}` },
    ]) {
      const response = await app.inject({ method: 'POST', url: '/api/v1/tickets/check-in', headers, payload: body(ticket.tid) });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    expect(await findCheckin(fx.sql, ticket.tid)).toBeUndefined();
  });

  test('a bad key with a malformed body is 401, not 400', async () => {
    const response = await checkIn('{not json', { apiKey: 'tvk_wrong' });
    expect(response.statusCode).toBe(401);
    expect((await checkIn('{not json', { apiKey: null })).statusCode).toBe(401);
  });
});

describe('malformed requests → 400 INVALID_REQUEST with details.field', () => {
  test.each([
    ['missing tid', (tid: string) => ({ ...body(tid), tid: undefined }), 'tid'],
    ['ill-typed tid', () => body('x', { tid: 12345 }), 'tid'],
    ['missing scanner_id', (tid: string) => ({ ...body(tid), scanner_id: undefined }), 'scanner_id'],
    ['scanned_at not a date-time', (tid: string) => body(tid, { scanned_at: 'yesterday' }), 'scanned_at'],
    ['scanned_at 49 h old', (tid: string) => body(tid, { scanned_at: new Date(Date.now() - 49 * HOUR).toISOString() }), 'scanned_at'],
    ['scanned_at 10 min ahead', (tid: string) => body(tid, { scanned_at: new Date(Date.now() + 10 * 60_000).toISOString() }), 'scanned_at'],
    ['idempotency key not a UUID v4', (tid: string) => body(tid, { idempotency_key: 'scan-1' }), 'idempotency_key'],
    ['no idempotency key anywhere', (tid: string) => ({ ...body(tid), idempotency_key: undefined }), 'idempotency_key'],
  ])('%s', async (_name, make, field) => {
    const ticket = fx.issueTicket(event.eid);
    const response = await checkIn(make(ticket.tid));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', details: { field } } });
    expect(await findCheckin(fx.sql, ticket.tid)).toBeUndefined();
  });

  test('a 47-hour-old scan is accepted (spec: up to 48 h)', async () => {
    const ticket = fx.issueTicket(event.eid);
    const response = await checkIn(body(ticket.tid, { scanned_at: new Date(Date.now() - 47 * HOUR).toISOString() }));
    expect(response.json()).toMatchObject({ status: 'valid' });
  });

  test('unknown extra fields are ignored', async () => {
    const ticket = fx.issueTicket(event.eid);
    expect((await checkIn(body(ticket.tid, { firmware: '1.2.3' }))).json()).toMatchObject({ status: 'valid' });
  });
});

describe('idempotency', () => {
  test('same key, same body → the first answer byte for byte, whatever the key order; nothing changes', async () => {
    const ticket = fx.issueTicket(event.eid);
    const request = body(ticket.tid);
    const first = await checkIn(request);
    const reordered = Object.fromEntries(Object.entries(request).reverse());
    const replay = await checkIn(JSON.stringify(reordered, null, 2));
    expect(replay.statusCode).toBe(first.statusCode);
    expect(replay.body).toBe(first.body);
    expect(replay.json().status).toBe('valid');
  });

  test('a stored error answer is replayed too (404 stays 404 even once the ticket exists)', async () => {
    const request = body('01NOTYETISSUED000000000000');
    const first = await checkIn(request);
    expect(first.statusCode).toBe(404);
    const replay = await checkIn(request);
    expect(replay.statusCode).toBe(404);
    expect(replay.body).toBe(first.body);
  });

  test('same key, different body → 409 IDEMPOTENCY_CONFLICT', async () => {
    const ticket = fx.issueTicket(event.eid);
    const request = body(ticket.tid);
    await checkIn(request);
    const conflict = await checkIn({ ...request, gate_id: 'west' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ error: { code: 'IDEMPOTENCY_CONFLICT' } });
  });

  test('header and body keys: either alone works and they are the same request; both different → 400', async () => {
    const ticket = fx.issueTicket(event.eid);
    const { idempotency_key: key, ...withoutKey } = body(ticket.tid);
    const viaHeader = await checkIn(withoutKey, { headers: { 'idempotency-key': key } });
    expect(viaHeader.json()).toMatchObject({ status: 'valid' });
    const viaBody = await checkIn({ ...withoutKey, idempotency_key: key });
    expect(viaBody.body).toBe(viaHeader.body);
    const both = await checkIn({ ...withoutKey, idempotency_key: key }, { headers: { 'idempotency-key': key } });
    expect(both.body).toBe(viaHeader.body);

    const mismatch = await checkIn({ ...withoutKey, idempotency_key: randomUUID() }, { headers: { 'idempotency-key': key } });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', details: { field: 'idempotency_key' } } });
  });

  test("a replay is honoured whichever of the scanner's keys sends it; another scanner gets 409", async () => {
    const ticket = fx.issueTicket(event.eid);
    const request = body(ticket.tid);
    const first = await checkIn(request);
    const reEnrolled = fx.enrollScanner(event.eid, { scannerId: scanner.scannerId });
    const replay = await checkIn(request, { apiKey: reEnrolled.apiKey });
    expect(replay.statusCode).toBe(200);
    expect(replay.body).toBe(first.body);

    const stranger = fx.enrollScanner(event.eid);
    expect((await checkIn(request, { apiKey: stranger.apiKey })).statusCode).toBe(409);
  });

  test('a second request with a key still in flight waits for and returns the first result', async () => {
    const ticket = fx.issueTicket(event.eid);
    const request = body(ticket.tid);
    const [a, b] = await Promise.all([checkIn(request), checkIn(request)]);
    expect(a.statusCode).toBe(200);
    expect(b.body).toBe(a.body);
    expect(a.json().status).toBe('valid');
    const stored = fx.db.prepare('SELECT COUNT(*) AS n FROM idempotency WHERE idempotency_key = ?').get(request.idempotency_key) as {
      n: number;
    };
    expect(stored.n).toBe(1);
  });

  test('stored answers older than 7 days are pruned at startup', async () => {
    const old = new Date(Date.now() - 8 * 24 * HOUR).toISOString();
    const recent = new Date(Date.now() - 6 * 24 * HOUR).toISOString();
    const insert = fx.db.prepare(
      "INSERT INTO idempotency (idempotency_key, request_hash, http_status, response_body, api_key_id, created_at) VALUES (?, 'h', 200, '{}', ?, ?)",
    );
    const oldKey = randomUUID();
    const recentKey = randomUUID();
    insert.run(oldKey, scanner.apiKeyId, old);
    insert.run(recentKey, scanner.apiKeyId, recent);
    const second = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
    await second.close(); // waits for the pending group commit, which holds the startup prune
    const keys = (fx.db.prepare('SELECT idempotency_key FROM idempotency').all() as { idempotency_key: string }[]).map(
      (r) => r.idempotency_key,
    );
    expect(keys).not.toContain(oldKey);
    expect(keys).toContain(recentKey);
  });
});

describe('scan_log', () => {
  test('every attempt is recorded with outcome, scanner, key id, gate and the claimed tid/eid', async () => {
    const auditEvent = fx.createEvent({ name: 'Audit night' });
    const auditScanner = fx.enrollScanner(auditEvent.eid, { gateId: 'g1' });
    const ticket = fx.issueTicket(auditEvent.eid);
    const send = (changes: Record<string, unknown> = {}) =>
      checkIn(
        {
          tid: ticket.tid,
          eid: auditEvent.eid,
          scanned_at: new Date().toISOString(),
          scanner_id: auditScanner.scannerId,
          idempotency_key: randomUUID(),
          ...changes,
        },
        { apiKey: auditScanner.apiKey },
      );
    const valid = { idempotency_key: randomUUID(), scanned_at: new Date().toISOString() };
    await send(valid);
    await send(valid); // replay
    await send(); // already_used
    await send({ scanned_at: 'not a time' }); // schema failure
    await send({ tid: 'NOPE' }); // 404
    const rows = await scanLogForEvent(fx.sql, auditEvent.eid);
    expect(rows.map((r) => r.outcome)).toEqual(['valid', 'replay', 'already_used', 'invalid_request', 'not_found']);
    for (const row of rows) {
      expect(row).toMatchObject({
        scanner_id: auditScanner.scannerId,
        api_key_id: auditScanner.apiKeyId,
        gate_id: 'g1',
        eid: auditEvent.eid,
      });
    }
    expect(rows[4]!.tid).toBe('NOPE');
    expect(JSON.parse(rows[3]!.details!)).toEqual({ check: 'well_formed', field: 'scanned_at' });
  });
});
