/** Every non-2xx answer carries the ErrorEnvelope (docs/protocol.md "Errors outside the spec's tables"). */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ERROR_STATUS, type ErrorEnvelope } from '../../../protocol/error-envelope.js';
import { build } from '../../../issuer/app.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let scanner: EnrolledScanner;

beforeAll(async () => {
  fx = createIssuerFixture();
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
  scanner = fx.enrollScanner(fx.createEvent().eid);
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

function expectEnvelope(
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  code: keyof typeof ERROR_STATUS,
) {
  expect(response.statusCode).toBe(ERROR_STATUS[code]);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as ErrorEnvelope;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatchObject({ code, message: expect.any(String) });
  return body.error as { code: string; message: string; details?: Record<string, unknown> };
}

const auth = () => ({ authorization: `Bearer ${scanner.apiKey}` });

describe('envelopes outside the tables', () => {
  test('unknown routes → 404 NOT_FOUND', async () => {
    expectEnvelope(await app.inject({ method: 'GET', url: '/nothing/here' }), 'NOT_FOUND');
    expectEnvelope(await app.inject({ method: 'GET', url: '/api/v1/tickets' }), 'NOT_FOUND');
  });

  test('wrong methods → 404 NOT_FOUND (no such route for that method)', async () => {
    expectEnvelope(await app.inject({ method: 'GET', url: '/api/v1/tickets/check-in' }), 'NOT_FOUND');
    expectEnvelope(await app.inject({ method: 'DELETE', url: '/.well-known/ticket-issuer.json' }), 'NOT_FOUND');
    expectEnvelope(await app.inject({ method: 'PUT', url: '/api/v1/scanners/enroll', payload: {} }), 'NOT_FOUND');
  });

  test('/api/vN/ for an unsupported N → 400 PROTOCOL_VERSION_UNSUPPORTED', async () => {
    expectEnvelope(await app.inject({ method: 'POST', url: '/api/v2/tickets/check-in', payload: {} }), 'PROTOCOL_VERSION_UNSUPPORTED');
    expectEnvelope(await app.inject({ method: 'GET', url: '/api/v0/tickets/x/status' }), 'PROTOCOL_VERSION_UNSUPPORTED');
    expectEnvelope(await app.inject({ method: 'POST', url: '/api/v17/scanners/enroll?x=1', payload: {} }), 'PROTOCOL_VERSION_UNSUPPORTED');
  });

  test('bodies that are not JSON, empty, oversized or of another content type → 400 INVALID_REQUEST', async () => {
    const post = (url: string, payload: string, contentType = 'application/json', headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType, ...headers } });
    for (const url of ['/api/v1/scanners/enroll', '/api/v1/tickets/check-in']) {
      const headers = url.endsWith('check-in') ? auth() : {};
      const secret = 'TOKEN-THAT-MUST-NOT-ECHO';
      const notJson = expectEnvelope(await post(url, `{"token": "${secret}"`, 'application/json', headers), 'INVALID_REQUEST');
      expect(JSON.stringify(notJson)).not.toContain(secret);
      expectEnvelope(await post(url, '', 'application/json', headers), 'INVALID_REQUEST');
      expectEnvelope(await post(url, JSON.stringify({ token: 'x'.repeat(64 * 1024) }), 'application/json', headers), 'INVALID_REQUEST');
      expectEnvelope(await post(url, 'token=abc', 'application/x-www-form-urlencoded', headers), 'INVALID_REQUEST');
      expectEnvelope(await post(url, '{"token":"abc"}', 'text/plain', headers), 'INVALID_REQUEST');
    }
  });

  test('a JSON body that is not an object → 400 INVALID_REQUEST', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '[1,2]',
    });
    expectEnvelope(response, 'INVALID_REQUEST');
  });

  test('a malformed URL still gets an envelope', async () => {
    expectEnvelope(await app.inject({ method: 'GET', url: '/api/v1/tickets/%E0%A4%A/status', headers: auth() }), 'INVALID_REQUEST');
  });
});
