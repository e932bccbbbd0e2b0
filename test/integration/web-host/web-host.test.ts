/**
 * The web host over real HTTP on 127.0.0.1: the real kiosk runtime (SQLite in
 * a temp dir, the API key in the real OS keyring, so run inside
 * scripts/with-keyring.sh) and a loopback issuer.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKioskRuntime, type KioskRuntime } from '../../../main/host/kiosk-runtime.js';
import { CONTENT_SECURITY_POLICY } from '../../../main/host/content-security-policy.js';
import { SecretStore } from '../../../main/kiosk/store/api-key-store.js';
import { openSession } from '../../../main/web-host/launch.js';
import { withHostScript } from '../../../main/web-host/page-route.js';
import { listenProblem, requestProblem } from '../../../main/web-host/request-checks.js';
import { startWebHost, type WebHost } from '../../../main/web-host/server.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';

// A keyring service of our own: the test never touches a real kiosk's key.
const KEYRING_SERVICE = `ticket-kiosk-web-host-test-${process.pid}`;

let issuer: LoopbackIssuer;
let dataDir: string;
let rendererDir: string;
let runtime: KioskRuntime;
let host: WebHost;
/** The session cookie, from a launch URL as a browser gets it (who may call without one: session.test.ts). */
let cookie: string;
const logs: string[] = [];

beforeAll(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    throw new Error('The web host keeps its API key in the OS keyring: run this test inside scripts/with-keyring.sh');
  issuer = await new LoopbackIssuer().start();
  dataDir = mkdtempSync(join(tmpdir(), 'kiosk-web-host-'));
  rendererDir = mkdtempSync(join(tmpdir(), 'kiosk-web-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body></body></html>');
  runtime = await startKioskRuntime({
    dataDir,
    keyringService: KEYRING_SERVICE,
    hidScanners: false,
    core: { autoDrain: false, onlineBudgetMs: 800 },
    log: (line) => logs.push(line),
  });
  host = await startWebHost({ core: runtime.core, rendererDir, log: (line) => logs.push(line) });
  cookie = await openSession(host.launchUrl());
});

afterAll(async () => {
  await host?.close();
  await runtime?.close();
  await new SecretStore({ serviceName: KEYRING_SERVICE }).deleteAll().catch(() => 0);
  await issuer?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(rendererDir, { recursive: true, force: true });
});

async function api(
  method: string,
  args: unknown = [],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; text: string }> {
  const response = await fetch(new URL(`/api/kiosk/${method}`, host.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, ...headers },
    body: typeof args === 'string' ? args : JSON.stringify(args),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

/** A raw request, for what fetch would not send (a path with "..", a forged Host). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, method, headers: { cookie, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads server-sent events until `until` accepts one; aborts the stream afterwards. */
async function nextStates(count: number, afterOpen: () => Promise<unknown>): Promise<unknown[]> {
  const controller = new AbortController();
  const response = await fetch(new URL('/api/kiosk/events', host.url), { signal: controller.signal, headers: { cookie } });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const states: unknown[] = [];
  let buffer = '';
  let opened = false;
  while (states.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (block.startsWith('event: state') && data) states.push(JSON.parse(data.slice(6)));
    }
    if (states.length > 0 && !opened) {
      opened = true;
      await afterOpen();
    }
  }
  controller.abort();
  return states;
}

describe('the kiosk API over HTTP', () => {
  it('answers getState, enrolls with a setup code, admits a ticket; no response carries the API key', async () => {
    const texts: string[] = [];
    const call = async (method: string, args: unknown[] = []) => {
      const answer = await api(method, args);
      texts.push(answer.text);
      return answer;
    };
    expect(await call('getState')).toMatchObject({ status: 200, body: { ok: true, value: { enrolled: false } } });
    expect(await call('scan', [issuer.setupCode()])).toMatchObject({
      status: 200,
      body: { ok: true, value: { type: 'enrolled', event_name: 'Summer Gala' } },
    });
    const ticket = issuer.issueTicket();
    const admitted = await call('scan', [ticket.code]);
    expect(admitted.body).toMatchObject({ ok: true, value: { type: 'verdict' } });
    expect(await call('lookupStatus', [ticket.tid])).toMatchObject({ status: 200, body: { ok: true } });
    const state = (await call('getState')).body as { value: { scanner: { id: string } } };

    // This kiosk's own entry (docs/kiosk.md "Secret storage"): the issuer address and its scanner id.
    const apiKey = await new SecretStore({ serviceName: KEYRING_SERVICE }).loadApiKey(`${issuer.url}#scanner=${state.value.scanner.id}`);
    expect(apiKey).toMatch(/^sk_/); // it is in the OS keyring...
    for (const text of texts) expect(text).not.toContain(apiKey!); // ...and never in an answer
    expect(logs.join('\n')).not.toContain(apiKey!);
  });

  it('streams the current state, then every change, as server-sent events', async () => {
    const states = await nextStates(2, () => api('setScannerName', ['Web door']));
    expect(states[0]).toMatchObject({ scanner: { id: expect.any(String) } });
    expect(states[1]).toMatchObject({ scanner: { name: 'Web door' } });
  });

  it('validates like the IPC and says what is wrong', async () => {
    expect(await api('scan', '{"not json')).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'invalid_json', message: expect.stringMatching(/not valid JSON/) } },
    });
    expect(await api('scan', { text: 'tkt1.x' })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'invalid_input', message: 'The arguments must be a list.' } },
    });
    expect(await api('scan', ['x'.repeat(4097)])).toMatchObject({ status: 400, body: { error: { code: 'invalid_input' } } });
    expect(await api('setScannerName', ['a\u001b[2Jb'])).toMatchObject({ status: 400, body: { error: { code: 'invalid_input' } } });
    expect(await api('drain')).toMatchObject({ status: 404, body: { error: { code: 'unknown_method' } } });
    expect(await api('__proto__')).toMatchObject({ status: 404, body: { error: { code: 'unknown_method' } } });
    expect(await api('scan', JSON.stringify(['x'.repeat(70_000)]))).toMatchObject({
      status: 413,
      body: { error: { code: 'payload_too_large' } },
    });

    const form = await fetch(new URL('/api/kiosk/getState', host.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: 'a=b',
    });
    expect(form.status).toBe(415);
    expect((await fetch(new URL('/api/kiosk/getState', host.url), { headers: { cookie } })).status).toBe(405);
  });
});

