/**
 * The on-site issuer the kiosk app starts (main/onsite-issuer), in plain Node:
 * the real issuer on a temp data dir, a real socket on 127.0.0.1, admin work
 * done by the built `ticket-issuer` CLI on the same data dir while it serves
 * (as an operator would), and a real kiosk core that enrolls with the CLI's
 * setup code, pins the certificate and checks tickets in.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import {
  ONSITE_SCANNER_RPM,
  OnsiteIssuer,
  OnsiteIssuerError,
  type OnsiteIssuerErrorCode,
} from '../../../main/onsite-issuer/onsite-issuer.js';
import { captureLog, type CapturedLog } from '../../support/unit/log-capture.js';
import { cliJson, createEvent, openDb } from '../../support/cli-harness.js';
import { freePort } from '../../support/free-port.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

/** A venue laptop: loopback, Wi-Fi on the venue LAN, and a Docker bridge scanners can never reach. */
const INTERFACES = {
  lo: [
    { address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4' as const, mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' },
  ],
  wlan0: [
    {
      address: '192.168.7.20',
      netmask: '255.255.255.0',
      family: 'IPv4' as const,
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '192.168.7.20/24',
    },
  ],
  docker0: [
    {
      address: '172.17.0.1',
      netmask: '255.255.0.0',
      family: 'IPv4' as const,
      mac: '02:00:00:00:00:02',
      internal: false,
      cidr: '172.17.0.1/16',
    },
  ],
};

let dir: { dir: string; cleanup: () => void };
let dataDir: string;
let port: number;
let log: CapturedLog;
const issuers: OnsiteIssuer[] = [];
const cores: KioskCore[] = [];

beforeEach(async () => {
  dir = tempDir('onsite-issuer-');
  dataDir = path.join(dir.dir, 'userData', 'issuer-data');
  port = await freePort();
  log = captureLog();
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  for (const issuer of issuers.splice(0)) await issuer.stop();
  dir.cleanup();
});

function onsite(options: { port?: number; scannerRpm?: number } = {}): OnsiteIssuer {
  const issuer = new OnsiteIssuer({ dataDir, logger: log.logger, networkInterfaces: () => INTERFACES, ...options });
  issuers.push(issuer);
  return issuer;
}

function kiosk(db = 'kiosk.db'): { core: KioskCore; keys: MemoryApiKeys } {
  const keys = new MemoryApiKeys();
  const core = new KioskCore({ dbPath: path.join(dir.dir, db), apiKeys: keys, autoDrain: false, onlineBudgetMs: 5000 });
  cores.push(core);
  return { core, keys };
}

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<{ code: OnsiteIssuerErrorCode; message: string }> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).toBeInstanceOf(OnsiteIssuerError);
    const { code, message } = error as OnsiteIssuerError;
    return { code, message };
  }
  throw new Error('expected a refusal');
}

/** The operator's side, through the built CLI on the same data dir while the app serves it. */
async function issueTickets(count: number): Promise<{ eid: string; tickets: { tid: string; qr: string }[] }> {
  const event = await createEvent(dataDir);
  const { tickets } = await cliJson<{ tickets: { tid: string; qr: string }[] }>([
    'ticket',
    'issue',
    '--data',
    dataDir,
    '--event',
    event.eid,
    '--count',
    String(count),
  ]);
  return { eid: event.eid, tickets };
}

async function setupCode(eid: string): Promise<string> {
  return (await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', dataDir, '--event', eid])).setup_qr;
}

function refusesConnections(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(url).port), new URL(url).hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('initialising the on-site issuer', () => {
  it("refuses to start without an identity, suggests a base URL on the LAN, and takes name and URL by ticket-issuer init's rules", async () => {
    const issuer = onsite();
    expect(await issuer.status()).toMatchObject({
      initialised: false,
      running: false,
      dataDir,
      issuer: null,
      fingerprint: null,
      lanAddresses: ['192.168.7.20'],
      suggestedBaseUrl: 'https://192.168.7.20:8443',
    });
    expect(await refusal(issuer.start())).toMatchObject({ code: 'not_initialised', message: expect.stringMatching(/initialise it first/) });
    expect(fs.existsSync(dataDir)).toBe(false);

    expect(await refusal(() => issuer.init({ name: '   ' }))).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/must not be empty/),
    });
    expect(await refusal(() => issuer.init({ name: 'Harbour', baseUrl: 'http://192.168.7.20:8443' }))).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^the base URL .* must use https/),
    });
    expect(await refusal(() => issuer.init({ name: 'Harbour', baseUrl: 'https://192.168.7.20:8443/' }))).toMatchObject({
      code: 'invalid_input',
    });
    expect(await refusal(() => issuer.init({ name: 'Harbour', port: 70000 }))).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/port/),
    });
    expect((await issuer.status()).initialised).toBe(false);

    const status = await issuer.init({ name: '  Harbour Festival ' });
    expect(status).toMatchObject({
      initialised: true,
      running: false,
      issuer: { name: 'Harbour Festival', baseUrl: 'https://192.168.7.20:8443' },
      suggestedBaseUrl: null,
      warnings: [],
    });
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    // The same data dir the CLI works on.
    const events = await cliJson<{ events: unknown[] }>(['event', 'list', '--data', dataDir]);
    expect(events.events).toEqual([]);

    expect(await refusal(() => issuer.init({ name: 'Another' }))).toMatchObject({
      code: 'already_initialised',
      message: expect.stringMatching(/already holds an issuer/),
    });
    expect((await onsite().status()).issuer).toEqual({ name: 'Harbour Festival', baseUrl: 'https://192.168.7.20:8443' });
  });

  it('warns when the base URL names an address this machine no longer has', async () => {
    const issuer = onsite();
    await issuer.init({ name: 'Harbour', baseUrl: 'https://192.168.7.99:8443' });
    expect((await issuer.status()).warnings).toEqual([
      expect.stringMatching(/192\.168\.7\.99, which is not an address of this machine now \(192\.168\.7\.20\)/),
    ]);
  });
});

