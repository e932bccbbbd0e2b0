/**
 * The admin dashboard's credential (docs/issuer.md "Admin dashboard"): every
 * /admin/api route, found by walking the registered routes, refuses a
 * missing, wrong or scanner credential with 401 and the ErrorEnvelope; failed
 * attempts are rate-limited per client IP; a reset token applies at once; no
 * admin credential reaches the log. Through app.inject and a real socket.
 */
import type { SessionInfo, SetupCodeResult } from '../../../issuer/dashboard-api.js';
import type { ErrorEnvelope } from '../../../protocol/error-envelope.js';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { ADMIN_FAILURE_LIMIT, SCANNER_FAILURE_LIMIT } from '../../../issuer/services/failed-authentications.js';
import { startServer } from '../../../issuer/server.js';
import { newAdminToken, resetAdminToken } from '../../../issuer/services/admin-credential.js';
import { registeredRoutes, withSampleParams } from '../../support/admin-routes.js';
import { request } from '../../support/http-client.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog, type CapturedLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let log: CapturedLog;
let adminToken: string;
let scanner: EnrolledScanner;
let eid: string;
/** Each test uses its own client addresses, so the per-IP failure limit of one test never blocks another. */
let nextAddress = 1;
const freshAddress = (): string => `10.1.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

/** The admin API routes the issuer must have; the walk over registered routes must at least find these. */
const KNOWN_ADMIN_ROUTES = [
  'GET /admin/api/session',
  'GET /admin/api/events/:eid/overview',
  'GET /admin/api/events/:eid/tickets',
  'GET /admin/api/events/:eid/checkins.csv',
  'POST /admin/api/events/:eid/setup-codes',
  'POST /admin/api/tickets/:tid/revoke',
  'POST /admin/api/setup-codes/:token_id/revoke',
  'POST /admin/api/scanners/:api_key_id/revoke',
];

beforeAll(async () => {
  fx = createIssuerFixture();
  log = captureLog('debug');
  app = await build({ dataDir: fx.dataDir.root, logger: log.logger });
  eid = fx.createEvent().eid;
  scanner = fx.enrollScanner(eid);
  adminToken = (await resetAdminToken(fx.sql, new Date())).token;
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

function expectEnvelope(
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
): Record<string, unknown> {
  expect(response.statusCode).toBe(status);
  expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
  const body = response.json() as { error: { code: string; message: string; details?: Record<string, unknown> } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  return body.error.details ?? {};
}

const adminRoutes = () => registeredRoutes(app).filter((route) => route.path.startsWith('/admin/api/'));

describe('every admin API route requires the admin token', () => {
  test('the walk over registered routes finds every known admin route', () => {
    const found = adminRoutes().map((route) => `${route.method} ${route.path}`);
    for (const known of KNOWN_ADMIN_ROUTES) expect(found).toContain(known);
  });

  const credentials: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['an empty Bearer', () => ({ authorization: 'Bearer ' })],
    ['a wrong admin token', () => ({ authorization: `Bearer ${newAdminToken()}` })],
    [
      'the admin token with one character changed',
      () => ({ authorization: `Bearer ${adminToken.slice(0, -1)}${adminToken.endsWith('A') ? 'B' : 'A'}` }),
    ],
    ['a scanner API key', () => ({ authorization: `Bearer ${scanner.apiKey}` })],
    ['the admin token as Basic credentials', () => ({ authorization: `Basic ${Buffer.from(`admin:${adminToken}`).toString('base64')}` })],
  ];

  test.each(credentials)('%s → 401 UNAUTHORIZED with the ErrorEnvelope, on every route and method', async (_name, headers) => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(KNOWN_ADMIN_ROUTES.length);
    for (const route of routes) {
      const response = await app.inject({
        method: route.method as 'GET',
        url: withSampleParams(route.path) + (route.path.endsWith('/tickets') ? '?q=Ada' : ''),
        headers: { ...headers, ...(route.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(route.method === 'POST' ? { payload: '{}' } : {}),
        remoteAddress: freshAddress(),
      });
      if (route.method === 'HEAD') {
        expect(response.statusCode, `${route.method} ${route.path}`).toBe(401);
        continue;
      }
      const details = expectEnvelope(response, 401, 'UNAUTHORIZED');
      expect(details.reason, `${route.method} ${route.path}`).toBe('admin_token_required');
    }
  });

  test('an unknown path under /admin/api answers 401 before 404: nothing is revealed without the token', async () => {
    expectEnvelope(await app.inject({ url: '/admin/api/nothing-here', remoteAddress: freshAddress() }), 401, 'UNAUTHORIZED');
    expectEnvelope(
      await app.inject({ url: '/admin/api/nothing-here', headers: { authorization: `Bearer ${adminToken}` } }),
      404,
      'NOT_FOUND',
    );
  });

  test('with the admin token every read route answers 200', async () => {
    const auth = { authorization: `Bearer ${adminToken}` };
    for (const url of [
      '/admin/api/session',
      `/admin/api/events/${eid}/overview`,
      `/admin/api/events/${eid}/tickets?q=Ada`,
      `/admin/api/events/${eid}/checkins.csv`,
    ]) {
      const response = await app.inject({ url, headers: auth });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  test('the admin token is not a scanner key: the check-in API refuses it', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in',
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { tid: 'x', eid, scanned_at: new Date().toISOString(), scanner_id: 's', idempotency_key: randomUUID() },
    });
    expectEnvelope(response, 401, 'UNAUTHORIZED');
  });
});

describe('failed attempts are limited per client IP', () => {
  test(`after ${ADMIN_FAILURE_LIMIT} wrong tokens every token from that address gets 429 with Retry-After, the right one too, so a guesser gets ${ADMIN_FAILURE_LIMIT} guesses per window; other addresses are not affected`, async () => {
    const attacker = freshAddress();
    const wrong = { authorization: `Bearer ${newAdminToken()}` };
    const right = { authorization: `Bearer ${adminToken}` };
    // The right token before the limit is reached signs in and does not count.
    expect((await app.inject({ url: '/admin/api/session', headers: right, remoteAddress: attacker })).statusCode).toBe(200);
    for (let i = 0; i < ADMIN_FAILURE_LIMIT; i++) {
      expectEnvelope(await app.inject({ url: '/admin/api/session', headers: wrong, remoteAddress: attacker }), 401, 'UNAUTHORIZED');
    }
    const limited = await app.inject({ url: '/admin/api/session', headers: wrong, remoteAddress: attacker });
    expectEnvelope(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // During the lockout the right token is refused too: otherwise guessing would go on, only slowed for wrong guesses.
    expectEnvelope(await app.inject({ url: '/admin/api/session', headers: right, remoteAddress: attacker }), 429, 'RATE_LIMITED');

    const other = await app.inject({ url: '/admin/api/session', headers: right, remoteAddress: freshAddress() });
    expect(other.statusCode).toBe(200);
  });

  test('a request without any token is not a failed attempt (the page asks without one first)', async () => {
    const address = freshAddress();
    for (let i = 0; i < ADMIN_FAILURE_LIMIT + 5; i++)
      expect((await app.inject({ url: '/admin/api/session', remoteAddress: address })).statusCode).toBe(401);
    expect(
      (await app.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${adminToken}` }, remoteAddress: address }))
        .statusCode,
    ).toBe(200);
  });
});

