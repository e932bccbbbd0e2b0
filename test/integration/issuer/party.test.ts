/**
 * Party tickets (docs/protocol.md "Party tickets (project extension)") on SQLite and on PostgreSQL, all real: the
 * built CLI issues and updates party tickets, a `serve` on loopback answers check-ins, status requests and the
 * synced notes list over HTTP. A part of a party comes in with `people`; a spec scanner counts one person a scan;
 * the party never exceeds its size, not even with parts sent at once from two doors; a late part admitted offline
 * counts what still fits and says how many were refused.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isNotesPage, type NotesPage } from '../../../protocol/attention.js';
import type { PartyState } from '../../../protocol/party.js';
import { cliFailure, cliJson, createEvent, issueTickets } from '../../support/cli-harness.js';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { enroll, enrollWith, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';

const SLOW_MS = 120_000;

interface Answer {
  status: string;
  ticket: { tid: string; presence?: string | null; checked_in_at: string | null };
  party?: PartyState;
  occupancy?: { inside: number; capacity: number | null };
}

describe.each<[Store]>(BOTH_STORES)('party tickets on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Party Tests', { servePerTest: true });

  const post = async (who: HttpScanner, tid: string, eid: string, extra: Record<string, unknown> = {}, key = crypto.randomUUID()) => {
    const answer = await postCheckIn(issuer.url, who, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: who.scannerId,
      idempotency_key: key,
      ...extra,
    });
    return answer;
  };
  const scan = async (who: HttpScanner, tid: string, eid: string, extra: Record<string, unknown> = {}): Promise<Answer> => {
    const answer = await post(who, tid, eid, extra);
    expect(answer.status, answer.text).toBe(200);
    return JSON.parse(answer.text) as Answer;
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
  const party = (size: number, inside: number, admitted: number, remaining: number, refused?: number): PartyState => ({
    size,
    inside,
    admitted_total: admitted,
    remaining,
    ...(refused === undefined ? {} : { refused }),
  });

  it(
    '--party N is stored on the issuer (not in the QR), shown, listed for kiosks, and bounded 1 to 1000 with a clear refusal',
    async () => {
      const event = await createEvent(issuer.data);
      const [family] = await issueTickets(issuer.data, event.eid, 1, ['--holder', 'Ada Family', '--party', '5']);
      const [single] = await issueTickets(issuer.data, event.eid, 1, ['--holder', 'Bo Single']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);

      expect((await status(scanner, family!))['party']).toEqual(party(5, 0, 0, 5));
      expect('party' in (await status(scanner, single!))).toBe(false);
      const shown = await cliJson<{ party?: PartyState; qr: string }>(['ticket', 'show', '--data', issuer.data, family!]);
      expect(shown.party).toEqual(party(5, 0, 0, 5));
      // The QR payload stays the spec's: no party in it.
      const payload = JSON.parse(Buffer.from(shown.qr.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      expect(Object.keys(payload)).not.toContain('party');

      const page = await notes(scanner);
      expect(page.parties).toEqual([[family!, 5]]);

      for (const bad of ['0', '1001', '2.5', 'five', '-3']) {
        const failure = await cliFailure(['ticket', 'issue', '--data', issuer.data, '--event', event.eid, '--party', bad]);
        expect(failure.code).toBe('INVALID_ARGUMENT');
        expect(failure.message).toContain('--party must be how many people the ticket admits, a whole number 1 to 1000');
      }

      // `ticket update --party`: a new size reaches the list at its next page; back to one clears it there.
      const updated = await cliJson<{ party: PartyState | null }>(['ticket', 'update', '--data', issuer.data, single!, '--party', '3']);
      expect(updated.party).toEqual(party(3, 0, 0, 3));
      const next = await notes(scanner, page.next);
      expect(next.parties).toEqual([[single!, 3]]);
      const back = await cliJson<{ party: PartyState | null }>(['ticket', 'update', '--data', issuer.data, single!, '--party', '1']);
      expect(back.party).toBeNull();
      const cleared = await notes(scanner, next.next);
      expect(cleared.tickets.map((row) => row[0])).toEqual([single!]);
      expect(cleared.parties).toEqual([]);
    },
    SLOW_MS,
  );

  it(
    'parts come in with `people`: 3 of 5, then too many is party_exceeded (nothing checked in), then the last 2; replays are the same bytes',
    async () => {
      const event = await createEvent(issuer.data, ['--capacity', '100']);
      const [tid] = await issueTickets(issuer.data, event.eid, 1, ['--party', '5']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);

      const key = crypto.randomUUID();
      const body = {
        tid: tid!,
        eid: event.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.scannerId,
        idempotency_key: key,
        action: 'entry',
        people: 3,
      };
      const first = await postCheckIn(issuer.url, scanner, body);
      const three = JSON.parse(first.text) as Answer;
      expect(three.status).toBe('valid');
      expect(three.party).toEqual(party(5, 3, 3, 2));
      // Occupancy counts people (docs/protocol.md "Occupancy").
      expect(three.occupancy).toEqual({ inside: 3, capacity: 100 });
      // The same check-in id with the same people is the same answer, byte for byte; with other people a conflict.
      const replay = await postCheckIn(issuer.url, scanner, body);
      expect(replay.status).toBe(200);
      expect(replay.text).toBe(first.text);
      const otherPeople = await postCheckIn(issuer.url, scanner, { ...body, people: 2 });
      expect(otherPeople.status).toBe(409);

      const tooMany = await scan(scanner, tid!, event.eid, { action: 'entry', people: 3 });
      expect(tooMany.status).toBe('party_exceeded');
      expect(tooMany.party).toEqual(party(5, 3, 3, 2));
      const two = await scan(scanner, tid!, event.eid, { action: 'entry', people: 2 });
      expect(two.status).toBe('valid');
      expect(two.party).toEqual(party(5, 5, 5, 0));
      expect(two.occupancy).toEqual({ inside: 5, capacity: 100 });
      const full = await scan(scanner, tid!, event.eid, { action: 'entry', people: 1 });
      expect(full.status).toBe('already_used');
      expect(full.party).toEqual(party(5, 5, 5, 0));

      const occupancy = await cliJson<{ inside: number; entries: number }>([
        'event',
        'occupancy',
        '--data',
        issuer.data,
        '--event',
        event.eid,
      ]);
      expect(occupancy.inside).toBe(5);
      expect(occupancy.entries).toBe(5);

      // A size below the people admitted is refused, and nothing changes.
      const lower = await cliFailure(['ticket', 'update', '--data', issuer.data, tid!, '--party', '4']);
      expect(lower.code).toBe('INVALID_ARGUMENT');
      expect(lower.message).toContain('below the 5 people of this ticket already admitted');
      expect((await status(scanner, tid!))['party']).toEqual(party(5, 5, 5, 0));
    },
    SLOW_MS,
  );

  it(
    'a spec scanner (no `people`, no `action`) admits one person a scan until the party is used up, then already_used',
    async () => {
      const event = await createEvent(issuer.data);
      const [tid] = await issueTickets(issuer.data, event.eid, 1, ['--party', '3']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await scan(scanner, tid!, event.eid));
      expect(answers.map((a) => a.status)).toEqual(['valid', 'valid', 'valid', 'already_used']);
      expect(answers.map((a) => a.party?.remaining)).toEqual([2, 1, 0, 0]);
      // The spec's fields are there as the spec has them (no presence for a spec scanner).
      for (const answer of answers) expect('presence' in answer.ticket).toBe(false);
    },
    SLOW_MS,
  );

  it(
    'a late part admitted offline counts what still fits and says how many were refused; one that finds the party full is already_used',
    async () => {
      const event = await createEvent(issuer.data);
      const [tid] = await issueTickets(issuer.data, event.eid, 1, ['--party', '5']);
      const online = await enroll(issuer.url, issuer.data, event.eid);
      const offline = await enroll(issuer.url, issuer.data, event.eid);
      const scannedOffline = new Date(Date.now() - 60_000).toISOString();

      expect((await scan(online, tid!, event.eid, { action: 'entry', people: 4 })).party).toEqual(party(5, 4, 4, 1));
      const late = await scan(offline, tid!, event.eid, { action: 'entry', people: 2, admitted_offline: true, scanned_at: scannedOffline });
      expect(late.status).toBe('valid');
      expect(late.party).toEqual(party(5, 5, 5, 0, 1));
      const later = await scan(offline, tid!, event.eid, {
        action: 'entry',
        people: 3,
        admitted_offline: true,
        scanned_at: scannedOffline,
      });
      expect(later.status).toBe('already_used');
      expect(later.party).toEqual(party(5, 5, 5, 0, 3));
      expect((await status(online, tid!))['party']).toEqual(party(5, 5, 5, 0));
    },
    SLOW_MS,
  );

  it(
    're-entry: exits and re-entries count people; the party is already_used only while all of it is inside; an annulment undoes the people',
    async () => {
      const event = await createEvent(issuer.data, ['--entry', 'reentry', '--capacity', '50']);
      const [tid] = await issueTickets(issuer.data, event.eid, 1, ['--party', '4']);
      // A supervisor's key: it may annul (docs/protocol.md "Roles and rights").
      const setup = await cliJson<{ setup_qr: string }>([
        'scanner',
        'setup',
        '--data',
        issuer.data,
        '--event',
        event.eid,
        '--role',
        'supervisor',
      ]);
      const scannerId = crypto.randomUUID();
      const enrolled = await enrollWith(issuer.url, decodeSetupCode(setup.setup_qr).token, scannerId);
      expect(enrolled.status).toBe(200);
      const scanner: HttpScanner = { apiKey: ((await enrolled.json()) as { api_key: string }).api_key, scannerId };

      expect((await scan(scanner, tid!, event.eid, { action: 'entry', people: 4 })).party).toEqual(party(4, 4, 4, 0));
      expect((await scan(scanner, tid!, event.eid, { action: 'entry' })).status).toBe('already_used');
      const out = await scan(scanner, tid!, event.eid, { action: 'exit', people: 3 });
      expect(out.status).toBe('exited');
      expect(out.ticket.presence).toBe('inside');
      expect(out.party).toEqual(party(4, 1, 4, 3));
      expect(out.occupancy).toEqual({ inside: 1, capacity: 50 });
      const back = await scan(scanner, tid!, event.eid, { action: 'entry', people: 2 });
      expect(back.party).toEqual(party(4, 3, 4, 1));
      const allOut = await scan(scanner, tid!, event.eid, { action: 'exit', people: 5 });
      expect(allOut.party).toEqual(party(4, 0, 4, 4));
      expect(allOut.ticket.presence).toBe('outside');
      expect((await scan(scanner, tid!, event.eid, { action: 'exit' })).status).toBe('not_inside');
      const occupancy = await cliJson<{ inside: number; entries: number; exits: number }>([
        'event',
        'occupancy',
        '--data',
        issuer.data,
        '--event',
        event.eid,
      ]);
      expect(occupancy).toMatchObject({ inside: 0, entries: 6, exits: 6 });

      expect((await scan(scanner, tid!, event.eid, { action: 'entry', people: 2 })).party).toEqual(party(4, 2, 4, 2));
      const annulled = await scan(scanner, tid!, event.eid, { action: 'annul', reason: 'wrong ticket' });
      expect(annulled.status).toBe('annulled');
      expect(annulled.party).toEqual(party(4, 0, 0, 4));
      expect((await status(scanner, tid!))['party']).toEqual(party(4, 0, 0, 4));
    },
    SLOW_MS,
  );

  it(
    'two doors admitting parts of one party at once: the party never exceeds its size (parallel parts)',
    async () => {
      const event = await createEvent(issuer.data);
      const [tid] = await issueTickets(issuer.data, event.eid, 1, ['--party', '10']);
      const doors = [await enroll(issuer.url, issuer.data, event.eid), await enroll(issuer.url, issuer.data, event.eid)];
      const parts = Array.from({ length: 16 }, (_, i) => ({ door: doors[i % 2]!, people: (i % 3) + 1 }));
      const answers = await Promise.all(parts.map((part) => scan(part.door, tid!, event.eid, { action: 'entry', people: part.people })));
      const admitted = answers.reduce((sum, answer, i) => sum + (answer.status === 'valid' ? parts[i]!.people : 0), 0);
      expect(admitted).toBeLessThanOrEqual(10);
      for (const answer of answers) expect(['valid', 'party_exceeded', 'already_used']).toContain(answer.status);
      const final = (await status(doors[0]!, tid!))['party'] as PartyState;
      expect(final.admitted_total).toBe(admitted);
      expect(final.inside).toBe(admitted);
      const occupancy = await cliJson<{ inside: number }>(['event', 'occupancy', '--data', issuer.data, '--event', event.eid]);
      expect(occupancy.inside).toBe(admitted);
      // Fill it up one by one: exactly the rest fit.
      let more = 0;
      for (let i = 0; i < 12; i++) if ((await scan(doors[1]!, tid!, event.eid, { action: 'entry' })).status === 'valid') more++;
      expect(admitted + more).toBe(10);
    },
    SLOW_MS,
  );
});