describe('who may call', () => {
  it.each([
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['a null Origin (sandboxed frame, file page)', { origin: 'null' }],
    ['another port on the same host', { origin: 'http://127.0.0.1:1' }],
    ['a cross-site fetch', { 'sec-fetch-site': 'cross-site' }],
    ['a same-site page on another port', { 'sec-fetch-site': 'same-site' }],
  ])('refuses %s', async (_what, headers) => {
    const answer = await api('getState', [], headers);
    expect(answer).toMatchObject({ status: 403, body: { ok: false, error: { code: 'forbidden' } } });
    expect(answer.text).not.toContain('scanner');
  });

  it('accepts our own origin', async () => {
    expect(await api('getState', [], { origin: host.url.replace(/\/$/, ''), 'sec-fetch-site': 'same-origin' })).toMatchObject({
      status: 200,
    });
  });

  it('refuses a DNS-rebinding Host for pages and API alike', async () => {
    for (const path of ['/', '/kiosk-host.js', '/api/kiosk/events']) {
      expect((await raw(path, { host: `evil.example:${host.port}` })).status).toBe(403);
    }
    expect((await raw('/', { host: `localhost:${host.port}` })).status).toBe(200);
    expect((await raw('/', { host: `127.0.0.1:${host.port + 1}` })).status).toBe(403);
  });

  it.each([
    [{ hostHeader: 'kiosk.evil:8787', origin: undefined, secFetchSite: undefined }, 'another server'],
    [{ hostHeader: undefined, origin: undefined, secFetchSite: undefined }, 'missing or malformed'],
    [{ hostHeader: 'user@127.0.0.1:8787', origin: undefined, secFetchSite: undefined }, 'missing or malformed'],
    [{ hostHeader: '127.0.0.1:8787/x', origin: undefined, secFetchSite: undefined }, 'missing or malformed'],
    [{ hostHeader: '127.0.0.1', origin: undefined, secFetchSite: undefined }, 'another port'],
  ])('requestProblem(%j) names the problem', (facts, problem) => {
    expect(requestProblem(facts, '127.0.0.1', 8787, true)).toContain(problem);
  });

  it('refuses to listen beyond loopback without --allow-remote', async () => {
    await expect(startWebHost({ core: runtime.core, host: '0.0.0.0', rendererDir, log: () => undefined })).rejects.toThrow(
      /--allow-remote/,
    );
    for (const address of ['0.0.0.0', '::', '192.168.1.20', 'kiosk.local'])
      expect(listenProblem(address, false)).toMatch(/anyone who can reach it/);
    for (const address of ['127.0.0.1', '127.8.0.1', 'localhost', '::1']) expect(listenProblem(address, false)).toBeNull();
    expect(listenProblem('0.0.0.0', true)).toBeNull();
  });
});

describe('pages', () => {
  it('serves index.html with the host script first in <head>, under the strict CSP', async () => {
    const response = await fetch(host.url, { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toContain('<head><script src="./kiosk-host.js"></script><title>');
    const script = await fetch(new URL('/kiosk-host.js', host.url));
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toMatch(/\/api\/kiosk\/events[\s\S]*\(window\);\s*$/);
    expect(withHostScript('<p>no head</p>')).toBe('<script src="./kiosk-host.js"></script><p>no head</p>');
  });

  it('serves nothing outside the renderer directory', async () => {
    for (const path of ['/../package.json', '/..%2fpackage.json', '/%2e%2e/%2e%2e/etc/passwd', '/index.html%00.js', '/%E0%A4%A']) {
      expect([400, 404]).toContain((await raw(path)).status);
    }
    expect((await raw('/missing.js')).status).toBe(404);
    expect((await raw('/', {}, 'DELETE')).status).toBe(405);
  });
});
