/**
 * `export` and `import` between SQLite and PostgreSQL, both ways (docs/issuer.md
 * "Moving an issuer to the venue and back", "Where the database is"), all real:
 * a throwaway cluster, the built CLI, `serve` child processes on loopback.
 * Nothing may be lost on the way: every row of every table that travels comes
 * out of the other database equal, column by column, and a merge back finds
 * the same double admissions as between two SQLite issuers
 * (test/integration/cli/export-import.test.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportResult } from '../../../issuer/transfer/export.js';
import { digestOf, type ExportFile } from '../../../issuer/transfer/file.js';
import type { ImportResult } from '../../../issuer/transfer/import.js';
import { LOG_IDENTITY_COLUMNS, TRANSFER_COLUMNS, TRANSFER_TABLES, type TransferTable } from '../../../issuer/transfer/store.js';
import { chainFields, chainHash, GENESIS_HASH, SCAN_LOG_CHAIN_FIELDS } from '../../../protocol/audit-chain.js';
import {
  cliFailure,
  cliJson,
  createEvent,
  initIssuer,
  LOOPBACK_SERVE,
  scratchDir,
  serveCli,
  setTicketType,
  type ServingCli,
  issueTickets,
} from '../../support/cli-harness.js';
import { enroll, giveHandout, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';

const MINUTE = 60_000;
/** Many CLI child processes per test. */
const SLOW = 120_000;
const BASE_URL = 'http://127.0.0.1:8080';

let cluster: PostgresCluster;
let databases = 0;

beforeAll(async () => {
  cluster = await startPostgresCluster({ database: 'transfer' });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
}, 60_000);

