/**
 * ID and age checks (docs/protocol.md "ID checks (project extension)") on SQLite and on PostgreSQL, all real: the
 * built CLI sets a type's check and tickets' dates of birth, a `serve` on loopback answers check-ins, status requests
 * and the synced notes list over HTTP. A date of birth never leaves the issuer as a date: answers and the list carry
 * the holder's short name and the age band for the type's N. A scanner that sends no `id_checked` is admitted and its
 * entry counted "ID not checked" on the dashboard; one that sends `id_checked: true` is not.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotesPage, type NotesPage } from '../../../protocol/attention.js';
import type { EventOverview } from '../../../issuer/dashboard-api.js';
import type { ImportResult } from '../../../issuer/transfer/import.js';
import { cliFailure, cliJson, createEvent, issueTickets, runCli, scratchDir } from '../../support/cli-harness.js';
import { enroll, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';
import { EXPORT_VERSION } from '../../../issuer/transfer/file.js';

const SLOW_MS = 120_000;

/** A date of birth `years` before the event's day, shifted by `days`. */
function dobBefore(eventDate: string, years: number, days = 0): string {
  const date = new Date(`${eventDate.slice(0, 10)}T00:00:00Z`);
  date.setUTCFullYear(date.getUTCFullYear() - years);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each<[Store]>(BOTH_STORES)('ID checks on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'ID Check Tests', { servePerTest: true });

  const entry = async (
    who: HttpScanner,
    tid: string,
    eid: string,
    extra: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> => {
    const answer = await postCheckIn(issuer.url, who, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: who.scannerId,
      idempotency_key: crypto.randomUUID(),
      ...extra,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).not.toMatch(/\d{4}-\d{2}-\d{2}(?!T)/); // no bare date: never the date of birth
    return JSON.parse(answer.text) as Record<string, unknown>;
  };

  const status = async (who: HttpScanner, tid: string): Promise<Record<string, unknown>> => {
    const response = await fetch(`${issuer.url}/api/v1/tickets/${tid}/status`, { headers: { authorization: `Bearer ${who.apiKey}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  const notes = async (who: HttpScanner, since?: string): Promise<NotesPage> => {
    const query = since === undefined ? '' : `?since=${since}`;
    const response = await fetch(`${issuer.url}/api/v1/scanners/notes${query}`, { headers: { authorization: `Bearer ${who.apiKey}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as NotesPage;
    expect(isNotesPage(body)).toBe(true);
    return body;
  };

  const typeSet = (eid: string, type: string, ...flags: string[]) =>
    cliJson<{ id_checks: unknown[] }>(['event', 'ticket-type', 'set', '--data', issuer.data, '--event', eid, '--type', type, ...flags]);

  it(
    "a type's age check: answers carry kind, min_age, the short name and the band; the list carries the band, never the date",
    async () => {
      const event = await createEvent(issuer.data);
      const set = await typeSet(event.eid, 'Bar', '--id-check', 'age:18');
      expect(set.id_checks).toEqual([{ ticket_type: 'Bar', id_check: 'age:18' }]);
      await typeSet(event.eid, 'Guest', '--id-check', 'name');
      const listed = await cliJson<{ id_checks: unknown[] }>(['event', 'ticket-type', 'list', '--data', issuer.data, '--event', event.eid]);
      expect(listed.id_checks).toEqual([
        { ticket_type: 'Bar', id_check: 'age:18' },
        { ticket_type: 'Guest', id_check: 'name' },
      ]);

      const adult = dobBefore(event.date, 30);
      const birthdayToday = dobBefore(event.date, 18);
      const dayShort = dobBefore(event.date, 18, 1);
      const [over] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Bar', '--holder', 'Ada Lovelace', '--dob', adult]);
      const [edge] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Bar', '--holder', 'Bo Edge', '--dob', birthdayToday]);
      const [under] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Bar', '--holder', 'Cy Young', '--dob', dayShort]);
      const [unknown] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Bar', '--holder', 'Di Nodate']);
      const [guest] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Guest', '--holder', 'Ed Guest']);
      const [plain] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Standard', '--holder', 'Fay Plain']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);

      expect((await status(scanner, over!))['id_check']).toEqual({ kind: 'age', min_age: 18, holder: 'Ada L.', band: 'over' });
      expect((await status(scanner, edge!))['id_check']).toEqual({ kind: 'age', min_age: 18, holder: 'Bo E.', band: 'over' });
      expect((await status(scanner, under!))['id_check']).toEqual({ kind: 'age', min_age: 18, holder: 'Cy Y.', band: 'under' });
      expect((await status(scanner, unknown!))['id_check']).toEqual({ kind: 'age', min_age: 18, holder: 'Di N.', band: 'unknown' });
      expect((await status(scanner, guest!))['id_check']).toEqual({ kind: 'name', holder: 'Ed G.', band: 'unknown' });
      expect('id_check' in (await status(scanner, plain!))).toBe(false);

      // A spec scanner (no id_checked) is admitted; the answer still says what it did not check.
      const admitted = await entry(scanner, over!, event.eid);
      expect(admitted['status']).toBe('valid');
      expect(admitted['id_check']).toEqual({ kind: 'age', min_age: 18, holder: 'Ada L.', band: 'over' });
      expect('id_check' in (await entry(scanner, plain!, event.eid))).toBe(false);

      // The synced list: the type's check whole, each dated ticket's band; no date anywhere.
      const page = await notes(scanner);
      expect(page.id_checks).toEqual([
        { ticket_type: 'Bar', id_check: 'age:18' },
        { ticket_type: 'Guest', id_check: 'name' },
      ]);
      expect(new Map(page.id_bands)).toEqual(
        new Map([
          [over!, 'over'],
          [edge!, 'over'],
          [under!, 'under'],
        ]),
      );
      const text = JSON.stringify(page);
      for (const date of [adult, birthdayToday, dayShort]) expect(text).not.toContain(date);

      // A raised minimum age lists the type's dated tickets again, with their new bands.
      await typeSet(event.eid, 'Bar', '--id-check', 'age:21');
      const after = await notes(scanner, page.next);
      expect(new Map(after.id_bands)).toEqual(
        new Map([
          [over!, 'over'],
          [edge!, 'under'],
          [under!, 'under'],
        ]),
      );
      // A date of birth changed by `ticket update` reaches the list; --no-dob makes the band unknown.
      await cliJson(['ticket', 'update', unknown!, '--data', issuer.data, '--dob', adult]);
      await cliJson(['ticket', 'update', over!, '--data', issuer.data, '--no-dob']);
      const later = await notes(scanner, after.next);
      expect(later.tickets.map((row) => row[0]).sort()).toEqual([over!, unknown!].sort());
      expect(later.id_bands).toEqual([[unknown!, 'over']]);
      expect((await status(scanner, over!))['id_check']).toMatchObject({ band: 'unknown' });

      // `ticket show` says what the door is asked, never the date; an imported dob column gives its band.
      const shown = await cliJson<Record<string, unknown>>(['ticket', 'show', under!, '--data', issuer.data]);
      expect(shown['id_check']).toEqual({ kind: 'age', min_age: 21, holder: 'Cy Y.', band: 'under' });
      expect(JSON.stringify(shown)).not.toContain(dayShort);
      const csv = path.join(scratchDir('dob-csv-'), 'tickets.csv');
      fs.writeFileSync(csv, `holder_name,ticket_type,expires_at,attention,note,dob\nGus Import,Bar,,,,${adult}\n`);
      const imported = await cliJson<{ tickets: Array<{ tid: string }> }>([
        'ticket',
        'import',
        '--data',
        issuer.data,
        '--event',
        event.eid,
        '--csv',
        csv,
      ]);
      expect(JSON.stringify(imported)).not.toContain(adult);
      expect((await status(scanner, imported.tickets[0]!.tid))['id_check']).toEqual({
        kind: 'age',
        min_age: 21,
        holder: 'Gus I.',
        band: 'over',
      });
    },
    SLOW_MS,
  );

  it(
    'entries without id_checked are counted "ID not checked" on the dashboard; a confirmed one is not; the export and webhooks say which, never the date',
    async () => {
      const event = await createEvent(issuer.data);
      const secretFile = path.join(scratchDir('id-check-hook-'), 'hook.secret');
      await cliJson([
        'webhook',
        'add',
        `${receiver.url}/id-${store}`,
        '--data',
        issuer.data,
        '--events',
        'checkin.created',
        '--event',
        event.eid,
        '--secret-file',
        secretFile,
      ]);
      receiver.secrets.set(`/id-${store}`, fs.readFileSync(secretFile, 'utf8').trim());
      await typeSet(event.eid, 'Bar', '--id-check', 'age:18');
      const dob = dobBefore(event.date, 30);
      const [a, b, c] = await issueTickets(issuer.data, event.eid, 3, ['--type', 'Bar', '--holder', 'Ada Lovelace', '--dob', dob]);
      const [plain] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Standard']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);
      expect((await entry(scanner, a!, event.eid))['status']).toBe('valid');
      expect((await entry(scanner, b!, event.eid))['status']).toBe('valid');
      expect((await entry(scanner, c!, event.eid, { action: 'entry', id_checked: true, staff_id: 'steward-7' }))['status']).toBe('valid');
      expect((await entry(scanner, plain!, event.eid))['status']).toBe('valid');

      const { admin_token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data]);
      let overview: EventOverview | undefined;
      for (let tries = 0; tries < 100; tries++) {
        const response = await fetch(`${issuer.url}/admin/api/events/${event.eid}/overview`, {
          headers: { authorization: `Bearer ${admin_token}` },
        });
        overview = (await response.json()) as EventOverview;
        if (overview.totals.checked_in >= 4) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(overview!.totals.checked_in).toBe(4);
      expect(overview!.activity.id_not_checked).toBe(2);

      // docs/issuer.md "Reconciliation": the export's id_check column, in CSV and JSON; no date of birth.
      const expected = { [a!]: 'not_checked', [b!]: 'not_checked', [c!]: 'checked', [plain!]: null };
      const rows = await cliJson<Record<string, string | null>[]>(['checkins', 'export', '--data', issuer.data, '--event', event.eid]);
      const admissions = rows.filter((row) => row['source'] === 'checkins');
      expect(Object.fromEntries(admissions.map((row) => [row['tid'], row['id_check']]))).toEqual(expected);
      const exported = await runCli(['checkins', 'export', '--data', issuer.data, '--event', event.eid, '--format', 'csv']);
      expect(exported.code, exported.stderr).toBe(0);
      const csv = exported.stdout;
      const lines = csv.trim().split('\n');
      expect(lines[0]!.endsWith(',id_check')).toBe(true);
      for (const [tid, value] of Object.entries(expected)) {
        expect(lines.find((line) => line.startsWith('checkins,') && line.includes(tid))!.endsWith(`,${value ?? ''}`)).toBe(true);
      }
      expect(csv).not.toContain(dob);

      // docs/issuer.md "Webhooks": checkin.created says whether the ID was checked; never the date.
      await until(() => receiver.received.filter((r) => r.path === `/id-${store}`).length >= 4, 'four checkin.created');
      const told = receiver.received.filter((r) => r.path === `/id-${store}`);
      expect(told.every((r) => r.type === 'checkin.created' && r.verified)).toBe(true);
      expect(Object.fromEntries(told.map((r) => [r.data['tid'], r.data['id_check']]))).toEqual(expected);
      expect(JSON.stringify(told)).not.toContain(dob);
    },
    SLOW_MS,
  );

  it(
    "export and import carry the types' checks, the dates of birth and whether each entry was checked; a later check and a missing date arrive",
    async () => {
      const event = await createEvent(issuer.data);
      await typeSet(event.eid, 'Bar', '--id-check', 'age:18');
      const adult = dobBefore(event.date, 30);
      const minor = dobBefore(event.date, 16);
      const [over, checked] = await issueTickets(issuer.data, event.eid, 2, ['--type', 'Bar', '--holder', 'Ada Lovelace', '--dob', adult]);
      const [under] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Bar', '--holder', 'Cy Young', '--dob', minor]);
      const [undated] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Bar', '--holder', 'Di Nodate']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);
      await entry(scanner, over!, event.eid);
      await entry(scanner, checked!, event.eid, { action: 'entry', id_checked: true, staff_id: 'steward-7' });

      // The whole issuer to a 0600 file: the dates travel there (the issuer's own backup), with the checks.
      const dir = scratchDir('id-transfer-');
      const file = path.join(dir, 'issuer.json');
      await cliJson(['export', '--data', issuer.data, '--event', event.eid, '--to', file]);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const document = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Array<Record<string, unknown>>> & { version: number };
      expect(document.version).toBe(EXPORT_VERSION);
      expect(document['ticket_type_id_checks']!.map((row) => [row['ticket_type'], row['id_check']])).toEqual([['Bar', 'age:18']]);
      expect(Object.fromEntries(document['tickets']!.map((row) => [row['tid'], row['dob']]))).toEqual({
        [over!]: adult,
        [checked!]: adult,
        [under!]: minor,
        [undated!]: null,
      });
      const entries = document['admission_events']!.filter((row) => row['action'] === 'entry');
      expect(Object.fromEntries(entries.map((row) => [row['tid'], row['id_check']]))).toEqual({
        [over!]: 'not_checked',
        [checked!]: 'checked',
      });

      // Into a new data dir (SQLite): the same answers, the same export column.
      const copy = path.join(dir, 'copy');
      await cliJson(['import', '--data', copy, '--from', file]);
      const copied = await cliJson<Record<string, unknown>>(['ticket', 'show', under!, '--data', copy]);
      expect(copied['id_check']).toEqual({ kind: 'age', min_age: 18, holder: 'Cy Y.', band: 'under' });
      const rows = await cliJson<Record<string, string | null>[]>(['checkins', 'export', '--data', copy, '--event', event.eid]);
      expect(Object.fromEntries(rows.filter((row) => row['source'] === 'checkins').map((row) => [row['tid'], row['id_check']]))).toEqual({
        [over!]: 'not_checked',
        [checked!]: 'checked',
      });

      // The same file again here: nothing changes, no entry is doubled.
      const again = await cliJson<ImportResult>(['import', '--data', issuer.data, '--from', file]);
      expect(again.counts.ticket_type_id_checks).toEqual({ added: 0, updated: 0, unchanged: 1, conflicts: 0 });
      expect(again.counts.admission_events.added).toBe(0);
      expect(again.warnings).toEqual([]);

      // The copy raises the age and dates the undated ticket; its file brings both back here (on this store).
      await new Promise((resolve) => setTimeout(resolve, 20)); // a later updated_at than the original's
      await cliJson(['event', 'ticket-type', 'set', '--data', copy, '--event', event.eid, '--type', 'Bar', '--id-check', 'age:21']);
      await cliJson(['ticket', 'update', undated!, '--data', copy, '--dob', minor]);
      await cliJson(['ticket', 'update', over!, '--data', copy, '--dob', dobBefore(event.date, 40)]);
      const back = path.join(dir, 'back.json');
      await cliJson(['export', '--data', copy, '--to', back]);
      const merged = await cliJson<ImportResult>(['import', '--data', issuer.data, '--from', back]);
      expect(merged.counts.ticket_type_id_checks).toEqual({ added: 0, updated: 1, unchanged: 0, conflicts: 0 });
      // This copy's date stands where both have one; the warning names the ticket, never a date.
      expect(merged.warnings).toContainEqual(expect.stringContaining(`1 ticket(s) have another date of birth in the file (${over!})`));
      expect(JSON.stringify(merged)).not.toMatch(/\d{4}-\d{2}-\d{2}(?!T)/);
      const view = await status(scanner, undated!);
      expect(view['id_check']).toEqual({ kind: 'age', min_age: 21, holder: 'Di N.', band: 'under' });
      expect((await status(scanner, over!))['id_check']).toMatchObject({ min_age: 21, band: 'over' });
      // The kiosks hear of it: the synced list names the newly dated ticket with its band.
      const page = await notes(scanner);
      expect(new Map(page.id_bands).get(undated!)).toBe('under');
    },
    SLOW_MS,
  );

  it(
    'the CLI refuses a malformed check and a malformed or future date of birth, naming the flag',
    async () => {
      const event = await createEvent(issuer.data);
      for (const bad of ['age', 'age:0', 'age:121', 'age:18.5', 'passport']) {
        const failure = await cliFailure([
          'event',
          'ticket-type',
          'set',
          '--data',
          issuer.data,
          '--event',
          event.eid,
          '--type',
          'Bar',
          '--id-check',
          bad,
        ]);
        expect(failure.stderr).toContain('--id-check');
      }
      for (const bad of ['1990-02-30', '19900101', '2999-01-01']) {
        const failure = await cliFailure(['ticket', 'issue', '--data', issuer.data, '--event', event.eid, '--dob', bad]);
        expect(failure.stderr).toContain('--dob');
      }
    },
    SLOW_MS,
  );
});
