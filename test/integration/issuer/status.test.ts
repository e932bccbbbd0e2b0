/** GET /api/v1/tickets/{tid}/status through app.inject. */
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { findCheckin } from '../../../issuer/store/checkins.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { revokeTicket } from '../../../issuer/store/tickets.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let event: EventRow;
let scanner: EnrolledScanner;

beforeAll(async () => {
  fx = createIssuerFixture();
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
  event = fx.createEvent();
  scanner = fx.enrollScanner(event.eid);
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const status = (tid: string, apiKey: string | null = scanner.apiKey) =>
  app.inject({
    method: 'GET',
    url: `/api/v1/tickets/${encodeURIComponent(tid)}/status`,
    headers: apiKey === null ? {} : { authorization: `Bearer ${apiKey}` },
  });

const checkIn = (tid: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${scanner.apiKey}` },
    payload: { tid, eid: event.eid, scanned_at: new Date().toISOString(), scanner_id: scanner.scannerId, idempotency_key: randomUUID() },
  });

describe('ticket status', () => {
  test('valid, without changing state', async () => {
    const ticket = fx.issueTicket(event.eid, { holderName: 'Alan', ticketType: 'Standard' });
    const response = await status(ticket.tid);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      tid: ticket.tid,
      eid: event.eid,
      status: 'valid',
      holder_name: 'Alan',
      ticket_type: 'Standard',
      issued_at: ticket.issued_at,
      checked_in_at: null,
    });
    expect(await findCheckin(fx.sql, ticket.tid)).toBeUndefined();
    expect((await checkIn(ticket.tid)).json().status).toBe('valid');
  });

  test('checked_in carries checked_in_at', async () => {
    const ticket = fx.issueTicket(event.eid);
    const checkedInAt = (await checkIn(ticket.tid)).json().ticket.checked_in_at;
    expect((await status(ticket.tid)).json()).toMatchObject({ status: 'checked_in', checked_in_at: checkedInAt });
  });

  test('precedence revoked → checked_in → expired → valid', async () => {
    const usedThenRevoked = fx.issueTicket(event.eid);
    await checkIn(usedThenRevoked.tid);
    await revokeTicket(fx.sql, usedThenRevoked.tid, null, new Date().toISOString());
    expect((await status(usedThenRevoked.tid)).json().status).toBe('revoked');

    const usedThenExpired = fx.issueTicket(event.eid, { expiresAt: new Date(Date.now() + 1500) });
    await checkIn(usedThenExpired.tid);
    fx.db.prepare('UPDATE tickets SET exp = ? WHERE tid = ?').run(Math.floor(Date.now() / 1000) - 60, usedThenExpired.tid);
    expect((await status(usedThenExpired.tid)).json().status).toBe('checked_in');

    const expired = fx.issueTicket(event.eid, { expiresAt: new Date(Date.now() - 60_000) });
    expect((await status(expired.tid)).json().status).toBe('expired');
  });

  test("another event's ticket → 403 FORBIDDEN; unknown → 404 NOT_FOUND; no key → 401", async () => {
    const other = fx.createEvent({ name: 'Elsewhere' });
    const foreign = fx.issueTicket(other.eid);
    const forbidden = await status(foreign.tid);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });

    const unknown = await status('01UNKNOWN00000000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });

    const anonymous = await status(foreign.tid, null);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });
});