describe('running the on-site issuer', () => {
  it('serves HTTPS; a kiosk enrolls with a CLI setup code, pins the certificate and checks in; stop closes; a restart keeps the data', async () => {
    const issuer = onsite();
    await issuer.init({ name: 'Harbour Festival', baseUrl: `https://127.0.0.1:${port}` });
    const status = await issuer.start();
    expect(status).toMatchObject({
      running: true,
      listen: { host: '127.0.0.1', port },
      urls: [`https://127.0.0.1:${port}`],
      adminUrl: `https://127.0.0.1:${port}/admin`,
      fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
      scannerRpm: ONSITE_SCANNER_RPM,
    });
    expect(ONSITE_SCANNER_RPM).toBe(6000);
    // The certificate names the base URL's host, loopback and every LAN address (not the Docker bridge).
    expect(status.certificateNames).toEqual(expect.arrayContaining(['127.0.0.1', 'localhost', '192.168.7.20']));
    expect(status.certificateNames).not.toContain('172.17.0.1');

    const { eid, tickets } = await issueTickets(3);
    const setup = await setupCode(eid);
    expect(decodeSetupCode(setup).tls_cert_sha256).toBe(status.fingerprint);

    const { core } = kiosk();
    expect(await core.scan(setup)).toMatchObject({ type: 'enrolled', issuer_name: 'Harbour Festival' });
    expect(await core.scan(tickets[0]!.qr)).toMatchObject({
      type: 'verdict',
      verdict: { kind: 'admit', offline: false, decided_by: 'issuer' },
    });

    const stopped = await issuer.stop();
    expect(stopped).toMatchObject({ running: false, listen: null, urls: [], adminUrl: null, fingerprint: status.fingerprint });
    expect(await refusesConnections(status.urls[0]!)).toBe(true);
    // The database was closed cleanly: SQLite folds the WAL back and removes it when the last connection closes.
    expect(fs.existsSync(path.join(dataDir, 'issuer.db-wal'))).toBe(false);
    expect(await issuer.stop()).toMatchObject({ running: false });
    // The door goes offline while the issuer is stopped, and still admits (optimistic policy, queued).
    expect(await core.scan(tickets[1]!.qr)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', offline: true } });

    const restarted = await issuer.start();
    expect(restarted).toMatchObject({ running: true, fingerprint: status.fingerprint, urls: status.urls });
    expect(await core.drain()).toMatchObject({ stop: 'empty' });
    expect(await core.lookupStatus(tickets[0]!.tid)).toMatchObject({ type: 'status', status: { status: 'checked_in' } });
    expect(await core.lookupStatus(tickets[1]!.tid)).toMatchObject({ type: 'status', status: { status: 'checked_in' } });
    expect(await core.scan(tickets[2]!.qr)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', offline: false } });

    const db = openDb(dataDir);
    try {
      expect((db.prepare('SELECT COUNT(*) AS n FROM checkins').get() as { n: number }).n).toBe(3);
    } finally {
      db.close();
    }
  });

  it('refuses a second start clearly, also while the first is still starting', async () => {
    const issuer = onsite();
    await issuer.init({ name: 'Harbour', baseUrl: `https://127.0.0.1:${port}` });
    const [first, second] = await Promise.allSettled([issuer.start(), issuer.start()]);
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('rejected');
    expect((second as PromiseRejectedResult).reason).toMatchObject({ code: 'already_running' });
    expect(await refusal(issuer.start())).toEqual({
      code: 'already_running',
      message: `the on-site issuer is already running on port ${port}; stop it first to restart it`,
    });
    expect((await issuer.status()).running).toBe(true);
  });

  it('says the port is in use when another program holds it, and starts once it is free', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    const issuer = onsite();
    await issuer.init({ name: 'Harbour', baseUrl: `https://127.0.0.1:${port}` });
    try {
      const refused = await refusal(issuer.start());
      expect(refused.code).toBe('port_in_use');
      expect(refused.message).toBe(
        `port ${port} is already in use on 127.0.0.1: another program (perhaps "ticket-issuer serve" or a second copy of this app) listens there. Stop it, then start the issuer again.`,
      );
      expect(await issuer.status()).toMatchObject({ running: false, listen: null });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    expect(await issuer.start()).toMatchObject({ running: true });
  });

  it('on stop, answers the check-ins already in flight and writes them before closing the database', async () => {
    const issuer = onsite();
    await issuer.init({ name: 'Harbour', baseUrl: `https://127.0.0.1:${port}` });
    const { fingerprint } = await issuer.start();
    const { eid, tickets } = await issueTickets(20);
    const { core, keys } = kiosk();
    expect(await core.scan(await setupCode(eid))).toMatchObject({ type: 'enrolled' });
    const scannerId = (await core.getState()).scanner.id;
    const ca = fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');

    const before = log.lines().filter((line) => line['msg'] === 'incoming request').length;
    const answers = tickets.map((ticket) =>
      post(`https://127.0.0.1:${port}/api/v1/tickets/check-in`, ca, keys.key!, {
        tid: ticket.tid,
        eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scannerId,
        idempotency_key: randomUUID(),
      }),
    );
    // Stop once the issuer has every request in hand.
    await waitFor(() => log.lines().filter((line) => line['msg'] === 'incoming request').length - before >= tickets.length);
    const stopping = issuer.stop();
    const results = await Promise.all(answers);
    await stopping;

    expect(results.map((result) => `${result.status} ${(JSON.parse(result.body) as { status?: string }).status}`)).toEqual(
      tickets.map(() => '200 valid'),
    );
    const db = openDb(dataDir);
    try {
      expect((db.prepare('SELECT COUNT(*) AS n FROM checkins').get() as { n: number }).n).toBe(tickets.length);
    } finally {
      db.close();
    }
    expect(fingerprint).not.toBeNull();
  });
});

describe('the admin dashboard', () => {
  it('is served at the admin URL; a token made by the app signs in, and a new one replaces it', async () => {
    const issuer = onsite();
    expect(await refusal(() => issuer.resetAdminToken())).toMatchObject({ code: 'not_initialised' });
    await issuer.init({ name: 'Harbour', baseUrl: `https://127.0.0.1:${port}` });
    expect((await issuer.status()).adminTokenSet).toBe(false);
    const { adminUrl } = await issuer.start();
    const ca = fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');

    const page = await get(adminUrl!, ca);
    expect(page.status).toBe(200);
    expect(page.contentType).toMatch(/^text\/html/);

    const first = await issuer.resetAdminToken();
    expect(first.adminToken).toMatch(/^tva_/);
    expect((await issuer.status()).adminTokenSet).toBe(true);
    expect(log.text()).not.toContain(first.adminToken);
    expect((await get(`https://127.0.0.1:${port}/admin/api/session`, ca, first.adminToken)).status).toBe(200);

    const second = await issuer.resetAdminToken();
    expect(second.adminToken).not.toBe(first.adminToken);
    expect((await get(`https://127.0.0.1:${port}/admin/api/session`, ca, first.adminToken)).status).toBe(401);
    expect((await get(`https://127.0.0.1:${port}/admin/api/session`, ca, second.adminToken)).status).toBe(200);
  });
});

describe('the per-scanner rate limit', () => {
  it('is the on-site limit, applied to each scanner key (429 with Retry-After over it)', async () => {
    const issuer = onsite({ scannerRpm: 3 });
    await issuer.init({ name: 'Harbour', baseUrl: `https://127.0.0.1:${port}` });
    expect((await issuer.start()).scannerRpm).toBe(3);
    const { eid, tickets } = await issueTickets(4);
    // Enrolled by hand, not by a kiosk core: a kiosk sends requests of its own in the background (heartbeat,
    // revocation list) that count against the same limit, and this test counts only its own.
    const ca = fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
    const scannerId = randomUUID();
    const enrolled = await post(`https://127.0.0.1:${port}/api/v1/scanners/enroll`, ca, '', {
      token: decodeSetupCode(await setupCode(eid)).token,
      scanner_id: scannerId,
    });
    expect(enrolled.status).toBe(200);
    const apiKey = (JSON.parse(enrolled.body) as { api_key: string }).api_key;
    const statuses: number[] = [];
    for (const ticket of tickets) {
      const answer = await post(`https://127.0.0.1:${port}/api/v1/tickets/check-in`, ca, apiKey, {
        tid: ticket.tid,
        eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scannerId,
        idempotency_key: randomUUID(),
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

function post(url: string, ca: string, apiKey: string, body: unknown): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: 'POST',
        ca,
        // One connection per request, so each is in flight on its own socket when the stop begins.
        agent: false,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

function get(url: string, ca: string, bearer?: string): Promise<{ status: number; contentType: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { ca, agent: false, headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? '') }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
