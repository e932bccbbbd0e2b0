/**
 * Slow and greedy clients on real sockets (docs/issuer.md "Threats handled",
 * slow clients): a body sent a byte at a time, headers that never end, a
 * connection that says nothing, more connections than the cap. The limits
 * are the documented ones, shortened here so each cut can be watched in a
 * second or two; `npm run bench:abuse` runs the real values under load.
 */
import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../../issuer/app.js';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUTS } from '../../../issuer/connection-limits.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

const SHORT = { headersMs: 800, requestMs: 1200, idleMs: 1500, keepAliveMs: 1000, checkIntervalMs: 100 };
let fx: IssuerFixture | null = null;
let app: FastifyInstance | null = null;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await app?.close();
  app = null;
  fx?.cleanup();
  fx = null;
});

async function start(options: { maxConnections?: number } = {}): Promise<number> {
  fx = createIssuerFixture();
  app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger, timeouts: SHORT, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** Opens a raw connection; resolves with it once connected. */
function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', () => undefined); // a cut connection may also reset
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** Milliseconds until the server closes `socket`, with everything it sent before closing. */
function closedAfter(socket: net.Socket, since: number): Promise<{ ms: number; received: string }> {
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  return new Promise((resolve) => socket.once('close', () => resolve({ ms: Date.now() - since, received })));
}

/** Writes `text` one byte every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= text.length) return clearInterval(timer);
    socket.write(text[index++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

/** The server's last word to a client it cut: our error envelope, saying why. */
function expectCutTooSlow(received: string): void {
  expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toEqual({
    error: { code: 'INVALID_REQUEST', message: 'the request took too long to arrive' },
  });
}

describe('slow clients are cut', () => {
  it('a body sent a byte at a time: cut at the request timeout, with the error envelope', async () => {
    const port = await start();
    const socket = await connect(port);
    const started = Date.now();
    const closed = closedAfter(socket, started);
    socket.write('POST /api/v1/scanners/enroll HTTP/1.1\r\nHost: issuer\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{');
    trickle(socket, `"token":"${'x'.repeat(390)}"}`, 100);
    const { ms, received } = await closed;
    expectCutTooSlow(received);
    expect(ms).toBeGreaterThanOrEqual(SHORT.requestMs - 100);
    expect(ms).toBeLessThan(SHORT.requestMs + 2000);
  });

  it('headers that never end: cut at the headers timeout', async () => {
    const port = await start();
    const socket = await connect(port);
    const closed = closedAfter(socket, Date.now());
    socket.write('GET /.well-known/ticket-issuer.json HTTP/1.1\r\nHost: issuer\r\n');
    trickle(socket, `X-Slow: ${'a'.repeat(200)}`, 100);
    const { ms, received } = await closed;
    expectCutTooSlow(received);
    expect(ms).toBeLessThan(SHORT.headersMs + 2000);
  });

  it('a connection that never says anything: closed when its headers are overdue', async () => {
    const port = await start();
    const socket = await connect(port);
    const { ms } = await closedAfter(socket, Date.now());
    expect(ms).toBeGreaterThanOrEqual(SHORT.headersMs - 100);
    expect(ms).toBeLessThan(SHORT.headersMs + 2000);
  });

  it('an idle keep-alive connection after a request is closed at the keep-alive timeout', async () => {
    const port = await start();
    const socket = await connect(port);
    const started = Date.now();
    const closed = closedAfter(socket, started);
    socket.write('GET /.well-known/ticket-issuer.json HTTP/1.1\r\nHost: issuer\r\n\r\n');
    const { ms, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    expect(received).toMatch(/Keep-Alive: timeout=1/i);
    expect(ms).toBeGreaterThanOrEqual(SHORT.keepAliveMs - 100);
    expect(ms).toBeLessThan(SHORT.keepAliveMs + 2000);
  });

  it('while slow clients wait to be cut, a kiosk is answered at once', async () => {
    const port = await start();
    const slow = await Promise.all(Array.from({ length: 20 }, () => connect(port)));
    for (const socket of slow)
      socket.write(
        'POST /api/v1/scanners/enroll HTTP/1.1\r\nHost: issuer\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
      );
    const response = await fetch(`http://127.0.0.1:${port}/.well-known/ticket-issuer.json`);
    expect(response.status).toBe(200);
    await Promise.all(slow.map((socket) => closedAfter(socket, Date.now())));
  });
});

describe('the connection cap', () => {
  it('connections beyond the cap are refused at once; the issuer answers again when they go', async () => {
    const port = await start({ maxConnections: 16 });
    const held = await Promise.all(Array.from({ length: 16 }, () => connect(port)));
    const extra = await connect(port);
    const { ms } = await closedAfter(extra, Date.now());
    expect(ms).toBeLessThan(SHORT.idleMs); // refused, not left to time out
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await fetch(`http://127.0.0.1:${port}/.well-known/ticket-issuer.json`)).status).toBe(200);
  });

  it('the documented defaults are what the server runs with', async () => {
    fx = createIssuerFixture();
    app = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger });
    expect(app.server.headersTimeout).toBe(DEFAULT_TIMEOUTS.headersMs);
    expect(app.server.requestTimeout).toBe(DEFAULT_TIMEOUTS.requestMs);
    expect(app.server.keepAliveTimeout).toBe(DEFAULT_TIMEOUTS.keepAliveMs);
    expect(app.server.timeout).toBe(DEFAULT_TIMEOUTS.idleMs);
    expect(app.server.maxConnections).toBe(DEFAULT_MAX_CONNECTIONS);
    expect([DEFAULT_TIMEOUTS.headersMs, DEFAULT_TIMEOUTS.requestMs, DEFAULT_MAX_CONNECTIONS]).toEqual([10_000, 15_000, 1_000]);
  });
});