/** BIGINT (tickets.exp) as a number, as the issuer's own pool reads it. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? Number : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, types });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database in the cluster: one per issuer, as `init --database` wants. */
async function newDatabase(): Promise<string> {
  const name = `issuer_${++databases}`;
  await withClient(cluster.url, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

const TABLES = ['issuer', ...TRANSFER_TABLES] as const;
type Table = (typeof TABLES)[number];
const COLUMNS: Record<Table, readonly string[]> = { issuer: ['singleton', 'base_url', 'name', 'created_at'], ...TRANSFER_COLUMNS };

type Rows = Record<Table, Record<string, unknown>[]>;

/** Every row of every table (without rowid or scan_log's id), sorted: a row set, compared column by column. */
const sorted = (rows: Record<string, unknown>[]): Record<string, unknown>[] =>
  rows
    .map((row) => ({ row, key: JSON.stringify(row) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ row }) => row);

function sqliteRows(data: string): Rows {
  const db = new Database(path.join(data, 'issuer.db'), { readonly: true });
  try {
    return Object.fromEntries(
      TABLES.map((table) => [
        table,
        sorted(db.prepare(`SELECT ${COLUMNS[table].join(', ')} FROM ${table}`).all() as Record<string, unknown>[]),
      ]),
    ) as Rows;
  } finally {
    db.close();
  }
}

async function postgresRows(url: string): Promise<Rows> {
  return withClient(url, async (client) => {
    const out: Partial<Rows> = {};
    for (const table of TABLES) out[table] = sorted((await client.query(`SELECT ${COLUMNS[table].join(', ')} FROM ${table}`)).rows);
    return out as Rows;
  });
}

async function exportTo(data: string, extra: string[] = []): Promise<ExportResult> {
  return cliJson<ExportResult>(['export', '--data', data, '--to', path.join(scratchDir('export-'), 'issuer-export.json'), ...extra]);
}

const importFrom = (data: string, file: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ImportResult> =>
  cliJson<ImportResult>(['import', '--data', data, '--from', file, ...extra], env);

const readExport = (file: string): ExportFile => JSON.parse(fs.readFileSync(file, 'utf8')) as ExportFile;

/** The file without the moment it was written (and the checksum over it). */
function content(file: string): Omit<ExportFile, 'exported_at' | 'sha256'> {
  const { exported_at: _at, sha256: _sum, ...rest } = readExport(file);
  return rest;
}

const scan = (scanner: HttpScanner, tid: string, eid: string, minutesAgo: number, extra: Record<string, unknown> = {}) => ({
  tid,
  eid,
  scanned_at: new Date(Date.now() - minutesAgo * MINUTE).toISOString(),
  scanner_id: scanner.scannerId,
  idempotency_key: crypto.randomUUID(),
  ...extra,
});

async function admitted(url: string, scanner: HttpScanner, body: Record<string, unknown>): Promise<string> {
  const answer = await postCheckIn(url, scanner, body);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as { status: string }).status;
}

async function stop(server: ServingCli): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

describe('SQLite → PostgreSQL → SQLite', () => {
  it(
    'carries every row of every table both ways, column by column, and the exports agree',
    async () => {
      // An issuer on SQLite with something in every table.
      const office = await initIssuer(BASE_URL);
      const gala = await createEvent(office.data);
      const fair = await createEvent(office.data);
      const galaTickets = await issueTickets(office.data, gala.eid, 6, ['--holder', 'Zoë Ångström', '--type', 'VIP']);
      const fairTickets = await issueTickets(office.data, fair.eid, 3);
      await cliJson(['ticket', 'revoke', '--data', office.data, galaTickets[5]!, '--reason', 'refund at the box office']);
      await cliJson(['ticket', 'revoke', '--data', office.data, fairTickets[2]!]);
      await cliJson(['key', 'rotate', '--data', office.data]);
      const unused = await cliJson<{ token_id: string }>(['scanner', 'setup', '--data', office.data, '--event', fair.eid]);
      await cliJson(['scanner', 'revoke-setup', '--data', office.data, unused.token_id]);
      // Door settings (docs/protocol.md "Door operations"): a capacity, offline policies.
      await cliJson(['event', 'update', '--data', office.data, gala.eid, '--entry', 'reentry', '--capacity', '500']);
      await cliJson(['event', 'offline-policy', '--data', office.data, '--event', gala.eid, '--type', 'VIP', '20']);
      // Check-in rules (docs/protocol.md "Check-in rules"), which travel since export format 4, as the LAN keys the enrollments below make.
      const rules = path.join(office.data, '..', 'rules.json');
      fs.writeFileSync(
        rules,
        JSON.stringify({ version: 1, time_zone: 'UTC', rules: [{ name: 'VIP door', gates: ['VIP'], only_ticket_types: ['VIP'] }] }),
      );
      await cliJson(['event', 'rules', 'set', '--data', office.data, '--event', gala.eid, '--file', rules]);
      // Staff badges (docs/issuer.md "Staff roles and badges"), which travel since export format 5: one kept, one revoked.
      const badge = (name: string) =>
        cliJson<{ sid: string }>([
          'staff',
          'badge',
          'issue',
          '--data',
          office.data,
          '--event',
          gala.eid,
          '--name',
          name,
          '--role',
          'supervisor',
        ]);
      await badge('Kim');
      await cliJson(['staff', 'badge', 'revoke', '--data', office.data, (await badge('Lee')).sid, '--reason', 'left']);
      // Check-out at a set time (format version 8: docs/protocol.md "Check-out at a set time"), years ahead: it never passes here.
      await cliJson(['event', 'set', '--data', office.data, '--event', gala.eid, '--exit-all-at', '2036-07-12T04:00:00Z']);

      const server = await serveCli(['--data', office.data, ...LOOPBACK_SERVE, '--enroll-rpm', '1000']);
      const door = await enroll(server.url, office.data, gala.eid);
      const fairDoor = await enroll(server.url, office.data, fair.eid);
      expect(await admitted(server.url, door, scan(door, galaTickets[0]!, gala.eid, 30))).toBe('valid');
      expect(await admitted(server.url, door, scan(door, galaTickets[1]!, gala.eid, 20))).toBe('valid');
      expect(await admitted(server.url, door, scan(door, galaTickets[0]!, gala.eid, 10))).toBe('already_used');
      expect(await admitted(server.url, door, scan(door, galaTickets[5]!, gala.eid, 5))).toBe('revoked');
      expect(await admitted(server.url, fairDoor, scan(fairDoor, fairTickets[0]!, fair.eid, 3))).toBe('valid');
      expect(await admitted(server.url, door, scan(door, galaTickets[1]!, gala.eid, 2, { action: 'exit' }))).toBe('exited');
      // Party tickets and handouts (format version 7: docs/protocol.md "Party tickets (project extension)", "Handouts
      // (project extension)"): a type's items, a ticket's own, a party's people in and out, a handout station's key.
      await setTicketType(office.data, gala.eid, 'VIP', ['--handout', '2 drink voucher']);
      const [family] = (await issueTickets(office.data, gala.eid, 1, ['--type', 'VIP', '--party', '5', '--handout', 'T-shirt M'])) as [
        string,
      ];
      expect(await admitted(server.url, door, scan(door, family, gala.eid, 4, { people: 3 }))).toBe('valid');
      expect(await admitted(server.url, door, scan(door, family, gala.eid, 3, { action: 'exit', people: 2 }))).toBe('exited');
      const station = await enroll(server.url, office.data, gala.eid, {}, ['--role', 'handout']);
      expect(await giveHandout(server.url, station, { tid: family, eid: gala.eid, item: 'T-shirt M' })).toMatchObject({ status: 'given' });
      expect(await giveHandout(server.url, station, { tid: family, eid: gala.eid, item: 'T-shirt M' })).toMatchObject({
        reason: 'already_given',
      });
      const beat = await fetch(`${server.url}/api/v1/scanners/heartbeat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${door.apiKey}` },
        body: JSON.stringify({
          scanner_id: door.scannerId,
          pending_scans: 3,
          offline_exposure: { VIP: 2 },
          log_head: { position: 4, hash: chainHash(GENESIS_HASH, [4]) },
          // A staff record (format version 8: docs/protocol.md "Scanner heartbeat"), with the texts a kiosk may send.
          staff_actions: [
            {
              position: 3,
              hash: chainHash(GENESIS_HASH, [3]),
              at: new Date().toISOString(),
              event: 'attention_override',
              staff_id: 'kim.s',
              name: 'Zoë Ångström',
              role: 'supervisor',
              via: 'badge',
              tid: family,
            },
          ],
        }),
      });
      expect(beat.status).toBe(200);
      expect((await postCheckIn(server.url, door, scan(door, galaTickets[2]!, gala.eid, 2, { signature_status: 'invalid' }))).status).toBe(
        400,
      );
      await stop(server);
      await cliJson(['scanner', 'revoke', '--data', office.data, (await keyIds(office.data, fair.eid))[0]!]);
      // An ID check and a date of birth (format version 6: docs/protocol.md "ID checks (project extension)").
      await cliJson([
        'event',
        'ticket-type',
        'set',
        '--data',
        office.data,
        '--event',
        fair.eid,
        '--type',
        'Standard',
        '--id-check',
        'age:18',
      ]);
      // Attention flags and notes (format version 7: docs/protocol.md "Attention notes (project extension)"): a type's, a ticket's.
      await setTicketType(office.data, gala.eid, 'VIP', ['--attention', '--note', 'Blue wristband, quote \' and "double"']);
      await cliJson(['ticket', 'update', '--data', office.data, family, '--attention', '--note', 'Wheelchair: side gate 🎟']);
      // What the CLI cannot make: a setup token with failed attempts, an audit row with odd text and NULLs.
      const db = new Database(path.join(office.data, 'issuer.db'));
      db.prepare("UPDATE tickets SET dob = '1990-12-10' WHERE tid = (SELECT MIN(tid) FROM tickets)").run();
      db.prepare('UPDATE enrollment_tokens SET failed_attempts = 2 WHERE token_id = ?').run(unused.token_id);
      // Chained as appendChained does (docs/issuer.md "Audit: tamper-evident logs"), so the chain stays valid.
      const odd = {
        at: new Date().toISOString(),
        outcome: 'invalid_request',
        details: JSON.stringify({ note: 'quote \' and "double", tab\t, emoji 🎟' }),
      };
      const head = db.prepare('SELECT position, hash FROM scan_log_head').get() as { position: number; hash: string };
      const hash = chainHash(head.hash, chainFields({ ...odd, position: head.position + 1 }, SCAN_LOG_CHAIN_FIELDS));
      db.prepare(
        "INSERT INTO scan_log (at, scanned_at, tid, eid, scanner_id, api_key_id, gate_id, idempotency_key, outcome, details, position, prev_hash, hash) VALUES (?, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'invalid_request', ?, ?, ?, ?)",
      ).run(odd.at, odd.details, head.position + 1, head.hash, hash);
      db.prepare('UPDATE scan_log_head SET position = ?, hash = ?').run(head.position + 1, hash);
      db.close();

      const original = sqliteRows(office.data);
      // Enrollments no longer make an event LAN key (docs/protocol.md "LAN certificate (project extension of enrollment)"):
      // that table is filled only by older copies.
      for (const table of TABLES)
        if (table !== 'event_lan_keys') expect({ table, rows: original[table].length > 0 }).toEqual({ table, rows: true });
      expect(original.signing_keys).toHaveLength(2);
      expect(original.idempotency.length).toBeGreaterThanOrEqual(4);

      // To PostgreSQL: a new data dir whose tables go to an empty database.
      const fromSqlite = await exportTo(office.data);
      const url = await newDatabase();
      const pgData = path.join(scratchDir('pg-'), 'issuer-data');
      const created = await importFrom(pgData, fromSqlite.file, ['--database', url]);
      expect(created).toMatchObject({ created: true, double_admissions: 0, warnings: [] });
      expect(JSON.parse(fs.readFileSync(path.join(pgData, 'database.json'), 'utf8'))).toEqual({ postgres: url });
      expect(fs.existsSync(path.join(pgData, 'issuer.db'))).toBe(false);
      for (const table of TRANSFER_TABLES) expect(created.counts[table].added).toBe(original[table].length);
      expect(await postgresRows(url)).toEqual(original);
      // The arrived note is on PostgreSQL's notes list: it took a number of that copy's note sequence.
      const listed = await withClient(url, (client) => client.query('SELECT note_seq FROM tickets WHERE tid = $1', [family]));
      expect(listed.rows[0].note_seq).not.toBeNull();

      // Back to SQLite: a new data dir made from PostgreSQL's export.
      const fromPostgres = await exportTo(pgData);
      expect(fromPostgres.counts).toEqual(fromSqlite.counts);
      const sqliteAgain = path.join(scratchDir('sqlite-'), 'issuer-data');
      await importFrom(sqliteAgain, fromPostgres.file);
      expect(sqliteRows(sqliteAgain)).toEqual(original);

      // The two exports are the same file but for its time and checksum: every table in insertion order on both.
      const [a, b] = [content(fromSqlite.file), content(fromPostgres.file)];
      for (const table of TRANSFER_TABLES) expect(b[table], table).toEqual(a[table]);
      expect({ ...b, ...emptyTables() }).toEqual({ ...a, ...emptyTables() });
      // Deterministic on both databases: the same data exports to the same file, once the round trip has settled the order.
      expect(content((await exportTo(pgData)).file)).toEqual(b);
      expect(content((await exportTo(sqliteAgain)).file)).toEqual(b);
      // One event only, from PostgreSQL.
      const oneEvent = await exportTo(pgData, ['--event', fair.eid]);
      expect(oneEvent.counts).toMatchObject({
        events: 1,
        tickets: 3,
        checkins: 1,
        signing_keys: 2,
        private_keys: 2,
        admission_events: 1,
        offline_policies: 0,
        scanner_heartbeats: 0,
      });
      expect(content(oneEvent.file).tickets).toEqual(a.tickets.filter((ticket) => ticket.eid === fair.eid));
    },
    SLOW,
  );

  it(
    'refuses a new data dir on a database that already holds an issuer, and a failed import leaves PostgreSQL unchanged',
    async () => {
      const office = await initIssuer(BASE_URL);
      const event = await createEvent(office.data);
      await issueTickets(office.data, event.eid, 3);
      const file = (await exportTo(office.data)).file;
      const url = await newDatabase();
      const pgData = path.join(scratchDir('pg-'), 'issuer-data');
      // Through the environment this time, as every command takes it; recorded in database.json all the same.
      await importFrom(pgData, file, [], { TICKET_ISSUER_DATABASE_URL: url });
      expect(JSON.parse(fs.readFileSync(path.join(pgData, 'database.json'), 'utf8'))).toEqual({ postgres: url });

      const other = path.join(scratchDir('pg-'), 'issuer-data');
      const taken = await cliFailure(['import', '--data', other, '--from', file, '--database', url]);
      expect(taken.code).toBe('ALREADY_INITIALISED');
      expect(fs.existsSync(other)).toBe(false);
      expect((await cliFailure(['import', '--data', pgData, '--from', file, '--database', url])).code).toBe('INVALID_ARGUMENT');

      const before = await postgresRows(url);
      const document = readExport(file);
      document.tickets[1]!.holder_name = 'Someone Else';
      document.events[0]!.name = 'Renamed';
      document.sha256 = digestOf(document);
      const edited = path.join(scratchDir('edited-'), 'edited.json');
      fs.writeFileSync(edited, JSON.stringify(document));
      const failure = await cliFailure(['import', '--data', pgData, '--from', edited]);
      expect(failure.code).toBe('IMPORT_CONFLICT');
      expect(await postgresRows(url)).toEqual(before);
    },
    SLOW,
  );
});

