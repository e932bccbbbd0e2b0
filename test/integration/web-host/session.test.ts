/**
 * Who may use the browser host, over real HTTP on 127.0.0.1: launch tokens,
 * session cookies, foreign origins and rebinding hosts, the launch file and
 * `--print-url`, the event-stream cap per session. The kiosk core is a small
 * stand-in here (the API itself is tested in web-host.test.ts); the last
 * block runs the built `ticket-kiosk web` CLI with the real runtime, so run
 * this file inside scripts/with-keyring.sh.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { KioskState } from '../../../main/kiosk/kiosk-api.js';
import {
  LAUNCH_FILE_NAME,
  LAUNCH_TOKEN_TTL_MS,
  launchUrlFor,
  loadOrCreateSecret,
  mintLaunchToken,
  openSession,
  printLaunchUrl,
  PrintUrlError,
  SessionAuthority,
} from '../../../main/web-host/launch.js';
import { MAX_EVENT_STREAMS_PER_SESSION } from '../../../main/web-host/event-streams.js';
import { startWebHost, type WebHost, type WebHostCore } from '../../../main/web-host/server.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

/** A stand-in core: getState and state pushes, enough to see who gets through. */
function fakeCore(): WebHostCore & { push(state: KioskState): void; subscribers: number } {
  const listeners = new Set<(state: KioskState) => void>();
  const state = { enrolled: false, scanner: { id: 'scanner-test', name: 'Test door' } } as unknown as KioskState;
  const core = {
    subscribers: 0,
    getState: async () => state,
    onStateChange(listener: (state: KioskState) => void) {
      listeners.add(listener);
      core.subscribers = listeners.size;
      return () => {
        listeners.delete(listener);
        core.subscribers = listeners.size;
      };
    },
    push(next: KioskState) {
      for (const listener of listeners) listener(next);
    },
    scan: async () => ({ type: 'ignored' }),
    confirmReEnroll: async () => null,
    cancelReEnroll: async () => undefined,
    lookupStatus: async () => ({ found: false }),
    setScannerName: async () => state,
    resetCalibration: async () => undefined,
  };
  return core as unknown as WebHostCore & { push(state: KioskState): void; subscribers: number };
}

let dataDir: string;
let rendererDir: string;
let core: ReturnType<typeof fakeCore>;
let host: WebHost;
const logs: string[] = [];
/** Every token and cookie the tests saw: none may appear in a log line or an answer. */
const secrets = new Set<string>();
const answers: string[] = [];

function startHost(): Promise<WebHost> {
  return startWebHost({ core, rendererDir, launchFile: join(dataDir, LAUNCH_FILE_NAME), log: (line) => logs.push(line) });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kiosk-web-session-'));
  rendererDir = mkdtempSync(join(tmpdir(), 'kiosk-web-session-page-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body></body></html>');
  writeFileSync(join(rendererDir, 'app.js'), 'console.log("public");');
  core = fakeCore();
  host = await startHost();
});

