/**
 * Two issuer processes on one data directory (docs/protocol.md "Precedence": exactly
 * one valid per ticket whatever the number of issuer processes), and a
 * graceful stop on SIGTERM.
 */
import type { CheckInResponse } from '../../../protocol/types.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type RunningServer } from '../../../issuer/server.js';
import type { EventRow } from '../../../issuer/store/events.js';
import { request } from '../../support/http-client.js';
import { compileIssuerServer, removeBuild, startIssuerChild, type IssuerChild } from '../../support/issuer-child-process.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let buildDir: string;
let here: RunningServer;
let there: IssuerChild;
let event: EventRow;

beforeAll(async () => {
  fx = createIssuerFixture({ baseUrl: 'http://127.0.0.1:8080' });
  event = fx.createEvent();
  buildDir = await compileIssuerServer();
  here = await startServer({
    dataDir: fx.dataDir.root,
    host: '127.0.0.1',
    port: 0,
    plainHttp: true,
    logger: captureLog().logger,
    handleSignals: false,
  });
  there = await startIssuerChild(buildDir, fx.dataDir.root);
}, 120_000);

afterAll(async () => {
  if (there.process.exitCode === null) there.process.kill('SIGKILL');
  await here.close();
  removeBuild(buildDir);
  fx.cleanup();
});

function checkIn(
  baseUrl: string,
  scanner: EnrolledScanner,
  tid: string,
  idempotencyKey = randomUUID(),
  scannedAt = new Date().toISOString(),
) {
  return request<CheckInResponse>(`${baseUrl}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}` },
    body: { tid, eid: event.eid, scanned_at: scannedAt, scanner_id: scanner.scannerId, idempotency_key: idempotencyKey },
  });
}

describe('two issuer processes, one database', () => {
  test('30 concurrent check-ins of one ticket split across both processes: exactly one valid', async () => {
    const ticket = fx.issueTicket(event.eid);
    const scanners = [fx.enrollScanner(event.eid), fx.enrollScanner(event.eid), fx.enrollScanner(event.eid)];
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => checkIn(i % 2 === 0 ? here.url : there.url, scanners[i % scanners.length]!, ticket.tid)),
    );
    const statuses = responses.map((r) => r.json.status);
    expect(statuses.filter((s) => s === 'valid')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'already_used')).toHaveLength(29);
    expect(new Set(responses.map((r) => r.json.ticket.checked_in_at)).size).toBe(1);
  });

  test('one idempotency key sent to both processes at once: one stored answer, the same bytes from both', async () => {
    const ticket = fx.issueTicket(event.eid);
    const scanner = fx.enrollScanner(event.eid);
    const key = randomUUID();
    const scannedAt = new Date().toISOString();
    const [a, b] = await Promise.all([
      checkIn(here.url, scanner, ticket.tid, key, scannedAt),
      checkIn(there.url, scanner, ticket.tid, key, scannedAt),
    ]);
    expect(a.text).toBe(b.text);
    expect(a.json.status).toBe('valid');
    expect(fx.db.prepare('SELECT COUNT(*) AS n FROM idempotency WHERE idempotency_key = ?').get(key)).toEqual({ n: 1 });
  });

  test('SIGTERM: the process stops listening and exits cleanly', async () => {
    const discovery = await request(`${there.url}/.well-known/ticket-issuer.json`);
    expect(discovery.status).toBe(200);
    there.process.kill('SIGTERM');
    expect(await there.exited).toBe(0);
    await expect(request(`${there.url}/.well-known/ticket-issuer.json`)).rejects.toThrow();
  });
});
