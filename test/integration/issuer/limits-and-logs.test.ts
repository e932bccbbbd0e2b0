/** Rate limits (429 RATE_LIMITED with Retry-After) and logs that never hold an API key or a token. */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { createIssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

describe('rate limits', () => {
  test('per scanner credential, check-in and status together; other credentials are not affected', async () => {
    const fx = createIssuerFixture();
    const app = await build({ dataDir: fx.dataDir.root, scannerRpm: 3, logger: captureLog().logger });
    try {
      const event = fx.createEvent();
      const busy = fx.enrollScanner(event.eid);
      const calm = fx.enrollScanner(event.eid);
      const ticket = fx.issueTicket(event.eid);
      const status = (apiKey: string) =>
        app.inject({ method: 'GET', url: `/api/v1/tickets/${ticket.tid}/status`, headers: { authorization: `Bearer ${apiKey}` } });
      const checkIn = (apiKey: string) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-in',
          headers: { authorization: `Bearer ${apiKey}` },
          payload: {
            tid: ticket.tid,
            eid: event.eid,
            scanned_at: new Date().toISOString(),
            scanner_id: busy.scannerId,
            idempotency_key: randomUUID(),
          },
        });
      // Each answer within the limit says what is left of it (RateLimit-* headers, docs/protocol.md).
      const budget = (answer: { statusCode: number; headers: Record<string, unknown> }) => ({
        status: answer.statusCode,
        limit: answer.headers['ratelimit-limit'],
        remaining: answer.headers['ratelimit-remaining'],
      });
      expect(budget(await status(busy.apiKey))).toEqual({ status: 200, limit: '3', remaining: '2' });
      expect(budget(await checkIn(busy.apiKey))).toEqual({ status: 200, limit: '3', remaining: '1' });
      const last = await status(busy.apiKey);
      expect(budget(last)).toEqual({ status: 200, limit: '3', remaining: '0' });
      expect(Number(last.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(Number(last.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      for (const limited of [await checkIn(busy.apiKey), await status(busy.apiKey)]) {
        expect(limited.statusCode).toBe(429);
        expect(limited.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
        const retryAfter = limited.headers['retry-after'] as string;
        expect(retryAfter).toMatch(/^\d+$/);
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      }
      expect((await status(calm.apiKey)).statusCode).toBe(200);
    } finally {
      await app.close();
      fx.cleanup();
    }
  });

  test('enrollment per client IP', async () => {
    const fx = createIssuerFixture();
    const app = await build({ dataDir: fx.dataDir.root, enrollRpm: 2, logger: captureLog().logger });
    try {
      const event = fx.createEvent();
      const enroll = () =>
        app.inject({
          method: 'POST',
          url: '/api/v1/scanners/enroll',
          payload: { token: fx.createSetupToken(event.eid).token, scanner_id: 's' },
        });
      expect((await enroll()).statusCode).toBe(200);
      expect((await enroll()).statusCode).toBe(200);
      const limited = await enroll();
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await app.close();
      fx.cleanup();
    }
  });
});

describe('logs', () => {
  test('no API key, token or Authorization header ever reaches the log, even at trace level and on errors', async () => {
    const fx = createIssuerFixture();
    const log = captureLog('trace');
    const app = await build({ dataDir: fx.dataDir.root, logger: log.logger });
    const secrets: string[] = [];
    try {
      const event = fx.createEvent();
      const { token } = fx.createSetupToken(event.eid);
      secrets.push(token);
      const enrolled = await app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload: { token, scanner_id: 'door-1' } });
      const apiKey = enrolled.json().api_key as string;
      secrets.push(apiKey);
      const again = await app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload: { token, scanner_id: 'door-1' } });
      expect(again.statusCode).toBe(400);
      // A body V8 cannot parse: its error message would quote the token.
      const broken = await app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        headers: { 'content-type': 'application/json' },
        payload: `{"token":"${token}"`,
      });
      expect(broken.statusCode).toBe(400);
      const ticket = fx.issueTicket(event.eid);
      const headers = { authorization: `Bearer ${apiKey}` };
      await app.inject({ method: 'GET', url: `/api/v1/tickets/${ticket.tid}/status`, headers });
      await app.inject({
        method: 'POST',
        url: '/api/v1/tickets/check-in',
        headers,
        payload: {
          tid: ticket.tid,
          eid: event.eid,
          scanned_at: new Date().toISOString(),
          scanner_id: 'door-1',
          idempotency_key: randomUUID(),
        },
      });
      await app.inject({
        method: 'POST',
        url: '/api/v1/tickets/check-in',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: `{"api_key":"${apiKey}"`,
      });
      const wrongKey = `tvk_${'z'.repeat(43)}`;
      secrets.push(wrongKey);
      await app.inject({ method: 'GET', url: `/api/v1/tickets/${ticket.tid}/status`, headers: { authorization: `Bearer ${wrongKey}` } });
    } finally {
      await app.close();
      fx.cleanup();
    }
    const text = log.text();
    expect(log.lines().length).toBeGreaterThan(10); // the log did record the traffic
    expect(text).toContain('scanner enrolled');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/Bearer tvk_|"authorization"/i);
  });

  test('redaction also covers fields a log call might pass by mistake', () => {
    const log = captureLog();
    log.logger.info(
      { api_key: 'tvk_secret1', token: 'secret2', req: { headers: { authorization: 'Bearer secret3' } }, nested: { token: 'secret4' } },
      'oops',
    );
    const text = log.text();
    for (const secret of ['tvk_secret1', 'secret2', 'secret3', 'secret4']) expect(text).not.toContain(secret);
    expect(log.lines()[0]).toMatchObject({ api_key: '[redacted]', token: '[redacted]', nested: { token: '[redacted]' } });
  });
});
