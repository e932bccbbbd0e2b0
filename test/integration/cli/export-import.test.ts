/**
 * `export` and `import`: moving an issuer to the venue laptop and back
 * (docs/issuer.md "Moving an issuer to the venue and back"). The CLI runs as
 * child processes on real files; the HTTP API runs in this process through
 * app.inject on the same data dirs, as `serve` would, while the CLI imports.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { decodeTicketCode } from '../../../protocol/ticket-code.js';
import type { ExportResult } from '../../../issuer/transfer/export.js';
import { digestOf, type ExportFile } from '../../../issuer/transfer/file.js';
import type { ImportResult } from '../../../issuer/transfer/import.js';
import { build } from '../../../issuer/app.js';
import { generateSigningKey, publicKeyBase64Url } from '../../../issuer/signing.js';
import { captureLog } from '../../support/unit/log-capture.js';
import {
  cliFailure,
  cliJson,
  createEvent,
  initIssuer,
  openDb,
  runCli,
  scratchDir,
  type EventJson,
  issueTickets,
} from '../../support/cli-harness.js';

const MINUTE = 60_000;
/** These tests run many CLI child processes; the default 30 s is tight on a busy 2-core machine. */
const SLOW = 60_000;
const LOOPBACK = 'https://127.0.0.1:8443';

type ImportJson = ImportResult;
type ExportJson = ExportResult;

const apps: FastifyInstance[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The HTTP API on a data dir, as `serve` runs it (without listening). */
async function api(data: string): Promise<FastifyInstance> {
  const app = await build({ dataDir: data, logger: captureLog().logger, enrollRpm: 1000 });
  apps.push(app);
  return app;
}

async function enroll(app: FastifyInstance, setupQr: string): Promise<string> {
  const { token } = decodeSetupCode(setupQr);
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/scanners/enroll',
    payload: { token, scanner_id: randomUUID(), scanner_name: 'Door A' },
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as { api_key: string }).api_key;
}

interface Scan {
  tid: string;
  eid: string;
  scanned_at: string;
  scanner_id: string;
  idempotency_key: string;
  signature_status?: string;
}

const scan = (tid: string, eid: string, minutesAgo: number, extra: Partial<Scan> = {}): Scan => ({
  tid,
  eid,
  scanned_at: new Date(Date.now() - minutesAgo * MINUTE).toISOString(),
  scanner_id: 'door-a',
  idempotency_key: randomUUID(),
  ...extra,
});

async function checkIn(app: FastifyInstance, apiKey: string, body: Scan): Promise<{ status: number; body: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: body,
  });
  return { status: response.statusCode, body: response.body };
}

