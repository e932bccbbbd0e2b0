/**
 * The issuer under a hostile LAN: bodies built to break it, labels built to
 * fool people, CSV cells built to run in a spreadsheet, names in URLs, a
 * shared address at the admin sign-in, and a reverse proxy's addresses
 * (docs/issuer.md "Threats handled"). Real app via `app.inject`, real SQLite.
 */
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../issuer/app.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../helpers/issuer-fixture.js';
import { captureLog, type CapturedLog } from '../../helpers/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let log: CapturedLog;
let scanner: EnrolledScanner;

beforeAll(async () => {
  fx = createIssuerFixture();
  log = captureLog();
  app = await build({ dataDir: fx.dataDir.root, logger: log.logger });
  scanner = fx.enrollScanner(fx.createEvent().eid);
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const auth = () => ({ authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' });

describe('bodies built to break the issuer', () => {
  it.each([
    ['an array 5,000 levels deep in an extra field (10 KB)', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['an object 2,500 levels deep in an extra field (12 KB)', `{"x":${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}}`],
  ])('a check-in body nested as %s: 400 INVALID_REQUEST, not 500', async (_label, nested) => {
    const ticket = fx.issueTicket(scanner.eid);
    const body = `{"tid":"${ticket.tid}","eid":"${scanner.eid}","scanned_at":"${new Date().toISOString()}","scanner_id":"${scanner.scannerId}","idempotency_key":"${randomUUID()}","extra":${nested}}`;
    const response = await app.inject({ method: 'POST', url: '/api/v1/tickets/check-in', headers: auth(), payload: body });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/nested/) });
    // Nothing was checked in.
    expect((await app.inject({ method: 'GET', url: `/api/v1/tickets/${ticket.tid}/status`, headers: auth() })).json()).toMatchObject({ status: 'valid' });
  });

  it('an enroll body nested deep: 400 INVALID_REQUEST', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', headers: { 'content-type': 'application/json' }, payload: `{"token":${'['.repeat(3000)}${']'.repeat(3000)}}` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('INVALID_REQUEST');
  });
});
