/**
 * The issuer under a hostile LAN: bodies built to break it, labels built to
 * fool people, CSV cells built to run in a spreadsheet, names in URLs, a
 * shared address at the admin sign-in, and a reverse proxy's addresses
 * (docs/issuer.md "Threats handled"). Real app via `app.inject`, real SQLite.
 */
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLabel } from '../../../issuer/admin/validators.js';
import { parseCsv } from '../../../issuer/csv.js';
import { parseTrustedProxies } from '../../../issuer/cli/serve-command.js';
import { ticketSpecsFromCsv } from '../../../issuer/admin/ticket-csv.js';
import { build } from '../../../issuer/app.js';
import { resetAdminToken } from '../../../issuer/services/admin-credential.js';
import { exportCsv, exportRows } from '../../../issuer/services/checkins-export.js';
import { createIssuerFixture, type EnrolledScanner, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog, type CapturedLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture;
let app: FastifyInstance;
let log: CapturedLog;
let scanner: EnrolledScanner;

beforeAll(async () => {
  fx = createIssuerFixture();
  log = captureLog();
  app = await build({ dataDir: fx.dataDir.root, logger: log.logger });
  scanner = fx.enrollScanner(fx.createEvent().eid);
});

afterAll(async () => {
  await app.close();
  fx.cleanup();
});

const auth = () => ({ authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' });

describe('bodies built to break the issuer', () => {
  it.each([
    ['an array 5,000 levels deep in an extra field (10 KB)', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['an object 2,500 levels deep in an extra field (12 KB)', `{"x":${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}}`],
  ])('a check-in body nested as %s: 400 INVALID_REQUEST, not 500', async (_label, nested) => {
    const ticket = fx.issueTicket(scanner.eid);
    const body = `{"tid":"${ticket.tid}","eid":"${scanner.eid}","scanned_at":"${new Date().toISOString()}","scanner_id":"${scanner.scannerId}","idempotency_key":"${randomUUID()}","extra":${nested}}`;
    const response = await app.inject({ method: 'POST', url: '/api/v1/tickets/check-in', headers: auth(), payload: body });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/nested/) });
    // Nothing was checked in.
    expect((await app.inject({ method: 'GET', url: `/api/v1/tickets/${ticket.tid}/status`, headers: auth() })).json()).toMatchObject({
      status: 'valid',
    });
  });

  it('an enroll body nested deep: 400 INVALID_REQUEST', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      headers: { 'content-type': 'application/json' },
      payload: `{"token":${'['.repeat(3000)}${']'.repeat(3000)}}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('INVALID_REQUEST');
  });
});

describe('labels that would fool people or spreadsheets', () => {
  const BAD = [
    ['a NUL', 'Ada\u0000Lovelace', 'U+0000'],
    ['a carriage return', 'Ada\rLovelace', 'U+000D'],
    ['a right-to-left override', 'Ada \u202Egpj.exe', 'U+202E'],
    ['a first-strong isolate', 'Gate \u2068B', 'U+2068'],
    ['a C1 control', 'Ada\u0085', 'U+0085'],
  ] as const;
  const GOOD = ['Zoë Ñúñez', '田中 太郎', 'Ελένη', 'Олег', 'VIP 🎟️', 'Family 👩‍👩‍👧', 'O\u2019Brien'];

  it.each(BAD)('the CLI refuses a label with %s, naming the character', (_label, value, codePoint) => {
    expect(() => parseLabel(value, '--holder')).toThrowError(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(codePoint) }),
    );
  });

  it.each(BAD)('CSV import refuses a row with %s, with its line', (_label, value, codePoint) => {
    const csv = `holder_name,ticket_type\nGood Name,VIP\n"${value}",General\n`;
    expect(() => ticketSpecsFromCsv(csv, 2_000_000_000, 'tickets.csv')).toThrowError(
      expect.objectContaining({
        message: expect.stringMatching(new RegExp(`line 3.*holder_name contains .*${codePoint.replace('+', '\\+')}`, 's')),
      }),
    );
  });

  it('ordinary Unicode stays welcome: accents, Greek, Cyrillic, CJK, emoji with joiners', () => {
    for (const value of GOOD) expect(parseLabel(value, '--holder')).toBe(value);
    const specs = ticketSpecsFromCsv(
      `holder_name,ticket_type\n${GOOD.map((name) => `${name},General`).join('\n')}\n`,
      2_000_000_000,
      'tickets.csv',
    );
    expect(specs.map((spec) => spec.holderName)).toEqual(GOOD);
  });

  it('the dashboard refuses a gate or a revocation reason with control or direction characters', async () => {
    const adminAuth = { authorization: `Bearer ${(await resetAdminToken(fx.sql, new Date())).token}` };
    const gate = await app.inject({
      method: 'POST',
      url: `/admin/api/events/${scanner.eid}/setup-codes`,
      headers: adminAuth,
      payload: { gate_id: 'North \u202Eetag' },
    });
    expect(gate.statusCode).toBe(400);
    expect(gate.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'gate_id' },
      message: expect.stringContaining('U+202E'),
    });
    const ticket = fx.issueTicket(scanner.eid);
    const revoke = await app.inject({
      method: 'POST',
      url: `/admin/api/tickets/${ticket.tid}/revoke`,
      headers: adminAuth,
      payload: { reason: 'refund\u0000' },
    });
    expect(revoke.statusCode).toBe(400);
    expect(revoke.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'reason' } });
    // Nothing happened.
    expect((await app.inject({ method: 'GET', url: `/api/v1/tickets/${ticket.tid}/status`, headers: auth() })).json()).toMatchObject({
      status: 'valid',
    });
    const ok = await app.inject({
      method: 'POST',
      url: `/admin/api/events/${scanner.eid}/setup-codes`,
      headers: adminAuth,
      payload: { gate_id: 'Nord — Süd 北' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('CSV export: cells a spreadsheet would run as formulas are shown as text (OWASP), from the CLI and the dashboard', async () => {
    const names = ['=HYPERLINK("http://evil.example","Click")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', 'Plain Name'];
    for (const holderName of names) {
      const ticket = fx.issueTicket(scanner.eid, { holderName });
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/tickets/check-in',
        headers: auth(),
        payload: {
          tid: ticket.tid,
          eid: scanner.eid,
          scanned_at: new Date().toISOString(),
          scanner_id: scanner.scannerId,
          idempotency_key: randomUUID(),
        },
      });
      expect(response.statusCode).toBe(200);
    }
    const csv = exportCsv(await exportRows(fx.sql, scanner.eid));
    const adminAuth = { authorization: `Bearer ${(await resetAdminToken(fx.sql, new Date())).token}` };
    expect((await app.inject({ url: `/admin/api/events/${scanner.eid}/checkins.csv`, headers: adminAuth })).body).toBe(csv);
    const holderCells = parseCsv(csv)
      .slice(1)
      .map((record) => record.fields[5]);
    expect(holderCells).toEqual(
      expect.arrayContaining(['\'=HYPERLINK("http://evil.example","Click")', "'+1+1", "'-2+3", "'@SUM(A1)", "'\t=1", 'Plain Name']),
    );
    for (const cell of holderCells) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});

describe('logs', () => {
  it('a ticket search by holder name leaves no name in any log line', async () => {
    const adminAuth = { authorization: `Bearer ${(await resetAdminToken(fx.sql, new Date())).token}` };
    fx.issueTicket(scanner.eid, { holderName: 'Philippa Searchable' });
    const response = await app.inject({
      url: `/admin/api/events/${scanner.eid}/tickets?q=${encodeURIComponent('Philippa Searchable')}`,
      headers: adminAuth,
    });
    expect(response.statusCode).toBe(200);
    expect(JSON.stringify(response.json())).toContain('Philippa Searchable');
    expect(log.text()).not.toMatch(/Philippa|Searchable/);
    expect(log.text()).toContain(`/admin/api/events/${scanner.eid}/tickets?…`);
  });
});

describe('behind a reverse proxy (serve --trust-proxy)', () => {
  const enroll = (target: FastifyInstance, remoteAddress: string, forwardedFor?: string) =>
    target.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      remoteAddress,
      headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      payload: { token: 'not-a-real-token', scanner_id: 'door' },
    });

  it('with the proxy trusted, the per-address enrollment limit counts each real client', async () => {
    const proxied = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger, trustProxy: ['10.0.0.0/8'], enrollRpm: 3 });
    try {
      for (let i = 0; i < 3; i++) expect((await enroll(proxied, '10.1.2.3', '203.0.113.5')).statusCode).not.toBe(429);
      expect((await enroll(proxied, '10.1.2.3', '203.0.113.5')).statusCode).toBe(429);
      // Another client behind the same proxy is its own address.
      expect((await enroll(proxied, '10.1.2.3', '203.0.113.6')).statusCode).not.toBe(429);
      // A client that is not the proxy cannot pick its address with the header.
      for (let i = 0; i < 3; i++) expect((await enroll(proxied, '198.51.100.7', `198.51.100.${100 + i}`)).statusCode).not.toBe(429);
      expect((await enroll(proxied, '198.51.100.7', '198.51.100.200')).statusCode).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it('without --trust-proxy, X-Forwarded-For is ignored', async () => {
    const direct = await build({ dataDir: fx.dataDir.root, logger: captureLog().logger, enrollRpm: 2 });
    try {
      expect((await enroll(direct, '10.9.9.9', '203.0.113.1')).statusCode).not.toBe(429);
      expect((await enroll(direct, '10.9.9.9', '203.0.113.2')).statusCode).not.toBe(429);
      expect((await enroll(direct, '10.9.9.9', '203.0.113.3')).statusCode).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it('the CLI takes addresses and CIDR ranges, and names a wrong one', () => {
    expect(parseTrustedProxies('10.0.0.0/8, 192.168.1.5,::1,fd00::/8')).toEqual(['10.0.0.0/8', '192.168.1.5', '::1', 'fd00::/8']);
    for (const bad of ['10.0.0.0/33', 'proxy.local', '300.1.1.1', '10.0.0.0/8/1', ' , ']) {
      expect(() => parseTrustedProxies(bad)).toThrowError(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('--trust-proxy') }),
      );
    }
  });
});