describe('where the token comes from', () => {
  test('a data dir without an admin token (made before the dashboard) says how to make one', async () => {
    const bare = createIssuerFixture();
    const bareApp = await build({ dataDir: bare.dataDir.root, logger: captureLog().logger });
    try {
      const response = await bareApp.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${newAdminToken()}` } });
      const details = expectEnvelope(response, 401, 'UNAUTHORIZED');
      expect(details.reason).toBe('admin_token_not_set');
      expect((response.json() as { error: { message: string } }).error.message).toContain('ticket-issuer admin-token reset');
      // Made while the server runs (another process's connection): usable on the very next request.
      const { token } = await resetAdminToken(bare.sql, new Date());
      expect((await bareApp.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    } finally {
      await bareApp.close();
      bare.cleanup();
    }
  });

  test('a reset replaces the token at once: the old one is refused on the next request', async () => {
    const other = createIssuerFixture();
    const otherApp = await build({ dataDir: other.dataDir.root, logger: captureLog().logger });
    try {
      const first = (await resetAdminToken(other.sql, new Date())).token;
      expect((await otherApp.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${first}` } })).statusCode).toBe(200);
      const second = (await resetAdminToken(other.sql, new Date())).token;
      expect(second).not.toBe(first);
      expect((await otherApp.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${first}` } })).statusCode).toBe(401);
      expect((await otherApp.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${second}` } })).statusCode).toBe(200);
    } finally {
      await otherApp.close();
      other.cleanup();
    }
  });

  test('the database keeps only a SHA-256 hash of the token', () => {
    const row = fx.db.prepare('SELECT * FROM admin_token').get() as Record<string, string>;
    expect(Object.keys(row).sort()).toEqual(['created_at', 'singleton', 'token_hash']);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const file = fs.readFileSync(fx.dataDir.database);
    expect(file.includes(Buffer.from(adminToken))).toBe(false);
  });

  test('a token given to the server (serve --admin-token-file) is the only one accepted', async () => {
    const fixed = `${newAdminToken()}-from-a-file`;
    const fixedApp = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger, adminToken: fixed });
    try {
      expect((await fixedApp.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${fixed}` } })).statusCode).toBe(200);
      expect((await fixedApp.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${adminToken}` } })).statusCode).toBe(
        401,
      );
    } finally {
      await fixedApp.close();
    }
  });
});

