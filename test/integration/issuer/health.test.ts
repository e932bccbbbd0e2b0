/**
 * GET /healthz and GET /readyz for load balancers (docs/protocol.md "Health and
 * readiness"): with app.inject, and over a real socket during graceful shutdown.
 */
import net from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { build } from '../../../issuer/app.js';
import { startServer } from '../../../issuer/server.js';
import { SCHEMA_VERSION } from '../../../issuer/store/database.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function appFor(fx: IssuerFixture, log = captureLog()) {
  const app = await build({ dataDir: fx.dataDir.root, logger: log.logger, scannerRpm: 3 });
  cleanups.push(() => app.close());
  return app;
}

function fixture(options: { baseUrl?: string } = {}): IssuerFixture {
  const fx = createIssuerFixture(options);
  cleanups.push(() => fx.cleanup());
  return fx;
}

describe('GET /healthz', () => {
  test('200 {"status":"ok"}, uncached, without credentials or rate-limit headers', async () => {
    const app = await appFor(fixture());
    for (let i = 0; i < 10; i++) {
      const answer = await app.inject({ method: 'GET', url: '/healthz' });
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe('{"status":"ok"}');
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['ratelimit-limit']).toBeUndefined();
    }
    expect((await app.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('GET /readyz', () => {
  test('200 with the schema version when the database answers and holds an issuer', async () => {
    const app = await appFor(fixture());
    const answer = await app.inject({ method: 'GET', url: '/readyz' });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ status: 'ready', schema_version: SCHEMA_VERSION });
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  test('503 not_initialised with the envelope and Retry-After when the issuer row is gone', async () => {
    const fx = fixture();
    const app = await appFor(fx);
    fx.db.prepare('DELETE FROM issuer').run();
    const answer = await app.inject({ method: 'GET', url: '/readyz' });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.json()).toEqual({
      error: { code: 'INTERNAL', message: 'the issuer database holds no issuer yet', details: { reason: 'not_initialised' } },
    });
    // Liveness is about the process, not the database.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  test('503 database_unavailable when the read fails; the cause is logged, never answered', async () => {
    const fx = fixture();
    const log = captureLog();
    const app = await appFor(fx, log);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    fx.db.exec('DROP TABLE issuer');
    const answer = await app.inject({ method: 'GET', url: '/readyz' });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.json()).toMatchObject({ error: { code: 'INTERNAL', details: { reason: 'database_unavailable' } } });
    expect(answer.body).not.toContain(fx.root);
    expect(answer.body).not.toContain('no such table');
    expect(log.text()).toContain('no such table');
  });

  test('probes stay out of the request log; other requests are still logged', async () => {
    const log = captureLog();
    const app = await appFor(fixture(), log);
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/readyz' });
    expect(log.text()).not.toContain('/healthz');
    expect(log.text()).not.toContain('/readyz');
    await app.inject({ method: 'GET', url: '/.well-known/ticket-issuer.json' });
    expect(log.text()).toContain('/.well-known/ticket-issuer.json');
  });
});

/** Sends raw bytes on one connection and collects everything the server writes until it closes the connection. */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  return {
    connected: new Promise<void>((resolve) => socket.once('connect', () => resolve())),
    write: (text: string) => new Promise<void>((resolve) => socket.write(text, () => resolve())),
    received: () => received,
    ended,
    destroy: () => socket.destroy(),
  };
}

describe('over a real socket', () => {
  test('both answer 200; once shutdown begins, /readyz on an open connection answers 503 shutting_down and the process still closes', async () => {
    const fx = fixture({ baseUrl: 'http://127.0.0.1:8080' });
    const server = await startServer({
      dataDir: fx.dataDir.root,
      host: '127.0.0.1',
      port: 0,
      plainHttp: true,
      logger: captureLog().logger,
      handleSignals: false,
    });
    let closed = false;
    cleanups.push(() => (closed ? undefined : server.close()));

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', schema_version: SCHEMA_VERSION });

    // A connection with a request on its way (headers not yet complete) is not idle, so shutdown lets it finish,
    // as it does for an in-flight check-in (issuer/shutdown.ts).
    const port = Number(new URL(server.url).port);
    const connection = rawConnection(port);
    cleanups.push(() => void connection.destroy());
    await connection.connected;
    await connection.write('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await connection.write('\r\n');
    const answer = await connection.ended;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer.toLowerCase()).toContain('retry-after: 5');
    expect(answer).toContain('"reason":"shutting_down"');
    await closing;
  });
});
