/**
 * Attention flags and check-in notes (docs/protocol.md "Attention notes (project extension)") on SQLite and on
 * PostgreSQL, all real: the built CLI sets type rules and ticket notes, a `serve` on loopback answers check-ins,
 * status requests and the synced list over HTTP. The list's cursor sends each change once, with the ticket's state
 * now (a cleared note as [tid, 0, null]); type rules come whole on every page.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isNotesPage, type NotesPage } from '../../../protocol/attention.js';
import { cliFailure, cliJson, createEvent, issueTickets, scratchDir } from '../../support/cli-harness.js';
import { enroll, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';

// Each test runs a dozen CLI processes; on a shared two-core machine that can take longer than vitest's default.
const SLOW_MS = 120_000;

describe.each<[Store]>(BOTH_STORES)('attention notes on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Attention Tests', { servePerTest: true });

  async function notes(who: HttpScanner, query = ''): Promise<{ status: number; body: NotesPage & { error?: { code: string } } }> {
    const response = await fetch(`${issuer.url}/api/v1/scanners/notes${query}`, { headers: { authorization: `Bearer ${who.apiKey}` } });
    return { status: response.status, body: (await response.json()) as NotesPage & { error?: { code: string } } };
  }

  /** Every page from `since` to the end: the rows in order, the pages' types, and the cursor to continue from. */
  async function syncFrom(
    who: HttpScanner,
    since: string | null,
    limit?: number,
  ): Promise<{ rows: NotesPage['tickets']; next: string; pages: number }> {
    const rows: NotesPage['tickets'] = [];
    let cursor = since;
    for (let pages = 1; ; pages++) {
      const params = new URLSearchParams();
      if (cursor !== null) params.set('since', cursor);
      if (limit !== undefined) params.set('limit', String(limit));
      const answer = await notes(who, `?${params.toString()}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(isNotesPage(answer.body)).toBe(true);
      rows.push(...answer.body.tickets);
      cursor = answer.body.next;
      if (answer.body.complete) return { rows, next: cursor, pages };
    }
  }

  const entry = async (who: HttpScanner, tid: string, eid: string): Promise<Record<string, unknown>> => {
    const answer = await postCheckIn(issuer.url, who, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: who.scannerId,
      idempotency_key: crypto.randomUUID(),
    });
    expect(answer.status, answer.text).toBe(200);
    return JSON.parse(answer.text) as Record<string, unknown>;
  };

  const status = async (who: HttpScanner, tid: string): Promise<Record<string, unknown>> => {
    const response = await fetch(`${issuer.url}/api/v1/tickets/${tid}/status`, { headers: { authorization: `Bearer ${who.apiKey}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  const update = (tid: string, ...flags: string[]) => cliJson(['ticket', 'update', tid, '--data', issuer.data, ...flags]);

  it(
    "answers carry the type's note, then the ticket's, flagged when either is; nothing when neither applies",
    async () => {
      const event = await createEvent(issuer.data);
      const set = await cliJson<{ types: unknown[] }>([
        'event',
        'ticket-type',
        'set',
        '--data',
        issuer.data,
        '--event',
        event.eid,
        '--type',
        'VIP',
        '--attention',
        '--note',
        'Green wristband',
      ]);
      expect(set.types).toEqual([{ ticket_type: 'VIP', attention: true, note: 'Green wristband' }]);
      const [vip] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'VIP', '--note', 'Wheelchair user: side door']);
      const [flagged] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Standard', '--attention']);
      const [plain] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Standard']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);

      const vipAnswer = await entry(scanner, vip!, event.eid);
      expect(vipAnswer['status']).toBe('valid');
      expect(vipAnswer['attention']).toEqual({ required: true, notes: ['Green wristband', 'Wheelchair user: side door'] });
      expect((await status(scanner, vip!))['attention']).toEqual({
        required: true,
        notes: ['Green wristband', 'Wheelchair user: side door'],
      });
      // A second scan (already checked in) is still about this person: the notes come with it too.
      expect((await entry(scanner, vip!, event.eid))['attention']).toEqual({
        required: true,
        notes: ['Green wristband', 'Wheelchair user: side door'],
      });

      expect((await entry(scanner, flagged!, event.eid))['attention']).toEqual({ required: true, notes: [] });
      const plainAnswer = await entry(scanner, plain!, event.eid);
      expect(plainAnswer['status']).toBe('valid');
      expect('attention' in plainAnswer).toBe(false);
      expect('attention' in (await status(scanner, plain!))).toBe(false);

      // The type's flag off, its note kept: the ticket's own note alone does not require attention.
      await cliJson(['event', 'ticket-type', 'set', '--data', issuer.data, '--event', event.eid, '--type', 'VIP', '--no-attention']);
      expect((await status(scanner, vip!))['attention']).toEqual({
        required: false,
        notes: ['Green wristband', 'Wheelchair user: side door'],
      });
      const shown = await cliJson<{ attention?: unknown }>(['ticket', 'show', vip!, '--data', issuer.data]);
      expect(shown.attention).toEqual({ required: false, notes: ['Green wristband', 'Wheelchair user: side door'] });
    },
    SLOW_MS,
  );

  it(
    'the synced list sends each change once, in order, with the state now; types whole on every page; reset for a foreign cursor',
    async () => {
      const event = await createEvent(issuer.data);
      const other = await createEvent(issuer.data);
      const tids = await issueTickets(issuer.data, event.eid, 6);
      const [otherTid] = await issueTickets(issuer.data, other.eid, 1, ['--note', 'other event']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);

      const discovery = (await (await fetch(`${issuer.url}/.well-known/ticket-issuer.json`)).json()) as {
        endpoints: Record<string, string>;
      };
      expect(discovery.endpoints['scanner_notes']).toBe('http://127.0.0.1:8080/api/v1/scanners/notes');

      const empty = await notes(scanner);
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({ eid: event.eid, tickets: [], types: [], complete: true, reset: false });

      await update(tids[0]!, '--note', 'Allergy: nuts');
      await update(tids[1]!, '--attention');
      await update(tids[2]!, '--attention', '--note', 'Press, escort to desk');
      await update(tids[3]!, '--note', 'VIP guest of the artist');
      await update(otherTid!, '--attention');
      await cliJson(['event', 'ticket-type', 'set', '--data', issuer.data, '--event', event.eid, '--type', 'Crew', '--note', 'Backstage']);

      const first = await syncFrom(scanner, null, 3);
      expect(first.pages).toBe(2);
      expect(first.rows).toEqual([
        [tids[0], 0, 'Allergy: nuts'],
        [tids[1], 1, null],
        [tids[2], 1, 'Press, escort to desk'],
        [tids[3], 0, 'VIP guest of the artist'],
      ]);
      const page = await notes(scanner, `?limit=1`);
      expect(page.body.complete).toBe(false);
      expect(page.body.types).toEqual([{ ticket_type: 'Crew', attention: false, note: 'Backstage' }]);

      // Nothing new: an empty page at the same cursor. A change that changes nothing is not sent again.
      await update(tids[1]!, '--attention');
      const none = await notes(scanner, `?since=${first.next}`);
      expect(none.body).toMatchObject({ tickets: [], complete: true, reset: false, next: first.next });

      // Cleared and changed rows come again, once each, with their state now, in change order.
      await update(tids[0]!, '--no-note');
      await update(tids[3]!, '--note', 'Changed');
      await update(tids[1]!, '--no-attention');
      const second = await syncFrom(scanner, first.next);
      expect(second.rows).toEqual([
        [tids[0], 0, null],
        [tids[3], 0, 'Changed'],
        [tids[1], 0, null],
      ]);

      // A cursor of another copy of the issuer, or one ahead of this copy: the whole list again, reset.
      const copyId = first.next.split('.')[0]!;
      const foreign = await notes(scanner, `?since=0123456789abcdef.2`);
      expect(copyId).not.toBe('0123456789abcdef');
      expect(foreign.body.reset).toBe(true);
      const ahead = await notes(scanner, `?since=${copyId}.999999`);
      expect(ahead.body.reset).toBe(true);
      expect(ahead.body.tickets.map((row) => row[0])).toEqual([tids[2], tids[0], tids[3], tids[1]]);
    },
    SLOW_MS,
  );

  it(
    'refuses bad input with a clear error and changes nothing',
    async () => {
      const event = await createEvent(issuer.data);
      const [tid] = await issueTickets(issuer.data, event.eid, 1);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);

      const control = await cliFailure(['ticket', 'update', tid!, '--data', issuer.data, '--note', 'bad\u0007note']);
      expect(control.code).toBe('INVALID_ARGUMENT');
      expect(control.message).toContain('--note contains a control character (U+0007)');
      const long = await cliFailure(['ticket', 'update', tid!, '--data', issuer.data, '--note', 'x'.repeat(201)]);
      expect(long.message).toContain('--note is 201 characters long; keep it to 200');
      const nothing = await cliFailure(['ticket', 'update', tid!, '--data', issuer.data]);
      expect(nothing.message).toContain('nothing to change');
      expect((await cliFailure(['ticket', 'update', 'no-such-ticket', '--data', issuer.data, '--attention'])).code).toBe(
        'TICKET_NOT_FOUND',
      );
      expect(
        (
          await cliFailure([
            'event',
            'ticket-type',
            'set',
            '--data',
            issuer.data,
            '--event',
            'no-such-event',
            '--type',
            'VIP',
            '--attention',
          ])
        ).code,
      ).toBe('EVENT_NOT_FOUND');
      expect((await cliFailure(['ticket', 'issue', '--data', issuer.data, '--event', event.eid, '--note', '  '])).message).toContain(
        '--note is empty',
      );
      expect((await notes(scanner)).body.tickets).toEqual([]);

      // Gzip to a kiosk that accepts it (fetch does, and unpacks it); plain JSON to one that does not.
      await update(tid!, '--note', 'Step-free route');
      const zipped = await fetch(`${issuer.url}/api/v1/scanners/notes`, { headers: { authorization: `Bearer ${scanner.apiKey}` } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      expect(((await zipped.json()) as NotesPage).tickets).toEqual([[tid, 0, 'Step-free route']]);
      const plain = await fetch(`${issuer.url}/api/v1/scanners/notes`, {
        headers: { authorization: `Bearer ${scanner.apiKey}`, 'accept-encoding': 'identity' },
      });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(((await plain.json()) as NotesPage).tickets).toEqual([[tid, 0, 'Step-free route']]);

      expect((await notes(scanner, '?limit=50001')).status).toBe(400);
      expect((await notes(scanner, '?limit=0')).status).toBe(400);
      expect((await notes(scanner, '?since=not-a-cursor')).status).toBe(400);
      const unauthorised = await fetch(`${issuer.url}/api/v1/scanners/notes`);
      expect(unauthorised.status).toBe(401);
    },
    SLOW_MS,
  );

  it(
    'ticket import takes attention and note columns, and refuses a bad one with its line',
    async () => {
      const event = await createEvent(issuer.data);
      const dir = scratchDir();
      const good = path.join(dir, 'good.csv');
      fs.writeFileSync(
        good,
        'holder_name,ticket_type,expires_at,attention,note\nAda,VIP,,yes,Step-free route\nGrace,Standard,,,\nAlan,Standard,,0,Interpreter booked\n',
      );
      const { tickets } = await cliJson<{ tickets: { tid: string }[] }>([
        'ticket',
        'import',
        '--data',
        issuer.data,
        '--event',
        event.eid,
        '--csv',
        good,
      ]);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);
      const synced = await syncFrom(scanner, null);
      expect(synced.rows).toEqual([
        [tickets[0]!.tid, 1, 'Step-free route'],
        [tickets[2]!.tid, 0, 'Interpreter booked'],
      ]);

      const bad = path.join(dir, 'bad.csv');
      fs.writeFileSync(bad, 'Ada,VIP,,maybe,\nGrace,VIP,,1,tab\there\n');
      const failure = await cliFailure(['ticket', 'import', '--data', issuer.data, '--event', event.eid, '--csv', bad]);
      expect(failure.code).toBe('CSV_INVALID');
      expect(failure.message).toContain('line 1: attention must be empty, 0, 1, yes, no, true or false');
      expect(failure.message).toContain('line 2: note contains a control character (U+0009)');
      expect((await syncFrom(scanner, synced.next)).rows).toEqual([]);
    },
    SLOW_MS,
  );
});
