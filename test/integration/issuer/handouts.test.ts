/**
 * Handouts (docs/protocol.md "Handouts (project extension)") on SQLite and on PostgreSQL, all real: the built CLI
 * sets a type's items and a ticket's own, a `serve` on loopback answers status, check-ins, the synced notes list and
 * POST /api/v1/tickets/handouts over HTTP. A handout is idempotent by its id; one beyond the count is refused with
 * when and where the last was given; a handout station's key records handouts and never admits.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isNotesPage, type NotesPage } from '../../../protocol/attention.js';
import type { HandoutAnswer } from '../../../protocol/handouts.js';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { cliFailure, cliJson, createEvent, issueTickets, runCli } from '../../support/cli-harness.js';
import { enroll, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';

const SLOW_MS = 120_000;

describe.each<[Store]>(BOTH_STORES)('handouts on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Handout Tests', { servePerTest: true });

  const give = async (
    who: HttpScanner,
    body: { tid: string; eid: string; item: string; handout_id?: string; gate_id?: string },
  ): Promise<{ status: number; body: HandoutAnswer & { error?: { code: string } } }> => {
    const response = await fetch(`${issuer.url}/api/v1/tickets/handouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ handout_id: crypto.randomUUID(), given_at: new Date().toISOString(), ...body }),
    });
    return { status: response.status, body: (await response.json()) as HandoutAnswer & { error?: { code: string } } };
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
    cliJson<{ handouts: unknown[] }>(['event', 'ticket-type', 'set', '--data', issuer.data, '--event', eid, '--type', type, ...flags]);

  /** A setup code of `role`, exchanged for a key named `name`. */
  const enrollAs = async (eid: string, role: string, name: string): Promise<HttpScanner> => {
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', eid, '--role', role]);
    const scannerId = crypto.randomUUID();
    const response = await fetch(`${issuer.url}/api/v1/scanners/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: decodeSetupCode(setup.setup_qr).token, scanner_id: scannerId, scanner_name: name }),
    });
    expect(response.status).toBe(200);
    return { apiKey: ((await response.json()) as { api_key: string }).api_key, scannerId };
  };

  it(
    "a type's items merged with a ticket's own reach the status and check-in answers and the synced list",
    async () => {
      const event = await createEvent(issuer.data);
      const set = await typeSet(event.eid, 'VIP', '--handout', 'wristband', '--handout', '2 drink voucher');
      expect(set.handouts).toEqual([
        {
          ticket_type: 'VIP',
          items: [
            { item: 'wristband', count: 1 },
            { item: 'drink voucher', count: 2 },
          ],
        },
      ]);
      const [vip] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'VIP', '--handout', 'T-shirt M', '--handout', '0 wristband']);
      const [plainVip] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'VIP']);
      const [none] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'Standard']);
      const scanner = await enroll(issuer.url, issuer.data, event.eid);

      expect((await status(scanner, vip!))['handouts']).toEqual([
        { item: 'drink voucher', count: 2, given: [] },
        { item: 'T-shirt M', count: 1, given: [] },
      ]);
      expect((await status(scanner, plainVip!))['handouts']).toEqual([
        { item: 'wristband', count: 1, given: [] },
        { item: 'drink voucher', count: 2, given: [] },
      ]);
      expect('handouts' in (await status(scanner, none!))).toBe(false);

      const checkIn = await postCheckIn(issuer.url, scanner, {
        tid: plainVip!,
        eid: event.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.scannerId,
        idempotency_key: crypto.randomUUID(),
      });
      const answer = JSON.parse(checkIn.text) as Record<string, unknown>;
      expect(answer['status']).toBe('valid');
      expect(answer['handouts']).toEqual([
        { item: 'wristband', count: 1, given: [] },
        { item: 'drink voucher', count: 2, given: [] },
      ]);

      const page = await notes(scanner);
      expect(page.handout_types).toEqual(set.handouts);
      expect(page.handouts).toEqual([
        [
          vip!,
          [
            { item: 'T-shirt M', count: 1 },
            { item: 'wristband', count: 0 },
          ],
          [],
        ],
      ]);

      // A handout given moves the ticket in the list, with when and where.
      expect((await give(scanner, { tid: plainVip!, eid: event.eid, item: 'wristband', gate_id: 'North' })).body.status).toBe('given');
      const after = await notes(scanner, page.next);
      expect(after.tickets.map((row) => row[0])).toEqual([plainVip!]);
      expect(after.handouts).toHaveLength(1);
      expect(after.handouts![0]![2]).toEqual([expect.objectContaining({ item: 'wristband', gate: 'North', scanner: expect.any(String) })]);

      // ticket update replaces the ticket's own; --no-handouts leaves the type's.
      await cliJson(['ticket', 'update', vip!, '--data', issuer.data, '--no-handouts']);
      expect(((await status(scanner, vip!))['handouts'] as unknown[]).length).toBe(2);
      const shown = await cliJson<Record<string, unknown>>(['ticket', 'show', vip!, '--data', issuer.data]);
      expect(shown['handouts']).toEqual([
        { item: 'wristband', count: 1, given: [] },
        { item: 'drink voucher', count: 2, given: [] },
      ]);
    },
    SLOW_MS,
  );

  it(
    'a handout is idempotent by its id; one beyond the count is refused with when and where; an item not listed is refused',
    async () => {
      const event = await createEvent(issuer.data);
      await typeSet(event.eid, 'VIP', '--handout', 'wristband', '--handout', '2 drink voucher');
      const [tid] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'VIP']);
      const door = await enrollAs(event.eid, 'steward', 'Door North');
      const bar = await enrollAs(event.eid, 'steward', 'Bar West');

      const hid = crypto.randomUUID();
      const first = await give(door, { tid: tid!, eid: event.eid, item: 'wristband', handout_id: hid, gate_id: 'North' });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ handout_id: hid, status: 'given', item: 'wristband' });
      expect(first.body.handouts[0]!.given).toEqual([expect.objectContaining({ hid, gate: 'North', scanner: 'Door North' })]);

      // The same id again (a lost answer, a drain after a crash): the same answer, nothing recorded twice.
      const again = await give(door, { tid: tid!, eid: event.eid, item: 'wristband', handout_id: hid, gate_id: 'North' });
      expect(again.body).toMatchObject({ handout_id: hid, status: 'given' });
      expect(again.body.handouts[0]!.given).toHaveLength(1);
      // The same id for another item: the spec's reused-key conflict.
      const reused = await give(door, { tid: tid!, eid: event.eid, item: 'drink voucher', handout_id: hid });
      expect(reused.status).toBe(409);
      expect(reused.body.error?.code).toBe('IDEMPOTENCY_CONFLICT');

      // A second wristband at another scanner: refused, saying when and where the first was given.
      const second = await give(bar, { tid: tid!, eid: event.eid, item: 'wristband', gate_id: 'West' });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ status: 'refused', reason: 'already_given' });
      expect(second.body.given).toEqual([{ hid, at: expect.any(String), gate: 'North', scanner: 'Door North' }]);

      // Two drink vouchers, then a third refused.
      expect((await give(bar, { tid: tid!, eid: event.eid, item: 'drink voucher' })).body.status).toBe('given');
      expect((await give(bar, { tid: tid!, eid: event.eid, item: 'drink voucher' })).body.status).toBe('given');
      expect((await give(door, { tid: tid!, eid: event.eid, item: 'drink voucher' })).body).toMatchObject({
        status: 'refused',
        reason: 'already_given',
      });
      expect((await give(door, { tid: tid!, eid: event.eid, item: 'cap' })).body).toMatchObject({
        status: 'refused',
        reason: 'not_listed',
      });

      // Two kiosks racing for the last of an item: exactly one is given.
      const [raced] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'VIP']);
      const race = await Promise.all(
        Array.from({ length: 6 }, (_, i) => give(i % 2 === 0 ? door : bar, { tid: raced!, eid: event.eid, item: 'wristband' })),
      );
      expect(race.filter((answer) => answer.body.status === 'given')).toHaveLength(1);

      // Malformed: an unknown ticket, another event's ticket, a control character in the item, a missing id.
      expect((await give(door, { tid: 'nope', eid: event.eid, item: 'wristband' })).status).toBe(404);
      const other = await createEvent(issuer.data);
      const [foreign] = await issueTickets(issuer.data, other.eid, 1);
      expect((await give(door, { tid: foreign!, eid: other.eid, item: 'wristband' })).status).toBe(403);
      const bad = await give(door, { tid: tid!, eid: event.eid, item: 'wrist\u0007band' });
      expect(bad.status).toBe(400);
      const missing = await fetch(`${issuer.url}/api/v1/tickets/handouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${door.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tid, eid: event.eid, item: 'wristband', given_at: new Date().toISOString() }),
      });
      expect(missing.status).toBe(400);

      // The export lists every handout, given and refused, with its scanner and gate; counts per item.
      const exported = await cliJson<Array<Record<string, unknown>>>(['handouts', 'export', '--data', issuer.data, '--event', event.eid]);
      expect(exported.filter((row) => row['tid'] === tid && row['status'] === 'given')).toHaveLength(3);
      expect(exported.find((row) => row['hid'] === second.body.handout_id)).toMatchObject({
        status: 'refused',
        reason: 'already_given',
        scanner_name: 'Bar West',
        gate_id: 'West',
      });
      const counts = await cliJson<{ items: unknown[] }>(['handouts', 'counts', '--data', issuer.data, '--event', event.eid]);
      expect(counts.items).toEqual([
        { item: 'cap', given: 0, refused: 1 },
        { item: 'drink voucher', given: 2, refused: 1 },
        { item: 'wristband', given: 2, refused: 6 },
      ]);
      const csv = await runCli(['handouts', 'export', '--data', issuer.data, '--event', event.eid]);
      expect(csv.stdout.split('\n')[0]).toBe(
        'handout_id,tid,item,status,reason,given_at,received_at,scanner_id,scanner_name,gate_id,staff_id',
      );
    },
    SLOW_MS,
  );

  it(
    "a handout station's key records handouts and reads status, and is refused every check-in, badge or not",
    async () => {
      const event = await createEvent(issuer.data);
      await typeSet(event.eid, 'VIP', '--handout', 'wristband');
      const [tid] = await issueTickets(issuer.data, event.eid, 1, ['--type', 'VIP']);
      const station = await enrollAs(event.eid, 'handout', 'Merch 1');
      const checkIn = await postCheckIn(issuer.url, station, {
        tid: tid!,
        eid: event.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: station.scannerId,
        idempotency_key: crypto.randomUUID(),
      });
      expect(checkIn.status).toBe(403);
      expect((await status(station, tid!))['status']).toBe('valid');
      expect((await give(station, { tid: tid!, eid: event.eid, item: 'wristband' })).body.status).toBe('given');
      const listed = await cliJson<{ scanners?: Array<{ role: string }> } | Array<{ role: string }>>([
        'scanner',
        'list',
        '--data',
        issuer.data,
        '--event',
        event.eid,
      ]);
      expect(JSON.stringify(listed)).toContain('handout');
    },
    SLOW_MS,
  );

  it(
    'the CLI refuses malformed items, naming the flag',
    async () => {
      const event = await createEvent(issuer.data);
      for (const bad of ['21 cups', 'x'.repeat(41), 'wrist\u0007band', '0 wristband']) {
        const failure = await cliFailure([
          'event',
          'ticket-type',
          'set',
          '--data',
          issuer.data,
          '--event',
          event.eid,
          '--type',
          'VIP',
          '--handout',
          bad,
        ]);
        expect(failure.stderr).toContain('--handout');
      }
      const many = Array.from({ length: 11 }, (_, i) => ['--handout', `item ${i}`]).flat();
      expect((await cliFailure(['ticket', 'issue', '--data', issuer.data, '--event', event.eid, ...many])).stderr).toContain('--handout');
      expect((await cliFailure(['scanner', 'setup', '--data', issuer.data, '--event', event.eid, '--role', 'merch'])).stderr).toContain(
        'handout',
      );
    },
    SLOW_MS,
  );
});
