/**
 * A check-in the database cannot take (another process holds SQLite's write
 * lock past the busy timeout) answers 503 with the envelope and Retry-After,
 * stores nothing, and the same request sent again once the lock is gone is
 * checked in exactly once (docs/issuer.md "When the database fails").
 */
import { randomUUID } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { createIssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test('a locked database: 503 and nothing stored, then the same request is checked in once', async () => {
  const fx = createIssuerFixture();
  cleanups.push(() => fx.cleanup());
  const log = captureLog();
  const app = await build({ dataDir: fx.dataDir.root, logger: log.logger });
  cleanups.push(() => app.close());
  const event = fx.createEvent();
  const ticket = fx.issueTicket(event.eid);
  const scanner = fx.enrollScanner(event.eid);
  const checkIn = {
    method: 'POST' as const,
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${scanner.apiKey}` },
    payload: {
      tid: ticket.tid,
      eid: event.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
    },
  };

  // Another connection (as another process would) takes the write lock and keeps it past the issuer's busy timeout (10 s).
  fx.db.exec('BEGIN IMMEDIATE');
  let refused;
  try {
    refused = await app.inject(checkIn);
  } finally {
    fx.db.exec('ROLLBACK');
  }
  expect(refused.statusCode).toBe(503);
  expect(refused.headers['retry-after']).toBe('5');
  expect(refused.json()).toEqual({
    error: {
      code: 'INTERNAL',
      message: 'the issuer database cannot take this request right now; nothing was stored: send it again later',
      details: { reason: 'database_unavailable' },
    },
  });
  expect(fx.db.prepare('SELECT COUNT(*) AS n FROM checkins WHERE tid = ?').get(ticket.tid)).toEqual({ n: 0 });
  expect(fx.db.prepare('SELECT COUNT(*) AS n FROM idempotency WHERE idempotency_key = ?').get(checkIn.payload.idempotency_key)).toEqual({
    n: 0,
  });

  const accepted = await app.inject(checkIn);
  expect(accepted.statusCode).toBe(200);
  expect(accepted.json()).toMatchObject({ status: 'valid', ticket: { tid: ticket.tid } });
  expect(fx.db.prepare('SELECT COUNT(*) AS n FROM checkins WHERE tid = ?').get(ticket.tid)).toEqual({ n: 1 });
  expect((await app.inject(checkIn)).body).toBe(accepted.body);
}, 40_000);
