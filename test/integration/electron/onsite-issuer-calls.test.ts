/**
 * The on-site issuer's IPC handlers (main/electron/onsite-issuer-calls.ts)
 * against a real OnsiteIssuer on a temp data dir and a real socket on
 * 127.0.0.1: hostile inputs, envelopes, error codes. Electron stays out: the
 * dashboard window is a recorder standing in for admin-window's BrowserWindow.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ISSUER_CHANNELS, KIOSK_CHANNELS } from '../../../main/host/call-channels.js';
import {
  handleIssuerCall,
  ISSUER_CALL_NAMES,
  ISSUER_INTERNAL_ERROR_MESSAGE,
  issuerForbiddenAnswer,
  MAX_BASE_URL_LENGTH,
  type IssuerHost,
} from '../../../main/electron/onsite-issuer-calls.js';
import { OnsiteIssuer } from '../../../main/onsite-issuer/onsite-issuer.js';
import { captureLog } from '../../support/unit/log-capture.js';
import { freePort } from '../../support/free-port.js';
import { tempDir } from '../../support/temp-dir.js';

const LAN = {
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
};

let dir: { dir: string; cleanup: () => void };
let issuer: OnsiteIssuer;
let opened: Array<{ url: string; fingerprint: string }>;
let host: IssuerHost;
let port: number;

beforeEach(async () => {
  dir = tempDir('issuer-ipc-');
  port = await freePort();
  issuer = new OnsiteIssuer({ dataDir: path.join(dir.dir, 'issuer-data'), logger: captureLog().logger, networkInterfaces: () => LAN });
  opened = [];
  host = {
    issuer,
    openAdmin: async (target) => {
      opened.push(target);
    },
  };
});

afterEach(async () => {
  await issuer.stop();
  dir.cleanup();
});

const call = (method: string, ...args: unknown[]) => handleIssuerCall(host, method, args);

describe('call names', () => {
  it('has one channel per call, apart from the kiosk channels', () => {
    expect([...ISSUER_CALL_NAMES].sort()).toEqual(['init', 'openAdmin', 'resetAdminToken', 'start', 'status', 'stop']);
    const channels = Object.values(ISSUER_CHANNELS);
    expect(new Set(channels).size).toBe(ISSUER_CALL_NAMES.length);
    for (const channel of channels) {
      expect(channel).toMatch(/^issuer:/);
      expect(Object.values(KIOSK_CHANNELS)).not.toContain(channel);
    }
  });

  it.each(['scan', 'close', 'listen', '__proto__', 'constructor', 'toString', '', 'STATUS', 'status '])(
    'refuses %j as unknown_method',
    async (name) => {
      expect(await handleIssuerCall(host, name, [])).toEqual({
        ok: false,
        error: { code: 'unknown_method', message: 'There is no such issuer call.' },
      });
    },
  );
});

describe('input validation', () => {
  const hostile: Array<[string, unknown, RegExp]> = [
    ['status', undefined, /must be a list/],
    ['status', 'x', /must be a list/],
    ['status', ['extra'], /takes no arguments/],
    ['start', [{ port: 1 }], /takes no arguments/],
    ['stop', [null], /takes no arguments/],
    ['openAdmin', ['https://evil.example/'], /takes no arguments/],
    ['resetAdminToken', ['tva_chosen-by-the-page'], /takes no arguments/],
    ['init', [], /exactly one argument/],
    ['init', [{ name: 'A' }, { name: 'B' }], /exactly one argument/],
    ['init', ['Harbour'], /must be an object/],
    ['init', [null], /must be an object/],
    ['init', [['Harbour']], /must be an object/],
    ['init', [new Date()], /plain object/],
    ['init', [{}], /name must be a string/],
    ['init', [{ name: 42 }], /name must be a string/],
    ['init', [{ name: '   ' }], /name is empty/],
    ['init', [{ name: 'x'.repeat(321) }], /longer than 320/],
    ['init', [{ name: 'Harbour\nFAKE LOG LINE' }], /control characters/],
    ['init', [{ name: 'Harbour \u202eevil' }], /control characters/],
    ['init', [{ name: 'Harbour', baseUrl: 8443 }], /base URL must be a string/],
    ['init', [{ name: 'Harbour', baseUrl: `https://${'a'.repeat(MAX_BASE_URL_LENGTH)}` }], /longer than 2048/],
    ['init', [{ name: 'Harbour', port: '8443' }], /port must be a whole number/],
    ['init', [{ name: 'Harbour', port: 0 }], /port must be a whole number/],
    ['init', [{ name: 'Harbour', port: 8443.5 }], /port must be a whole number/],
    ['init', [{ name: 'Harbour', dataDir: '/etc' }], /Unknown field "dataDir"/],
    ['init', [{ name: 'Harbour', __proto__: { admin: true } }], /plain object/],
  ];

  it.each(hostile)('%s(%j) → invalid_input, and nothing changed', async (method, args, message) => {
    const answer = await handleIssuerCall(host, method, args);
    expect(answer).toEqual({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(message) } });
    expect(await issuer.status()).toMatchObject({ initialised: false, running: false });
    expect(fs.existsSync(path.join(dir.dir, 'issuer-data'))).toBe(false);
  });

  it('passes the init rules of ticket-issuer init on as invalid_input', async () => {
    expect(await call('init', { name: 'Harbour', baseUrl: 'http://192.168.7.20:8443' })).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/must use https/) },
    });
    expect(await call('init', { name: 'x'.repeat(81) })).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/keep it to 80/) },
    });
  });
});

describe('answers', () => {
  it('init, start, status, openAdmin, stop: plain JSON envelopes with the issuer status', async () => {
    const before = await call('status');
    expect(before).toMatchObject({ ok: true, value: { initialised: false, suggestedBaseUrl: 'https://192.168.7.20:8443' } });
    expect(await call('start')).toMatchObject({ ok: false, error: { code: 'not_initialised' } });
    expect(await call('openAdmin')).toEqual({
      ok: false,
      error: { code: 'not_running', message: 'The on-site issuer is not running: start it first.' },
    });
    expect(await call('resetAdminToken')).toMatchObject({ ok: false, error: { code: 'not_initialised' } });

    const initialised = await call('init', { name: 'Harbour Festival', baseUrl: `https://127.0.0.1:${port}` });
    expect(initialised).toMatchObject({
      ok: true,
      value: { initialised: true, issuer: { name: 'Harbour Festival', baseUrl: `https://127.0.0.1:${port}` } },
    });
    expect(await call('init', { name: 'Again' })).toMatchObject({ ok: false, error: { code: 'already_initialised' } });

    const started = await call('start');
    expect(started).toMatchObject({
      ok: true,
      value: { running: true, urls: [`https://127.0.0.1:${port}`], adminUrl: `https://127.0.0.1:${port}/admin` },
    });
    expect(JSON.parse(JSON.stringify(started))).toEqual(started);
    expect(structuredClone(started)).toEqual(started);
    expect(await call('start')).toMatchObject({
      ok: false,
      error: { code: 'already_running', message: expect.stringContaining(String(port)) },
    });

    const fingerprint = started.ok ? (started.value as { fingerprint: string }).fingerprint : '';
    expect(await call('openAdmin')).toEqual({ ok: true, value: { url: `https://127.0.0.1:${port}/admin` } });
    expect(opened).toEqual([{ url: `https://127.0.0.1:${port}/admin`, fingerprint }]);

    const token = await call('resetAdminToken');
    expect(token).toEqual({ ok: true, value: { adminToken: expect.stringMatching(/^tva_/), createdAt: expect.any(String) } });
    expect(await call('status')).toMatchObject({ ok: true, value: { adminTokenSet: true } });

    expect(await call('stop')).toMatchObject({ ok: true, value: { running: false } });
    expect(await call('stop')).toMatchObject({ ok: true, value: { running: false } });
    expect(await call('openAdmin')).toMatchObject({ ok: false, error: { code: 'not_running' } });
  });

  it('report a port in use with its code', async () => {
    const net = await import('node:net');
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      await call('init', { name: 'Harbour', baseUrl: `https://127.0.0.1:${port}` });
      expect(await call('start')).toEqual({
        ok: false,
        error: { code: 'port_in_use', message: expect.stringMatching(new RegExp(`^port ${port} is already in use`)) },
      });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('say so when the host has no dashboard window', async () => {
    await call('init', { name: 'Harbour', baseUrl: `https://127.0.0.1:${port}` });
    await call('start');
    expect(await handleIssuerCall({ issuer }, 'openAdmin', [])).toMatchObject({
      ok: false,
      error: { code: 'not_running', message: expect.stringMatching(/open it in a browser/) },
    });
  });

  it('turn an unexpected failure into a fixed message; the error goes only to the host log', async () => {
    const logged: Array<[string, unknown]> = [];
    const failing: IssuerHost = {
      issuer: {
        status: () => {
          throw new Error('disk on fire at /secret/path');
        },
      } as unknown as IssuerHost['issuer'],
    };
    const answer = await handleIssuerCall(failing, 'status', [], { onInternalError: (method, error) => logged.push([method, error]) });
    expect(answer).toEqual({ ok: false, error: { code: 'internal_error', message: ISSUER_INTERNAL_ERROR_MESSAGE } });
    expect(JSON.stringify(answer)).not.toContain('/secret/path');
    expect(logged.map(([method]) => method)).toEqual(['status']);
  });

  it('answer a foreign caller with forbidden', () => {
    expect(issuerForbiddenAnswer()).toEqual({
      ok: false,
      error: { code: 'forbidden', message: "Only the kiosk's own page may operate the on-site issuer." },
    });
  });
});