describe('the venue on PostgreSQL and back', () => {
  it(
    'a kiosk enrolled at the office works at a PostgreSQL venue; both ways back merge without losing a check-in',
    async () => {
      // The office (SQLite): an event, six tickets, a kiosk enrolled over HTTP, one check-in.
      const office = await initIssuer(BASE_URL);
      const event = await createEvent(office.data);
      const [t0, t1, t2, t3, t4, t5] = (await issueTickets(office.data, event.eid, 6)) as [string, string, string, string, string, string];
      const officeServer = await serveCli(['--data', office.data, ...LOOPBACK_SERVE, '--enroll-rpm', '1000']);
      const kiosk = await enroll(officeServer.url, office.data, event.eid);
      const firstScan = scan(kiosk, t0, event.eid, 30);
      const firstAnswer = await postCheckIn(officeServer.url, kiosk, firstScan);
      expect(JSON.parse(firstAnswer.text)).toMatchObject({ status: 'valid' });

      // The venue laptop's issuer on PostgreSQL, made from the office's file.
      const url = await newDatabase();
      const venue = path.join(scratchDir('venue-'), 'issuer-data');
      const created = await importFrom(venue, (await exportTo(office.data)).file, ['--database', url]);
      expect(created).toMatchObject({ created: true, active_kid: office.kid, retired_kids: [], double_admissions: 0, warnings: [] });
      expect(created.counts.checkins).toEqual({ added: 1, updated: 0, unchanged: 0, conflicts: 0 });

      // serve on the PostgreSQL data dir: the office's kiosk key works, the office's check-in counts.
      const venueServer = await serveCli(['--data', venue, ...LOOPBACK_SERVE, '--enroll-rpm', '1000']);
      expect(await admitted(venueServer.url, kiosk, scan(kiosk, t0, event.eid, 1))).toBe('already_used');
      const retry = await postCheckIn(venueServer.url, kiosk, firstScan);
      expect({ status: retry.status, text: retry.text }).toEqual({ status: firstAnswer.status, text: firstAnswer.text });
      const venueT1 = scan(kiosk, t1, event.eid, 20);
      const venueT2 = scan(kiosk, t2, event.eid, 5);
      for (const body of [venueT1, venueT2]) expect(await admitted(venueServer.url, kiosk, body)).toBe('valid');
      expect((await postCheckIn(venueServer.url, kiosk, scan(kiosk, t3, event.eid, 3, { signature_status: 'invalid' }))).status).toBe(400);
      await cliJson(['ticket', 'revoke', '--data', venue, t4, '--reason', 'refund at the box office']);
      const [walkIn] = (await issueTickets(venue, event.eid, 1)) as [string];

      // Meanwhile the office checks in t1 later than the venue, t2 earlier, and t3; it revokes t5.
      const officeT1 = scan(kiosk, t1, event.eid, 2);
      const officeT2 = scan(kiosk, t2, event.eid, 10);
      const officeT3 = scan(kiosk, t3, event.eid, 1);
      for (const body of [officeT1, officeT2, officeT3]) expect(await admitted(officeServer.url, kiosk, body)).toBe('valid');
      await cliJson(['ticket', 'revoke', '--data', office.data, t5]);

      // PostgreSQL → the ORIGINAL SQLite issuer, while both serve: the same counts as between two SQLite issuers.
      const back = await exportTo(venue);
      const merged = await importFrom(office.data, back.file);
      expect(merged).toMatchObject({ created: false, active_kid: office.kid, retired_kids: [], double_admissions: 2, warnings: [] });
      expect(merged.counts.checkins).toEqual({ added: 0, updated: 1, unchanged: 1, conflicts: 2 });
      expect(merged.counts.tickets).toEqual({ added: 1, updated: 1, unchanged: 5, conflicts: 0 });
      expect(merged.counts.scan_log.added).toBeGreaterThan(0);
      const officeRows = sqliteRows(office.data);
      const checkins = officeRows.checkins.map((row) => ({ tid: row.tid, idempotency_key: row.idempotency_key }));
      expect(checkins).toEqual(
        sorted([
          { tid: t0, idempotency_key: firstScan.idempotency_key },
          { tid: t1, idempotency_key: venueT1.idempotency_key },
          { tid: t2, idempotency_key: officeT2.idempotency_key },
          { tid: t3, idempotency_key: officeT3.idempotency_key },
        ]),
      );
      const conflicts = officeRows.scan_log.filter((row) => row.outcome === 'import_conflict');
      expect(sorted(conflicts.map((row) => ({ tid: row.tid, idempotency_key: row.idempotency_key })))).toEqual(
        sorted([
          { tid: t1, idempotency_key: officeT1.idempotency_key },
          { tid: t2, idempotency_key: venueT2.idempotency_key },
        ]),
      );
      expect(JSON.parse(conflicts.find((row) => row.tid === t1)!.details as string)).toMatchObject({
        kept: { idempotency_key: venueT1.idempotency_key },
      });
      // Importing the same file again changes nothing.
      const again = await importFrom(office.data, back.file);
      expect(again.double_admissions).toBe(0);
      expect(again.counts.checkins).toEqual({ added: 0, updated: 0, unchanged: 3, conflicts: 0 });
      expect(sqliteRows(office.data)).toEqual(officeRows);
      // The office's serve sees the merge on its next request: the venue's revocation, the venue's walk-in.
      expect(await admitted(officeServer.url, kiosk, scan(kiosk, t4, event.eid, 0))).toBe('revoked');
      expect(await admitted(officeServer.url, kiosk, scan(kiosk, walkIn, event.eid, 0))).toBe('valid');

      // And the office's file merged into the PostgreSQL venue while its serve runs: the same rows on both sides,
      // the double admissions not recorded a second time.
      await stop(officeServer);
      const toVenue = await importFrom(venue, (await exportTo(office.data)).file);
      expect(toVenue).toMatchObject({ created: false, double_admissions: 0 });
      const [venueRows, officeNow] = [await postgresRows(url), sqliteRows(office.data)];
      // scan_log: the same rows, each at its place in its own copy's chain (a row the other side added is re-chained
      // there, docs/issuer.md "Audit: tamper-evident logs"); both chains verify.
      const content = (rows: Record<string, unknown>[]) =>
        sorted(rows.map((row) => Object.fromEntries(LOG_IDENTITY_COLUMNS.scan_log.map((column) => [column, row[column]]))));
      for (const table of TABLES) {
        if (table === 'scan_log') expect(content(venueRows.scan_log)).toEqual(content(officeNow.scan_log));
        else expect({ table, rows: venueRows[table] }).toEqual({ table, rows: officeNow[table] });
      }
      for (const data of [venue, office.data]) expect(await cliJson(['audit', 'verify', '--data', data])).toMatchObject({ ok: true });
      expect(venueRows.scan_log.filter((row) => row.outcome === 'import_conflict')).toHaveLength(2);
      // The merged check-ins answer at the venue too.
      expect(await admitted(venueServer.url, kiosk, scan(kiosk, t3, event.eid, 0))).toBe('already_used');
      expect(await admitted(venueServer.url, kiosk, scan(kiosk, t5, event.eid, 0))).toBe('revoked');
      await stop(venueServer);
    },
    SLOW,
  );
});

/** The API key IDs enrolled for one event (the CLI's list). */
async function keyIds(data: string, eid: string): Promise<string[]> {
  const { scanners } = await cliJson<{ scanners: { api_key_id: string }[] }>(['scanner', 'list', '--data', data, '--event', eid]);
  return scanners.map((scanner) => scanner.api_key_id);
}

const emptyTables = (): Record<TransferTable, []> =>
  Object.fromEntries(TRANSFER_TABLES.map((table) => [table, []])) as unknown as Record<TransferTable, []>;
