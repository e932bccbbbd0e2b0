/**
 * Export format 8 (docs/issuer.md "Moving an issuer to the venue and back"): each event's check-out at a set time
 * (docs/protocol.md "Check-out at a set time") and the kiosks' staff records (docs/protocol.md "Scanner heartbeat")
 * travel. All real, on SQLite and on a throwaway PostgreSQL cluster: the built CLI, `serve` on loopback for the
 * kiosks' heartbeats and the admin API, and the exit-all write job driven with its own `now` (the issuer's clock is
 * the job's argument, as in test/integration/issuer/exit-all.test.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { HeartbeatResponse } from '../../../protocol/door.js';
import type { StaffActionReport } from '../../../protocol/staff-actions.js';
import { openIssuer } from '../../../issuer/admin/issuer-context.js';
import { applyExitAllWrite } from '../../../issuer/services/exit-all.js';
import { admissionEventsOfEvent } from '../../../issuer/store/checkins.js';
import type { ExportFile } from '../../../issuer/transfer/file.js';
import type { ImportResult } from '../../../issuer/transfer/import.js';
import { cliFailure, cliJson, createEvent, initIssuer, issueTickets, scratchDir, serveCli } from '../../support/cli-harness.js';
import { expectEachRefused, rewritten, type RefusalCase } from '../../support/export-file.js';
import { checkIn, enroll, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, SERVE_FOR_SCANNERS, useIssuerOnStore, type IssuerOnStore, type Store } from '../../support/issuer-on-store.js';

/** Many CLI child processes and two `serve`s per test, on a busy 2-core machine. */
const SLOW = 240_000;
const DAY = 86_400_000;

type V8File = ExportFile;

/** A staff record as a kiosk's heartbeat carries it (a hash of the kiosk's own chain: any 64 hex digits here). */
function record(position: number, extra: Partial<StaffActionReport> = {}): StaffActionReport {
  return {
    position,
    hash: crypto.createHash('sha256').update(`record ${position}`).digest('hex'),
    at: new Date(Date.now() - (10 - position) * 60_000).toISOString(),
    event: 'unlocked',
    staff_id: 'kim.s',
    name: 'Kim Supervisor',
    role: 'supervisor',
    via: 'badge',
    ...extra,
  };
}