describe('no admin credential in logs', () => {
  test('neither the admin token (right or wrong) nor a setup code reaches the log', async () => {
    const wrong = newAdminToken();
    await app.inject({ url: '/admin/api/session', headers: { authorization: `Bearer ${wrong}` }, remoteAddress: freshAddress() });
    const setup = await app.inject({
      method: 'POST',
      url: `/admin/api/events/${eid}/setup-codes`,
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { gate_id: 'Log' },
    });
    expect(setup.statusCode).toBe(200);
    const text = log.text();
    expect(text).toContain('/admin/api/session');
    expect(text).toContain('setup code made from the admin dashboard');
    expect(text).not.toContain(adminToken);
    expect(text).not.toContain(wrong);
    expect(text).not.toContain((setup.json() as { setup_qr: string }).setup_qr.slice(8, 60));
    expect(text).not.toContain('tva_');
  });
});

describe('over a real socket', () => {
  test('plain HTTP: 401 without the token, 200 with it; the page is served with a strict CSP', async () => {
    const server = await startServer({
      dataDir: fx.dataDir.root,
      host: '127.0.0.1',
      port: 0,
      plainHttp: true,
      logger: captureLog().logger,
      handleSignals: false,
    });
    try {
      const refused = await request<ErrorEnvelope>(`${server.url}/admin/api/session`);
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe('UNAUTHORIZED');
      const accepted = await request<SessionInfo>(`${server.url}/admin/api/session`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.json.events.map((event: { eid: string }) => event.eid)).toContain(eid);
      expect(accepted.json.setup_tls_cert_sha256).toBeNull();

      const page = await fetch(`${server.url}/admin`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
      const html = await page.text();
      expect(html).toMatch(/<script type="module" crossorigin src="\/admin\/assets\/[^"]+\.js"><\/script>/);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    } finally {
      await server.close();
    }
  });

  test('HTTPS with the self-signed certificate: setup codes made on the dashboard pin it, as scanner setup does', async () => {
    const tlsFx = createIssuerFixture({ baseUrl: 'https://127.0.0.1:8443' });
    const token = (await resetAdminToken(tlsFx.sql, new Date())).token;
    const event = tlsFx.createEvent();
    const server = await startServer({
      dataDir: tlsFx.dataDir.root,
      host: '127.0.0.1',
      port: 0,
      logger: captureLog().logger,
      handleSignals: false,
    });
    try {
      const ca = fs.readFileSync(path.join(tlsFx.dataDir.tlsDir, 'cert.pem'), 'utf8');
      const auth = { authorization: `Bearer ${token}` };
      const session = await request<SessionInfo>(`${server.url}/admin/api/session`, { headers: auth, ca });
      expect(session.json.setup_tls_cert_sha256).toBe(server.fingerprint);
      const setup = await request<SetupCodeResult>(`${server.url}/admin/api/events/${event.eid}/setup-codes`, {
        method: 'POST',
        headers: auth,
        body: {},
        ca,
      });
      expect(setup.status).toBe(200);
      expect(setup.json.tls_cert_sha256).toBe(server.fingerprint);
      const payload = JSON.parse(Buffer.from(setup.json.setup_qr.slice('tsetup1.'.length), 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      expect(payload.tls_cert_sha256).toBe(server.fingerprint);
    } finally {
      await server.close();
      tlsFx.cleanup();
    }
  });
});

describe('failed scanner key checks are limited per client address', () => {
  const statusOf = (headers: Record<string, string>, remoteAddress: string) =>
    app.inject({ url: `/api/v1/tickets/${'0'.repeat(26)}/status`, headers, remoteAddress });

  test(`after ${SCANNER_FAILURE_LIMIT} failed key checks an unknown key or none gets 429 at once; a key seen valid still gets its answer; other addresses are not affected`, async () => {
    const venue = freshAddress();
    const good = { authorization: `Bearer ${scanner.apiKey}` };
    // A kiosk behind the venue's address works before the flood...
    expect((await statusOf(good, venue)).statusCode).not.toBe(401);
    for (let i = 0; i < SCANNER_FAILURE_LIMIT; i++) {
      const headers: Record<string, string> = i % 2 === 0 ? { authorization: `Bearer tvk_${randomUUID()}` } : {};
      expectEnvelope(await statusOf(headers, venue), 401, 'UNAUTHORIZED');
    }
    const limited = await statusOf({ authorization: `Bearer tvk_${randomUUID()}` }, venue);
    expectEnvelope(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectEnvelope(await statusOf({}, venue), 429, 'RATE_LIMITED');
    // ...and during it: one broken kiosk behind a NAT does not lock out the ones beside it.
    const kiosk = await statusOf(good, venue);
    expect([401, 429]).not.toContain(kiosk.statusCode);
    expectEnvelope(await statusOf({ authorization: `Bearer tvk_${randomUUID()}` }, freshAddress()), 401, 'UNAUTHORIZED');
  });
});