afterAll(async () => {
  await host?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(rendererDir, { recursive: true, force: true });
  // Last, after every test has added what it saw.
  const said = [...logs, ...answers].join('\n');
  for (const secret of secrets) expect(said).not.toContain(secret);
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request on a real socket, with exactly the headers given (plus Host unless overridden). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string, target: WebHost = host): Promise<Answer> {
  return new Promise((resolveAnswer, reject) => {
    const req = request({ host: '127.0.0.1', port: target.port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        answers.push(text);
        resolveAnswer({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function apiCall(cookie: string | undefined, method = 'getState', headers: Record<string, string> = {}): Promise<Answer> {
  return raw(`/api/kiosk/${method}`, { 'content-type': 'application/json', ...(cookie ? { cookie } : {}), ...headers }, 'POST', '[]');
}

/** path + query of a launch URL. */
function pathOf(launchUrl: string): string {
  const url = new URL(launchUrl);
  secrets.add(url.searchParams.get('token')!);
  return url.pathname + url.search;
}

/** Trades a launch URL for the session cookie, checking the answer a browser gets. */
async function trade(launchUrl: string, target: WebHost = host): Promise<string> {
  const answer = await raw(pathOf(launchUrl), {}, 'GET', undefined, target);
  expect(answer.status).toBe(303);
  expect(answer.headers.location).toBe('/');
  const setCookie = answer.headers['set-cookie']![0]!;
  const cookie = setCookie.split(';')[0]!;
  secrets.add(cookie.slice(cookie.indexOf('=') + 1));
  return cookie;
}

/** Opens an event stream on a real socket; resolves with its status and, for a 200, the first state. */
function openStream(cookie: string): Promise<{ status: number; first: string; close(): void }> {
  return new Promise((resolveStream, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path: '/api/kiosk/events', headers: { cookie } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      const close = (): void => void req.destroy();
      if (res.statusCode !== 200) {
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolveStream({ status: res.statusCode ?? 0, first: text, close }));
        return;
      }
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('event: state')) resolveStream({ status: 200, first: text, close });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('without a session', () => {
  it('the API and the event stream answer 401 with the error envelope, saying how to get a launch URL', async () => {
    for (const answer of [
      await apiCall(undefined),
      await apiCall(undefined, 'scan'),
      await raw('/api/kiosk/events'),
      await raw('/api/kiosk/nope'),
    ]) {
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toEqual({
        ok: false,
        error: { code: 'unauthorized', message: expect.stringContaining('--print-url') },
      });
    }
    expect(core.subscribers).toBe(0);
  });

  it('a wrong cookie is no session: random, forged with another secret, tampered, or for another port', async () => {
    const real = await trade(host.launchUrl());
    const [name, value] = real.split('=') as [string, string];
    const otherSecret = new SessionAuthority(Buffer.alloc(32, 7), 'x').newSession().cookie;
    for (const cookie of [
      `${name}=garbage`,
      `${name}=${otherSecret}`,
      `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`,
      `${name}=.${value.split('.')[1]}`,
      `ticket-kiosk-session-1=${value}`,
    ]) {
      const answer = await apiCall(cookie);
      expect(answer.status, cookie).toBe(401);
      expect(JSON.parse(answer.body).error.code).toBe('unauthorized');
    }
    // The real one, even among others of the same name (a browser may send several).
    expect((await apiCall(`${name}=garbage; ${real}`)).status).toBe(200);
  });

  it('the page says how to get in; the public files are served', async () => {
    for (const path of ['/', '/index.html']) {
      const page = await raw(path);
      expect(page.status).toBe(401);
      expect(page.body).toContain('ticket-kiosk web --print-url');
    }
    expect((await raw('/kiosk-host.js')).status).toBe(200);
    expect((await raw('/app.js')).body).toContain('public');
  });
});

describe('launch URLs', () => {
  it('a launch URL sets an HttpOnly, SameSite=Strict cookie for / and redirects to the URL without the token', async () => {
    const launch = host.launchUrl();
    expect(launch).toMatch(new RegExp(`^${host.url}\\?token=[\\w.-]{40,}$`));
    const answer = await raw(pathOf(launch));
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/');
    const setCookie = answer.headers['set-cookie'];
    expect(setCookie).toHaveLength(1);
    expect(setCookie![0]).toMatch(new RegExp(`^ticket-kiosk-session-${host.port}=[\\w-]+\\.[\\w-]+; HttpOnly; SameSite=Strict; Path=/$`));
    const cookie = setCookie![0]!.split(';')[0]!;
    secrets.add(cookie.split('=')[1]!);

    expect(JSON.parse((await apiCall(cookie)).body)).toMatchObject({ ok: true, value: { scanner: { name: 'Test door' } } });
    const page = await raw('/', { cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('kiosk-host.js');
    // The page's own calls carry Origin and Sec-Fetch-Site; they pass.
    expect((await apiCall(cookie, 'getState', { origin: host.url.replace(/\/$/, ''), 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('works once: a reused launch URL is refused and sets no cookie', async () => {
    const launch = host.launchUrl();
    await trade(launch);
    const again = await raw(pathOf(launch));
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.body).toMatch(/already used/);
    expect(logs.some((line) => line.includes('launch URL was refused (already used)'))).toBe(true);
  });

  it('refuses a tampered, foreign or expired token, saying which', async () => {
    const token = new URL(host.launchUrl()).searchParams.get('token')!;
    const secret = Buffer.from(JSON.parse(readFileSync(join(dataDir, LAUNCH_FILE_NAME), 'utf8')).secret, 'base64url');
    const instance = JSON.parse(readFileSync(join(dataDir, LAUNCH_FILE_NAME), 'utf8')).instance;
    const cases: Array<[string, RegExp]> = [
      [token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), /not valid/],
      ['', /not valid/],
      ['a.b.c', /not valid/],
      [mintLaunchToken(Buffer.alloc(32, 1), instance), /not valid/],
      [mintLaunchToken(secret, 'an-earlier-run'), /not valid/],
      [mintLaunchToken(secret, instance, Date.now() - LAUNCH_TOKEN_TTL_MS - 60_000), /expired/],
    ];
    for (const [bad, why] of cases) {
      if (bad.length > 20) secrets.add(bad);
      const answer = await raw(`/?token=${encodeURIComponent(bad)}`);
      expect(answer.status, bad).toBe(401);
      expect(answer.body).toMatch(why);
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    // The untouched token still works: the refusals spent nothing.
    await trade(launchUrlFor(host.url, token));
  });

  it('trades tokens on the page only, and redirects to a fixed path, never one made from the request', async () => {
    const launch = host.launchUrl();
    const token = new URL(launch).search;
    // "/.//evil.example" normalises to the path "//evil.example", which a browser would take for another host.
    for (const path of ['/.//evil.example', '/app.js', '/api/kiosk/getState']) {
      const answer = await raw(`${path}${token}`);
      expect(answer.status, path).not.toBe(303);
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    const indexLaunch = host.launchUrl();
    const viaIndex = await raw(`/index.html${new URL(indexLaunch).search}`);
    pathOf(indexLaunch);
    expect(viaIndex).toMatchObject({ status: 303, headers: { location: '/index.html' } });
    await trade(launch);
  });

  it('a browser that already has a session is sent on without spending the token', async () => {
    const cookie = await trade(host.launchUrl());
    const spare = host.launchUrl();
    const answer = await raw(pathOf(spare), { cookie });
    expect(answer).toMatchObject({ status: 303, headers: { location: '/' } });
    expect(answer.headers['set-cookie']).toBeUndefined();
    await trade(spare);
  });
});

describe('who may call, with a valid session', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await trade(host.launchUrl());
  });

  it.each([
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['a null Origin', { origin: 'null' }],
    ['our host on another port', { origin: 'http://127.0.0.1:1' }],
    ['a cross-site fetch', { 'sec-fetch-site': 'cross-site' }],
  ])('refuses %s with 403 forbidden', async (_what, headers) => {
    const answer = await apiCall(cookie, 'getState', headers);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({
      ok: false,
      error: { code: 'forbidden', message: expect.stringMatching(/^Refused: cross-(origin|site) requests may not operate the kiosk\.$/) },
    });
  });

  it('refuses a DNS-rebinding Host for the API, the stream, the page and the launch URL (which stays unspent)', async () => {
    const rebinding = { host: `kiosk.evil.example:${host.port}` };
    for (const path of ['/api/kiosk/events', '/']) {
      const answer = await raw(path, { ...rebinding, cookie });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).error).toEqual({
        code: 'forbidden',
        message: 'Refused: the Host header names another server (DNS rebinding?).',
      });
    }
    expect((await raw('/api/kiosk/getState', { ...rebinding, cookie, 'content-type': 'application/json' }, 'POST', '[]')).status).toBe(403);
    const launch = host.launchUrl();
    const refused = await raw(pathOf(launch), rebinding);
    expect(refused.status).toBe(403);
    expect(refused.headers['set-cookie']).toBeUndefined();
    await trade(launch);
  });
});

describe('event streams', () => {
  const opened: Array<{ close(): void }> = [];
  afterEach(() => {
    for (const stream of opened.splice(0)) stream.close();
  });

  it(`caps streams at ${MAX_EVENT_STREAMS_PER_SESSION} per session; another session still gets its own`, async () => {
    const greedy = await trade(host.launchUrl());
    for (let i = 0; i < MAX_EVENT_STREAMS_PER_SESSION; i++) {
      const stream = await openStream(greedy);
      opened.push(stream);
      expect(stream.status).toBe(200);
    }
    const refused = await openStream(greedy);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.first)).toEqual({
      ok: false,
      error: { code: 'too_many_streams', message: expect.stringContaining(String(MAX_EVENT_STREAMS_PER_SESSION)) },
    });

    // The real page's session is not starved.
    const page = await trade(host.launchUrl());
    const mine = await openStream(page);
    opened.push(mine);
    expect(mine.status).toBe(200);
    expect(mine.first).toContain('"name":"Test door"');

    // Closing one greedy stream frees a place for that session again.
    opened.shift()!.close();
    await expect
      .poll(async () => {
        const retry = await openStream(greedy);
        opened.push(retry);
        return retry.status;
      })
      .toBe(200);
  });
});

describe('the launch file and --print-url', () => {
  it('is 0600 and holds the secret, the running instance, the address and the pid', () => {
    const path = join(dataDir, LAUNCH_FILE_NAME);
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      version: 1,
      secret: expect.stringMatching(/^[\w-]{43}$/),
      instance: expect.any(String),
      url: host.url,
      pid: process.pid,
    });
  });

  it('printLaunchUrl mints a URL the running host accepts, without a restart', async () => {
    const printed = await printLaunchUrl(dataDir);
    expect(printed.startsWith(`${host.url}?token=`)).toBe(true);
    const cookie = await trade(printed);
    expect((await apiCall(cookie)).status).toBe(200);
    // openSession (for programs that drive the host) does the same trade.
    expect((await apiCall(await openSession(await printLaunchUrl(dataDir)))).status).toBe(200);
  });

  it('after a restart: sessions survive, launch URLs of the earlier run do not, --print-url follows the new run', async () => {
    const cookie = await trade(host.launchUrl());
    const unused = host.launchUrl();
    pathOf(unused);
    await host.close();
    await expect(printLaunchUrl(dataDir)).rejects.toThrow(/no browser host is running/);
    expect(JSON.parse(readFileSync(join(dataDir, LAUNCH_FILE_NAME), 'utf8'))).toEqual({ version: 1, secret: expect.any(String) });

    host = await startHost();
    // Cookies are named by port; this host may listen on another one.
    const value = cookie.slice(cookie.indexOf('=') + 1);
    expect((await apiCall(`ticket-kiosk-session-${host.port}=${value}`)).status).toBe(200);
    const old = await raw(new URL(unused).pathname + new URL(unused).search);
    expect(old.status).toBe(401);
    expect(old.body).toMatch(/earlier run/);
    await trade(await printLaunchUrl(dataDir));
  });

  it('a launch file others could read is not trusted: the host makes a new secret, --print-url refuses it', async () => {
    if (process.platform === 'win32') return console.log('skipped: no POSIX file modes on Windows');
    const dir = mkdtempSync(join(tmpdir(), 'kiosk-web-session-loose-'));
    try {
      const path = join(dir, LAUNCH_FILE_NAME);
      writeFileSync(
        path,
        JSON.stringify({ version: 1, secret: Buffer.alloc(32, 3).toString('base64url'), instance: 'i', url: host.url, pid: process.pid }),
      );
      chmodSync(path, 0o644);
      await expect(printLaunchUrl(dir)).rejects.toThrow(/cannot be trusted: others could read it \(mode 0644\)/);
      const seen: string[] = [];
      const secret = await loadOrCreateSecret(path, (line) => seen.push(line));
      expect(secret.equals(Buffer.alloc(32, 3))).toBe(false);
      expect(seen.join('\n')).toMatch(/was not used: others could read it/);
      expect(seen.join('\n')).not.toContain(Buffer.alloc(32, 3).toString('base64url'));
      writeFileSync(path, 'not json');
      chmodSync(path, 0o600);
      await expect(printLaunchUrl(dir)).rejects.toThrow(/damaged/);
      rmSync(path);
      await expect(printLaunchUrl(dir)).rejects.toThrow(PrintUrlError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('`ticket-kiosk web` (the built CLI, real kiosk runtime)', () => {
  const CLI = join(ROOT, 'dist', 'main', 'cli.js');
  let child: ChildProcess | undefined;
  let cliData: string;
  let output = '';

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (cliData) rmSync(cliData, { recursive: true, force: true });
  });

  it('prints a launch URL at start; --print-url prints another one the running host accepts; secrets stay out of the log lines', async () => {
    if (!process.env.DBUS_SESSION_BUS_ADDRESS)
      throw new Error('The kiosk runtime keeps its API key in the OS keyring: run this test inside scripts/with-keyring.sh');
    cliData = mkdtempSync(join(tmpdir(), 'kiosk-web-cli-'));
    child = spawn(process.execPath, [CLI, 'web', '--port', '0', '--no-hid', '--data', cliData], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await expect.poll(() => /\?token=\S+/.test(output) || child!.exitCode !== null, { timeout: 20_000 }).toBe(true);
    const launch = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(output)?.[1];
    expect(launch, output).toBeDefined();
    expect(output).toMatch(/running at http:\/\/127\.0\.0\.1:\d+\/ /);
    expect(output).toContain(`--print-url --data ${cliData}`);

    const { stdout } = await run(process.execPath, [CLI, 'web', '--print-url', '--data', cliData], { cwd: ROOT });
    const printed = stdout.trim();
    expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w.-]+$/);
    expect(printed).not.toBe(launch);
    const base = new URL(printed).origin;
    for (const url of [launch!, printed]) {
      const cookie = await openSession(url);
      secrets.add(cookie.slice(cookie.indexOf('=') + 1));
      const answer = await fetch(`${base}/api/kiosk/getState`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: '[]',
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ ok: true, value: { enrolled: false } });
      await expect(openSession(url)).rejects.toThrow(/HTTP 401/);
    }
    expect(
      (await fetch(`${base}/api/kiosk/getState`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' })).status,
    ).toBe(401);
    if (process.platform !== 'win32') expect(statSync(join(cliData, LAUNCH_FILE_NAME)).mode & 0o777).toBe(0o600);

    // The launch URL is printed once, on its own line; the log lines ([kiosk] …) carry no token or cookie.
    const logLines = output.split('\n').filter((line) => line.startsWith('[kiosk]'));
    expect(logLines.some((line) => line.includes('opened a session'))).toBe(true);
    for (const secret of [new URL(launch!).searchParams.get('token')!, new URL(printed).searchParams.get('token')!, ...secrets]) {
      expect(logLines.join('\n')).not.toContain(secret);
    }
  });

  it('--print-url without a running host says so and exits 1', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'kiosk-web-cli-none-'));
    try {
      const failed = await run(process.execPath, [CLI, 'web', '--print-url', '--data', empty], { cwd: ROOT }).then(
        () => null,
        (error: { code: number; stderr: string; stdout: string }) => error,
      );
      expect(failed).toMatchObject({ code: 1, stdout: '' });
      expect(failed!.stderr).toMatch(/^ticket-kiosk: no browser host is running for .*: start one with `ticket-kiosk web --data /);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