async function heartbeat(url: string, scanner: HttpScanner, staffActions: StaffActionReport[] = []): Promise<HeartbeatResponse> {
  const response = await fetch(`${url}/api/v1/scanners/heartbeat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
    body: JSON.stringify({ scanner_id: scanner.scannerId, staff_actions: staffActions }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as HeartbeatResponse;
}

/** The event's staff records as the dashboard lists them (admin API), without their local row ids. */
async function staffList(url: string, data: string, eid: string): Promise<unknown[]> {
  const { admin_token: token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', data]);
  const response = await fetch(`${url}/admin/api/events/${eid}/staff-actions`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { actions: Record<string, unknown>[] }).actions.map(({ id: _id, ...rest }) => rest);
}

/** The event's exits with reason `auto`, read through the store. */
async function autoExits(data: string, eid: string): Promise<string[]> {
  const { database } = await openIssuer(data);
  try {
    return (await admissionEventsOfEvent(database.read, eid))
      .filter((row) => row.action === 'exit' && row.reason === 'auto')
      .map((row) => row.tid)
      .sort();
  } finally {
    await database.close();
  }
}

/** The exit-all job as the issuer runs it, at `now`. */
async function applyExitAllAt(data: string, eid: string, now: Date): Promise<void> {
  const { database } = await openIssuer(data);
  try {
    await database.write(applyExitAllWrite({ eid, now: now.toISOString() }));
  } finally {
    await database.close();
  }
}

/** A new data dir on the same store: on PostgreSQL, an empty database of its own in the issuer's cluster. */
async function newCopy(store: Store, issuer: IssuerOnStore): Promise<{ data: string; database: string[] }> {
  const data = path.join(scratchDir('venue-'), 'issuer-data');
  if (store === 'SQLite') return { data, database: [] };
  const name = `venue_${crypto.randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: issuer.cluster!.url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(issuer.cluster!.url);
  url.pathname = `/${name}`;
  return { data, database: ['--database', url.toString()] };
}

const exportOf = async (data: string): Promise<string> => {
  const file = path.join(scratchDir('trip-'), 'issuer.json');
  await cliJson(['export', '--data', data, '--to', file]);
  return file;
};

const importInto = (data: string, file: string, extra: string[] = []): Promise<ImportResult> =>
  cliJson<ImportResult>(['import', '--data', data, '--from', file, ...extra]);

describe.each<[Store]>(BOTH_STORES)('export format 8 on %s: check-out at a set time and staff records travel', (store) => {
  const issuer = useIssuerOnStore(store, 'Exit and staff');

  it(
    'the venue copy checks out at the set time and lists the staff records; both come back without an exit twice',
    async () => {
      const office = issuer.data;
      const { eid } = await createEvent(office, ['--entry', 'reentry']);
      const tids = await issueTickets(office, eid, 2);
      await cliJson(['event', 'set', '--data', office, '--event', eid, '--exit-all-at', '04:00', '--time-zone', 'Europe/Berlin']);
      const officeServe = await serveCli(['--data', office, ...SERVE_FOR_SCANNERS]);
      const scanner = await enroll(officeServe.url, office, eid);
      for (const tid of tids) expect(await checkIn(officeServe.url, scanner, tid, eid)).toBe('valid');
      const officeBeat = await heartbeat(officeServe.url, scanner, [record(1), record(2, { event: 'attention_override', tid: tids[0]! })]);
      expect(officeBeat).toMatchObject({ exit_all_at: '04:00', exit_all_time_zone: 'Europe/Berlin', staff_actions_through: 2 });
      const officeStaff = await staffList(officeServe.url, office, eid);
      expect(officeStaff).toHaveLength(2);

      // To the venue: a new data dir made from the file.
      const venue = await newCopy(store, issuer);
      const created = await importInto(venue.data, await exportOf(office), venue.database);
      expect(created).toMatchObject({ created: true, warnings: [] });
      expect(created.counts).toMatchObject({
        exit_all_settings: { added: 1, updated: 0, unchanged: 0, conflicts: 0 },
        staff_actions: { added: 2, updated: 0, unchanged: 0, conflicts: 0 },
      });
      const venueServe = await serveCli(['--data', venue.data, ...SERVE_FOR_SCANNERS]);
      const venueBeat = await heartbeat(venueServe.url, scanner);
      expect(venueBeat).toMatchObject({
        exit_all_at: '04:00',
        exit_all_time_zone: 'Europe/Berlin',
        exit_all_since: officeBeat.exit_all_since,
      });
      expect(venueBeat.occupancy.inside).toBe(2);
      expect(await staffList(venueServe.url, venue.data, eid)).toEqual(officeStaff);

      // A day on, the venue checks both tickets out at 04:00 Berlin time, as the office would have.
      await applyExitAllAt(venue.data, eid, new Date(Date.now() + DAY));
      expect(await autoExits(venue.data, eid)).toEqual([...tids].sort());
      // The kiosk sends its record 2 again, and a new one: the venue keeps 3 records.
      await heartbeat(venueServe.url, scanner, [record(2, { event: 'attention_override', tid: tids[0]! }), record(3, { event: 'locked' })]);
      const venueStaff = await staffList(venueServe.url, venue.data, eid);
      expect(venueStaff).toHaveLength(3);

      // Back at the office: the same setting stays, the exits come with the history and are not made again.
      const back = await importInto(office, await exportOf(venue.data));
      expect(back.counts).toMatchObject({
        exit_all_settings: { added: 0, updated: 0, unchanged: 1, conflicts: 0 },
        staff_actions: { added: 1, updated: 0, unchanged: 2, conflicts: 0 },
      });
      await applyExitAllAt(office, eid, new Date(Date.now() + DAY));
      expect(await autoExits(office, eid)).toEqual([...tids].sort());
      expect(await staffList(officeServe.url, office, eid)).toEqual(venueStaff);

      // A setting made later at the venue stands at the office.
      await cliJson(['event', 'set', '--data', venue.data, '--event', eid, '--exit-all-at', '05:30', '--time-zone', 'Europe/Berlin']);
      const later = await importInto(office, await exportOf(venue.data));
      expect(later.counts.exit_all_settings).toEqual({ added: 0, updated: 1, unchanged: 0, conflicts: 0 });
      expect(await heartbeat(officeServe.url, scanner)).toMatchObject({ exit_all_at: '05:30', exit_all_time_zone: 'Europe/Berlin' });
    },
    SLOW,
  );
});

// ---- refusals and older files (SQLite: the checks are the same code on both stores) ----

describe('export format 8: bad rows are refused by row and field; an older file imports without them', () => {
  /** An office with a check-out at a set time and two staff records, and its export. */
  async function officeWithBoth(): Promise<{ data: string; eid: string; file: string; scanner: HttpScanner }> {
    const { data } = await initIssuer('http://127.0.0.1:8080');
    const { eid } = await createEvent(data);
    await cliJson(['event', 'set', '--data', data, '--event', eid, '--exit-all-at', '2030-07-12T04:00:00Z']);
    const serve = await serveCli(['--data', data, ...SERVE_FOR_SCANNERS]);
    const scanner = await enroll(serve.url, data, eid);
    await heartbeat(serve.url, scanner, [record(1), record(2, { event: 'staff_refused', call: 'annul', needs: 'supervisor' })]);
    return { data, eid, file: await exportOf(data), scanner };
  }

  it(
    'values event set and the heartbeat would refuse are refused, naming the row and the field, and no data dir is made',
    async () => {
      const { file } = await officeWithBoth();
      const cases: RefusalCase[] = [
        [(d) => void (d.exit_all_settings[0]!.at = '4:00'), 'exit_all_settings[0].at must be a daily time HH:MM'],
        [(d) => void (d.exit_all_settings[0]!.at = '2030-07-12T06:00:00+02:00'), 'exit_all_settings[0].at must be a daily time HH:MM'],
        [(d) => void (d.exit_all_settings[0]!.time_zone = 'Mars/Olympus'), 'exit_all_settings[0].time_zone must be an IANA time zone'],
        [(d) => void (d.exit_all_settings[0]!.since = 'yesterday'), 'exit_all_settings[0].since must be an ISO 8601 date-time'],
        [(d) => void (d.exit_all_settings[0]!.done = '2000-01-01T00:00:00Z'), 'exit_all_settings[0].done must be after its since'],
        [(d) => void (d.exit_all_settings[0]!.eid = 'E-NOPE'), 'exit_all_settings[0].eid names event E-NOPE, which is not in the file'],
        [(d) => void d.exit_all_settings.push({ ...d.exit_all_settings[0]! }), 'exit_all_settings has eid'],
        [(d) => void (d.staff_actions[0]!.name = 'K'.repeat(81)), 'staff_actions[0].name must be at most 80 characters'],
        [(d) => void (d.staff_actions[0]!.name = 'Kim\u202Egnp'), 'staff_actions[0].name'],
        [(d) => void (d.staff_actions[0]!.event = 'deleted_everything'), 'staff_actions[0].event must be one of'],
        [(d) => void (d.staff_actions[0]!.staff_id = 'kim s'), 'staff_actions[0].staff_id must be null or 1 to 80 letters'],
        [(d) => void (d.staff_actions[1]!.call = 'format_disk'), "staff_actions[1].call must be one of the kiosk's calls"],
        [(d) => void (d.staff_actions[0]!.position = 0), 'staff_actions[0].position must be an integer from 1'],
        [(d) => void (d.staff_actions[0]!.hash = 'abc'), 'staff_actions[0].hash must be 64 lowercase hex digits'],
        [
          (d) => void (d.staff_actions[0]!.api_key_id = 'K-NOPE'),
          'staff_actions[0].api_key_id names scanner key K-NOPE, which is not in the file',
        ],
        [(d) => void d.staff_actions.push({ ...d.staff_actions[0]!, received_at: new Date().toISOString() }), 'staff_actions has scanner'],
      ];
      await expectEachRefused(file, cases);
    },
    SLOW,
  );

  it(
    "a record of a kiosk that this copy has with other content stops the merge (IMPORT_CONFLICT), and this copy's stays",
    async () => {
      const { data, eid, file } = await officeWithBoth();
      const edited = rewritten(file, (d) => void (d.staff_actions[0]!.name = 'Someone Else'));
      const failure = await cliFailure(['import', '--data', data, '--from', edited]);
      expect(failure.code).toBe('IMPORT_CONFLICT');
      const serve = await serveCli(['--data', data, ...SERVE_FOR_SCANNERS]);
      expect((await staffList(serve.url, data, eid)).map((row) => (row as { name: string }).name)).toEqual([
        'Kim Supervisor',
        'Kim Supervisor',
      ]);
    },
    SLOW,
  );

  it(
    'a version 7 file imports with no check-out at a set time and no staff records; a version 8 file without them is refused',
    async () => {
      const { file, eid, scanner } = await officeWithBoth();
      const v7 = rewritten(file, (d) => {
        d.version = 7;
        delete (d as Partial<V8File>).exit_all_settings;
        delete (d as Partial<V8File>).staff_actions;
      });
      const venue = path.join(scratchDir('v7-'), 'issuer-data');
      const result = await importInto(venue, v7);
      expect(result).toMatchObject({ created: true, warnings: [] });
      expect(result.counts).toMatchObject({
        exit_all_settings: { added: 0, updated: 0, unchanged: 0, conflicts: 0 },
        staff_actions: { added: 0, updated: 0, unchanged: 0, conflicts: 0 },
      });
      const serve = await serveCli(['--data', venue, ...SERVE_FOR_SCANNERS]);
      const beat = await heartbeat(serve.url, scanner);
      expect(beat.exit_all_at).toBeUndefined();
      expect(await staffList(serve.url, venue, eid)).toEqual([]);

      const fresh = path.join(scratchDir('v8-'), 'issuer-data');
      // The tables are checked before the checksum: the file is refused for the table it lacks.
      const document = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<V8File>;
      delete document.staff_actions;
      const missing = path.join(scratchDir('v8-'), 'missing.json');
      fs.writeFileSync(missing, JSON.stringify(document));
      const failure = await cliFailure(['import', '--data', fresh, '--from', missing]);
      expect(failure).toMatchObject({ code: 'IMPORT_FILE_INVALID', message: expect.stringContaining('"staff_actions" is missing') });
    },
    SLOW,
  );
});