async function ticketStatus(app: FastifyInstance, apiKey: string, tid: string): Promise<{ status: string; checked_in_at: string | null }> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/tickets/${tid}/status`,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(response.statusCode).toBe(200);
  return response.json();
}

async function exportTo(data: string, extra: string[] = []): Promise<ExportJson> {
  return cliJson<ExportJson>(['export', '--data', data, '--to', path.join(scratchDir('export-'), 'issuer-export.json'), ...extra]);
}

const importFrom = (data: string, file: string): Promise<ImportJson> => cliJson<ImportJson>(['import', '--data', data, '--from', file]);

/** Every row of every table, and the key files: what "changes nothing" compares. */
function snapshot(data: string): string {
  const db = openDb(data);
  const tables = [
    'issuer',
    'signing_keys',
    'events',
    'tickets',
    'checkins',
    'scan_log',
    'enrollment_tokens',
    'api_keys',
    'idempotency',
    'admission_events',
    'offline_policies',
    'scanner_heartbeats',
    'occupancy',
  ];
  const dump = Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()]));
  db.close();
  return JSON.stringify({ dump, keys: fs.readdirSync(path.join(data, 'keys')).sort(), tls: fs.readdirSync(path.join(data, 'tls')).sort() });
}

function rows<T>(data: string, sql: string, ...params: unknown[]): T[] {
  const db = openDb(data);
  const result = db.prepare(sql).all(...params) as T[];
  db.close();
  return result;
}

/** Rewrites an export file as an attacker or a bug might, with a checksum that matches again. */
function rewrite(file: string, change: (document: ExportFile) => void): string {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as ExportFile;
  change(document);
  document.sha256 = digestOf(document);
  const target = path.join(scratchDir('edited-'), 'edited.json');
  fs.writeFileSync(target, JSON.stringify(document));
  return target;
}

describe('export', () => {
  it(
    'writes one versioned file, mode 0600, never over an existing file, and says it is secret without printing key material',
    async () => {
      const office = await initIssuer(LOOPBACK);
      const event = await createEvent(office.data);
      await issueTickets(office.data, event.eid, 3);
      await cliJson(['scanner', 'setup', '--data', office.data, '--event', event.eid]); // makes the self-signed certificate

      const target = path.join(scratchDir('export-'), 'office.json');
      const run = await runCli(['export', '--data', office.data, '--to', target, '--json']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as ExportJson;
      expect(result).toMatchObject({ file: target, secret: true, mode: '0600', eid: null, tls_certificate: true });
      expect(result.warning).toContain('private signing keys');
      expect(result.counts).toMatchObject({ signing_keys: 1, private_keys: 1, events: 1, tickets: 3, enrollment_tokens: 1 });
      expect(fs.statSync(target).mode & 0o777).toBe(0o600);
      expect(run.stderr).toContain('is secret');

      const text = fs.readFileSync(target, 'utf8');
      const document = JSON.parse(text) as ExportFile;
      expect(document).toMatchObject({
        format: 'ticket-issuer-export',
        version: 8,
        scope: { eid: null },
        issuer: { base_url: LOOPBACK, name: 'Test Issuer' },
      });
      expect(document.signing_keys[0]).toMatchObject({
        kid: office.kid,
        active: true,
        private_key_pem: expect.stringContaining('PRIVATE KEY'),
      });
      expect(document.tls?.key_pem).toContain('PRIVATE KEY');
      // Key material is in the file only: never on stdout or stderr.
      for (const printed of [run.stdout, run.stderr]) expect(printed).not.toMatch(/PRIVATE KEY|MC4CAQAw/);

      const again = await runCli(['export', '--data', office.data, '--to', target]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('already exists');
      expect(fs.readFileSync(target, 'utf8')).toBe(text);
      expect((await cliFailure(['export', '--data', office.data, '--to', target])).code).toBe('EXPORT_TARGET_EXISTS');

      const human = await runCli(['export', '--data', office.data, '--to', path.join(scratchDir('export-'), 'human.json')]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain('SECRET');
      expect(human.stdout).toContain('mode 0600');
      expect(`${human.stdout}${human.stderr}`).not.toContain('PRIVATE KEY');
    },
    SLOW,
  );

  it(
    '--event takes one event, its tickets, scanners and audit rows, and every signing key',
    async () => {
      const office = await initIssuer();
      const wanted = await createEvent(office.data);
      const other = await createEvent(office.data);
      await issueTickets(office.data, wanted.eid, 2);
      await issueTickets(office.data, other.eid, 5);
      await cliJson(['scanner', 'setup', '--data', office.data, '--event', other.eid]);
      await cliJson(['key', 'rotate', '--data', office.data]);

      const result = await exportTo(office.data, ['--event', wanted.eid]);
      expect(result.eid).toBe(wanted.eid);
      expect(result.counts).toMatchObject({ events: 1, tickets: 2, enrollment_tokens: 0, signing_keys: 2, private_keys: 2 });
      const document = JSON.parse(fs.readFileSync(result.file, 'utf8')) as ExportFile;
      expect(document.scope).toEqual({ eid: wanted.eid });
      expect(document.tickets.every((t) => t.eid === wanted.eid)).toBe(true);

      expect((await cliFailure(['export', '--data', office.data, '--to', path.join(scratchDir(), 'x.json'), '--event', 'NOPE'])).code).toBe(
        'EVENT_NOT_FOUND',
      );
    },
    SLOW,
  );
});

describe('import: the office → venue → office round trip', () => {
  it(
    'moves the issuer to a fresh venue dir, keeps enrolled kiosks working there, and merges back without losing a check-in',
    async () => {
      // The office: an event, six tickets, a kiosk enrolled over HTTP, one check-in.
      const office = await initIssuer(LOOPBACK);
      const event = await createEvent(office.data);
      const [t0, t1, t2, t3, t4, t5] = (await issueTickets(office.data, event.eid, 6)) as [string, string, string, string, string, string];
      const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', office.data, '--event', event.eid]);
      const officeApi = await api(office.data);
      const kiosk = await enroll(officeApi, setup.setup_qr);
      const firstScan = scan(t0, event.eid, 30);
      const firstAnswer = await checkIn(officeApi, kiosk, firstScan);
      expect(JSON.parse(firstAnswer.body)).toMatchObject({ status: 'valid' });

      // To the venue laptop: a data dir made from the file.
      const toVenue = await exportTo(office.data);
      const venue = path.join(scratchDir('venue-'), 'issuer-data');
      const created = await importFrom(venue, toVenue.file);
      expect(created).toMatchObject({
        issuer: LOOPBACK,
        data: venue,
        created: true,
        active_kid: office.kid,
        retired_kids: [],
        double_admissions: 0,
        warnings: [],
      });
      expect(created.counts.tickets).toEqual({ added: 6, updated: 0, unchanged: 0, conflicts: 0 });
      expect(created.counts.checkins).toEqual({ added: 1, updated: 0, unchanged: 0, conflicts: 0 });
      expect(created.counts.api_keys).toEqual({ added: 1, updated: 0, unchanged: 0, conflicts: 0 });
      expect(created.counts.tls_certificate).toEqual({ added: 1, updated: 0, unchanged: 0, conflicts: 0 });
      expect(fs.statSync(path.join(venue, 'keys', `${office.kid}.key`)).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(venue, 'tls', 'key.pem')).mode & 0o777).toBe(0o600);
      for (const dir of ['', 'keys', 'tls']) expect(fs.statSync(path.join(venue, dir)).mode & 0o777).toBe(0o700);
      // The same certificate, so kiosks that pinned the office's keep connecting.
      expect(fs.readFileSync(path.join(venue, 'tls', 'cert.pem'), 'utf8')).toBe(
        fs.readFileSync(path.join(office.data, 'tls', 'cert.pem'), 'utf8'),
      );

      // At the venue, the kiosk enrolled in the office works with its key as it is.
      const venueApi = await api(venue);
      expect(await ticketStatus(venueApi, kiosk, t0)).toMatchObject({ status: 'checked_in', checked_in_at: firstScan.scanned_at });
      // A retry of the office scan (a kiosk draining its queue) gets the office's answer, byte for byte.
      expect(await checkIn(venueApi, kiosk, firstScan)).toEqual(firstAnswer);
      expect(JSON.parse((await checkIn(venueApi, kiosk, scan(t0, event.eid, 1))).body)).toMatchObject({ status: 'already_used' });
      const venueT1 = scan(t1, event.eid, 20);
      const venueT2 = scan(t2, event.eid, 5);
      for (const body of [venueT1, venueT2])
        expect(JSON.parse((await checkIn(venueApi, kiosk, body)).body)).toMatchObject({ status: 'valid' });
      const forged = await checkIn(venueApi, kiosk, scan(t3, event.eid, 3, { signature_status: 'invalid' }));
      expect(forged.status).toBe(400);
      await cliJson(['ticket', 'revoke', '--data', venue, t4, '--reason', 'refund at the box office']);
      // The venue may issue too (walk-ins), with the key it was given.
      const [walkIn] = (await issueTickets(venue, event.eid, 1)) as [string];

      // Meanwhile the office keeps checking in (t1 later than the venue, t2 earlier) and revokes t5.
      const officeT1 = scan(t1, event.eid, 2);
      const officeT2 = scan(t2, event.eid, 10);
      const officeT3 = scan(t3, event.eid, 1);
      for (const body of [officeT1, officeT2, officeT3])
        expect(JSON.parse((await checkIn(officeApi, kiosk, body)).body)).toMatchObject({ status: 'valid' });
      await cliJson(['ticket', 'revoke', '--data', office.data, t5]);

      // Back to the office, while its API is up.
      const back = await exportTo(venue);
      const merged = await importFrom(office.data, back.file);
      expect(merged).toMatchObject({ created: false, active_kid: office.kid, retired_kids: [], double_admissions: 2, warnings: [] });
      expect(merged.counts.checkins).toEqual({ added: 0, updated: 1, unchanged: 1, conflicts: 2 });
      expect(merged.counts.tickets).toEqual({ added: 1, updated: 1, unchanged: 5, conflicts: 0 });
      expect(merged.counts.scan_log.added).toBeGreaterThan(0);

      // Takes effect on the office API's very next request.
      expect(await ticketStatus(officeApi, kiosk, t1)).toEqual(
        expect.objectContaining({ status: 'checked_in', checked_in_at: venueT1.scanned_at }),
      );
      expect(await ticketStatus(officeApi, kiosk, t2)).toEqual(
        expect.objectContaining({ status: 'checked_in', checked_in_at: officeT2.scanned_at }),
      );
      expect(await ticketStatus(officeApi, kiosk, t4)).toMatchObject({ status: 'revoked' });
      expect(await ticketStatus(officeApi, kiosk, t5)).toMatchObject({ status: 'revoked' });
      expect(await ticketStatus(officeApi, kiosk, walkIn)).toMatchObject({ status: 'valid' });

      // Exactly one check-in (one `valid`) per ticket, the earliest; the later one of each double admission is in the audit log.
      const checkins = rows<{ tid: string; idempotency_key: string }>(
        office.data,
        'SELECT tid, idempotency_key FROM checkins ORDER BY tid',
      );
      expect(checkins).toEqual(
        [
          { tid: t0, idempotency_key: firstScan.idempotency_key },
          { tid: t1, idempotency_key: venueT1.idempotency_key },
          { tid: t2, idempotency_key: officeT2.idempotency_key },
          { tid: t3, idempotency_key: officeT3.idempotency_key },
        ].sort((a, b) => (a.tid < b.tid ? -1 : 1)),
      );
      const conflicts = rows<{ tid: string; idempotency_key: string; scanned_at: string; details: string }>(
        office.data,
        "SELECT tid, idempotency_key, scanned_at, details FROM scan_log WHERE outcome = 'import_conflict' ORDER BY tid",
      );
      expect(conflicts.map(({ tid, idempotency_key }) => ({ tid, idempotency_key }))).toEqual(
        [
          { tid: t1, idempotency_key: officeT1.idempotency_key },
          { tid: t2, idempotency_key: venueT2.idempotency_key },
        ].sort((a, b) => (a.tid < b.tid ? -1 : 1)),
      );
      expect(JSON.parse(conflicts.find((c) => c.tid === t1)!.details)).toMatchObject({
        kept: { idempotency_key: venueT1.idempotency_key },
      });
      // Nothing lost: every admission made on either side is a check-in or a recorded double admission.
      const known = new Set([...checkins, ...conflicts].map((row) => row.idempotency_key));
      for (const body of [firstScan, venueT1, venueT2, officeT1, officeT2, officeT3]) expect(known.has(body.idempotency_key)).toBe(true);

      // The reconciliation export shows the double admissions and the venue's forged-signature report.
      const report = await cliJson<{ outcome: string; tid: string }[]>(['checkins', 'export', '--data', office.data, '--event', event.eid]);
      expect(report.filter((row) => row.outcome === 'import_conflict')).toHaveLength(2);
      expect(report).toContainEqual(expect.objectContaining({ outcome: 'invalid_signature', tid: t3 }));

      // The office's admin dashboard raises both as double admissions, naming the check-in that stands.
      const { admin_token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', office.data]);
      const dashboard = await officeApi.inject({
        url: `/admin/api/events/${event.eid}/overview`,
        headers: { authorization: `Bearer ${admin_token}` },
      });
      expect(dashboard.statusCode).toBe(200);
      const { alerts } = dashboard.json() as {
        alerts: {
          counts: Record<string, number>;
          recent: { kind: string; tid: string; first_check_in: { checked_in_at: string } | null }[];
        };
      };
      expect(alerts.counts.merged_double_admission).toBe(2);
      const merged1 = alerts.recent.find((alert) => alert.kind === 'merged_double_admission' && alert.tid === t1);
      expect(merged1?.first_check_in?.checked_in_at).toBe(venueT1.scanned_at);

      // Importing the same file again changes nothing and finds no new conflict.
      const before = snapshot(office.data);
      const again = await importFrom(office.data, back.file);
      expect(again.double_admissions).toBe(0);
      expect(again.counts.checkins).toEqual({ added: 0, updated: 0, unchanged: 3, conflicts: 0 });
      expect(again.counts.scan_log).toMatchObject({ added: 0, conflicts: 0 });
      expect(snapshot(office.data)).toBe(before);

      // And the way back to the venue: the office's double admissions are not recorded a second time there.
      const toVenueAgain = await exportTo(office.data);
      const venueAgain = await importFrom(venue, toVenueAgain.file);
      expect(venueAgain.double_admissions).toBe(0);
      expect(rows(venue, "SELECT 1 FROM scan_log WHERE outcome = 'import_conflict'")).toHaveLength(2);
      expect(rows(venue, 'SELECT tid, idempotency_key FROM checkins ORDER BY tid')).toEqual(checkins);
    },
    SLOW,
  );
});

describe('import: ticket search', () => {
  it(
    'gives imported tickets their searchable names, which stay in each copy (docs/protocol.md "Ticket search")',
    async () => {
      const office = await initIssuer(LOOPBACK);
      const event = await createEvent(office.data);
      await cliJson(['ticket', 'issue', '--data', office.data, '--event', event.eid, '--holder', 'Zoë Ångström']);
      await issueTickets(office.data, event.eid, 1);
      const venue = path.join(scratchDir('venue-'), 'issuer-data');
      await importFrom(venue, (await exportTo(office.data)).file);
      const names = rows<{ holder_name: string | null; search_name: string | null }>(
        venue,
        'SELECT holder_name, search_name FROM tickets ORDER BY holder_name',
      );
      expect(names).toEqual([
        { holder_name: null, search_name: null },
        { holder_name: 'Zoë Ångström', search_name: 'zoe angstrom' },
      ]);
    },
    SLOW,
  );
});

describe('import: signing keys', () => {
  it(
    'adopts a rotation made on the other side; with rotations on both sides keeps its own key and retires the other',
    async () => {
      const office = await initIssuer();
      const event = await createEvent(office.data);
      const venue = path.join(scratchDir('venue-'), 'issuer-data');
      await importFrom(venue, (await exportTo(office.data)).file);

      // The venue rotates (say, a laptop left unattended) and signs walk-ins with the new key.
      const venueKey = await cliJson<{ kid: string }>(['key', 'rotate', '--data', venue]);
      const [walkIn] = (await issueTickets(venue, event.eid, 1)) as [string];
      const adopted = await importFrom(office.data, (await exportTo(venue)).file);
      expect(adopted.active_kid).toBe(venueKey.kid);
      expect(adopted.retired_kids).toEqual([]);
      expect(adopted.counts.signing_keys).toEqual({ added: 1, updated: 1, unchanged: 0, conflicts: 0 });
      const keys = rows<{ kid: string; active: number; valid_until: string | null }>(
        office.data,
        'SELECT kid, active, valid_until FROM signing_keys ORDER BY valid_from',
      );
      expect(keys).toEqual([
        { kid: office.kid, active: 0, valid_until: expect.any(String) },
        { kid: venueKey.kid, active: 1, valid_until: null },
      ]);
      // The office now signs with the adopted key, whose private half came in the file.
      const [issued] = (await cliJson<{ tickets: { qr: string }[] }>(['ticket', 'issue', '--data', office.data, '--event', event.eid]))
        .tickets as [{ qr: string }];
      expect(decodeTicketCode(issued.qr).payload.kid).toBe(venueKey.kid);
      expect(rows(office.data, 'SELECT 1 FROM tickets WHERE tid = ?', walkIn)).toHaveLength(1);

      // Both sides rotate independently: this side's key stays the signer, the other's is retired at import.
      await importFrom(venue, (await exportTo(office.data)).file);
      const officeNext = await cliJson<{ kid: string }>(['key', 'rotate', '--data', office.data]);
      const venueNext = await cliJson<{ kid: string }>(['key', 'rotate', '--data', venue]);
      const both = await importFrom(office.data, (await exportTo(venue)).file);
      expect(both.active_kid).toBe(officeNext.kid);
      expect(both.retired_kids).toEqual([venueNext.kid]);
      expect(rows(office.data, 'SELECT kid FROM signing_keys WHERE active = 1')).toEqual([{ kid: officeNext.kid }]);
      expect(rows(office.data, 'SELECT 1 FROM signing_keys WHERE valid_until IS NULL')).toHaveLength(1);
    },
    SLOW,
  );
});

describe('import: refusals change nothing', () => {
  async function issuerWithData(): Promise<{ data: string; event: EventJson; file: string }> {
    const office = await initIssuer();
    const event = await createEvent(office.data);
    await issueTickets(office.data, event.eid, 3);
    await cliJson(['scanner', 'setup', '--data', office.data, '--event', event.eid]);
    return { data: office.data, event, file: (await exportTo(office.data)).file };
  }

  it(
    'a truncated, damaged, foreign or newer file is refused with a clear code, and neither an existing nor a new data dir changes',
    async () => {
      const { data, file } = await issuerWithData();
      const text = fs.readFileSync(file, 'utf8');
      const before = snapshot(data);
      const dir = scratchDir('bad-');
      const write = (name: string, content: string): string => {
        fs.writeFileSync(path.join(dir, name), content);
        return path.join(dir, name);
      };
      const cases: [string, string, string][] = [
        [write('truncated.json', text.slice(0, Math.floor(text.length / 2))), 'IMPORT_FILE_INVALID', 'truncated'],
        [write('edited.json', text.replace('"Spring Gala"', '"Spring Gala!"')), 'IMPORT_FILE_INVALID', 'checksum'],
        [write('empty.json', ''), 'IMPORT_FILE_INVALID', 'not complete JSON'],
        [write('other.json', '{"tickets":[]}'), 'IMPORT_FILE_INVALID', 'format'],
        [
          write('deep.json', `{"tickets":${'['.repeat(200_000)}${']'.repeat(200_000)}}`),
          'IMPORT_FILE_INVALID',
          'nested more than 32 levels deep',
        ],
        [write('newer.json', text.replace('"version":8,', '"version":9,')), 'IMPORT_FILE_UNSUPPORTED_VERSION', 'upgrade'],
        [
          rewrite(file, (d) => void (d.tickets[0]!.exp = 'soon' as unknown as number)),
          'IMPORT_FILE_INVALID',
          'tickets[0].exp must be an integer',
        ],
        [rewrite(file, (d) => void ((d.tickets[0] as Record<string, unknown>).extra = 1)), 'IMPORT_FILE_INVALID', 'unknown field "extra"'],
        [rewrite(file, (d) => void (d.tickets[1]!.eid = 'NOT-AN-EVENT')), 'IMPORT_FILE_INVALID', 'not in the file'],
        [rewrite(file, (d) => void (d.signing_keys[0]!.active = false)), 'IMPORT_FILE_INVALID', 'exactly one signing key must be active'],
        [path.join(dir, 'missing.json'), 'INVALID_ARGUMENT', 'ENOENT'],
      ];
      // Independent child processes, run side by side.
      await Promise.all(
        cases.map(async ([bad, code, words]) => {
          const failure = await cliFailure(['import', '--data', data, '--from', bad]);
          expect({ bad, code: failure.code }).toEqual({ bad, code });
          expect(failure.message).toContain(words);
        }),
      );
      expect(snapshot(data)).toBe(before);
      // Into a data dir that does not exist yet: it is not created.
      await Promise.all(
        cases.slice(0, 3).map(async ([bad, code]) => {
          const fresh = path.join(scratchDir('fresh-'), 'issuer-data');
          expect((await cliFailure(['import', '--data', fresh, '--from', bad])).code).toBe(code);
          expect(fs.existsSync(fresh)).toBe(false);
        }),
      );
    },
    SLOW,
  );

  it(
    'labels and sizes obey the rules event create, ticket issue and enrollment apply: an over-long name, a direction override, BEL, NUL or CR LF, too large a capacity, too long a scanner name is refused with the row and field, into a fresh data dir too',
    async () => {
      const { file } = await issuerWithData();
      const cases: [string, string][] = [
        [
          rewrite(file, (d) => void (d.tickets[0]!.holder_name = 'x'.repeat(1_000_000))),
          'tickets[0].holder_name must be null or a label of at most 80',
        ],
        [rewrite(file, (d) => void (d.tickets[1]!.holder_name = 'evil\u202Egnp.exe')), 'tickets[1].holder_name must be null or a label'],
        [rewrite(file, (d) => void (d.tickets[2]!.ticket_type = 'VIP\u0007')), 'tickets[2].ticket_type must be null or a label'],
        [rewrite(file, (d) => void (d.events[0]!.venue = 'Hall\u0000')), 'events[0].venue must be a label: 1-80 printable characters'],
        [rewrite(file, (d) => void (d.events[0]!.name = 'Spring\r\nGala')), 'events[0].name must be a label'],
        // The sizes event create and enrollment take: a capacity up to 10,000,000, a scanner name of 200 characters.
        [
          rewrite(file, (d) => void ((d.events[0] as Record<string, unknown>).capacity = 10_000_001)),
          'events[0].capacity must be null or a whole number from 1 to 10000000',
        ],
        [
          rewrite(file, (d) => {
            (d as unknown as { api_keys: Record<string, unknown>[] }).api_keys.push({
              api_key_id: 'key_imported',
              key_hash: '0'.repeat(64),
              token_id: 'tok_imported',
              scanner_id: 'scn_imported',
              scanner_name: 'x'.repeat(201),
              scanner_platform: null,
              eid: d.events[0]!.eid,
              gate_id: null,
              expires_at: '2026-12-31T00:00:00Z',
              created_at: '2026-12-01T00:00:00Z',
              revoked_at: null,
              role: 'steward',
            });
          }),
          'api_keys[0].scanner_name must be null or a string of at most 200 characters',
        ],
      ];
      await Promise.all(
        cases.map(async ([bad, words]) => {
          const fresh = path.join(scratchDir('fresh-'), 'issuer-data');
          const failure = await cliFailure(['import', '--data', fresh, '--from', bad]);
          expect({ bad, code: failure.code }).toEqual({ bad, code: 'IMPORT_FILE_INVALID' });
          expect(failure.message).toContain(words);
          // The message names the field, never quotes the value.
          expect(failure.message.length).toBeLessThan(2_000);
          expect(fs.existsSync(fresh)).toBe(false);
        }),
      );
    },
    SLOW,
  );

  it(
    'a file that contradicts this issuer rolls back everything, key files included',
    async () => {
      const { data, file } = await issuerWithData();
      const before = snapshot(data);
      // A well-formed file (valid checksum) with a new signing key, a new ticket row… and a ticket that differs from ours.
      const stranger = generateSigningKey();
      const edited = rewrite(file, (d) => {
        d.signing_keys.push({
          kid: stranger.kid,
          public_key: publicKeyBase64Url(stranger),
          valid_from: '2026-01-01T00:00:00Z',
          valid_until: '2026-01-02T00:00:00Z',
          active: false,
          private_key_pem: stranger.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        });
        d.tickets[2]!.holder_name = 'Someone Else';
      });
      const failure = await cliFailure(['import', '--data', data, '--from', edited]);
      expect(failure.code).toBe('IMPORT_CONFLICT');
      expect(failure.message).toContain(`ticket`);
      expect(snapshot(data)).toBe(before);
      expect(fs.existsSync(path.join(data, 'keys', `${stranger.kid}.key`))).toBe(false);
    },
    SLOW,
  );

  it(
    'refuses an export of another issuer: another base URL, or the same base URL with no key in common',
    async () => {
      const { file } = await issuerWithData();
      const other = await initIssuer('https://other.example.com');
      const before = snapshot(other.data);
      const failure = await cliFailure(['import', '--data', other.data, '--from', file]);
      expect(failure.code).toBe('IMPORT_ISSUER_MISMATCH');
      expect(failure.message).toContain('https://tickets.example.com');
      expect(snapshot(other.data)).toBe(before);

      const lookalike = await initIssuer(); // the same base URL, initialised separately
      const second = await cliFailure(['import', '--data', lookalike.data, '--from', file]);
      expect(second.code).toBe('IMPORT_ISSUER_MISMATCH');
      expect(second.message).toContain('shares no signing key');
    },
    SLOW,
  );

  it(
    'refuses a file whose tickets were issued by another issuer than the one it names',
    async () => {
      const { file } = await issuerWithData();
      const other = await initIssuer('https://other.example.com');
      const otherEvent = await createEvent(other.data);
      const [foreignTid] = await issueTickets(other.data, otherEvent.eid, 1);
      const foreign = rows<Record<string, unknown>>(other.data, 'SELECT * FROM tickets WHERE tid = ?', foreignTid)[0]!;
      const edited = rewrite(file, (d) => {
        d.tickets[0]!.qr = foreign.qr as string;
      });
      const failure = await cliFailure(['import', '--data', path.join(scratchDir(), 'issuer-data'), '--from', edited]);
      expect(failure.code).toBe('IMPORT_FILE_INVALID');
      expect(failure.message).toContain('was issued by https://other.example.com');
    },
    SLOW,
  );
});
