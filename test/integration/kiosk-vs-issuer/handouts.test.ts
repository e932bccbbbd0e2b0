/**
 * Handouts, one answer online and offline (docs/protocol.md "Handouts (project extension)", docs/kiosk.md "Handouts"):
 * the SAME cases through the REAL issuer (HTTP on a loopback port, a real SQLite file) and through a KioskCore that
 * synced the notes list and then lost the issuer. A tap the issuer gives, the offline kiosk gives (kept in its queue);
 * a tap the issuer refuses, the offline kiosk refuses with the same reason, when and where. A second handout given
 * offline while another scanner gave it is refused by the issuer when the queue drains, and reported. A handout
 * station never checks in.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/handouts.test.ts
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { HandoutAnswer, HandoutItem } from '../../../protocol/handouts.js';
import { setTicketHandouts, setTypeHandouts } from '../../../issuer/store/handouts.js';
import type { GiveHandoutResult } from '../../../main/kiosk/kiosk-api.js';
import { enrollWith, eventually, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

const TYPE_ITEMS: HandoutItem[] = [
  { item: 'wristband', count: 1 },
  { item: 'drink voucher', count: 2 },
];

/** The ticket's own items, the items given before (by another scanner), the item tapped, and what both must say. */
const CASES: readonly [string, HandoutItem[], string[], string, 'given' | 'not_listed' | 'already_given'][] = [
  ['a wristband, none given', [], [], 'wristband', 'given'],
  ['a wristband given at another scanner', [], ['wristband'], 'wristband', 'already_given'],
  ['a second drink voucher of two', [], ['drink voucher'], 'drink voucher', 'given'],
  ['a third drink voucher of two', [], ['drink voucher', 'drink voucher'], 'drink voucher', 'already_given'],
  ['an item the ticket does not list', [], [], 'cap', 'not_listed'],
  ["the ticket's own item", [{ item: 'T-shirt M', count: 1 }], [], 'T-shirt M', 'given'],
  ["a type's item the ticket takes away", [{ item: 'wristband', count: 0 }], [], 'wristband', 'not_listed'],
];

async function post(scanner: { apiKey: string }, body: Record<string, unknown>): Promise<{ status: number; body: HandoutAnswer }> {
  const response = await fetch(`${rig.issuer.url}/api/v1/tickets/handouts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ handout_id: randomUUID(), given_at: new Date().toISOString(), ...body }),
  });
  return { status: response.status, body: (await response.json()) as HandoutAnswer };
}

const outcomeOf = (result: GiveHandoutResult): string =>
  result.type === 'handout_given' ? 'given' : result.type === 'handout_refused' ? result.reason : result.type;

describe('the same handout through the issuer and through an offline kiosk', () => {
  it.each(CASES)(
    '%s',
    async (_name, own, before, tapped, expected) => {
      const { fx, event } = rig.issuer;
      await setTypeHandouts(fx.sql, event.eid, 'VIP', TYPE_ITEMS, new Date().toISOString());
      const atIssuer = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'VIP' });
      const atKiosk = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'VIP' });
      const other = fx.enrollScanner(event.eid, { gateId: 'West' });
      for (const ticket of [atIssuer, atKiosk]) {
        await setTicketHandouts(fx.sql, ticket.tid, own);
        for (const item of before) expect((await post(other, { tid: ticket.tid, eid: event.eid, item })).body.status).toBe('given');
      }

      // Online: the issuer's answer to the tap.
      const scanner = fx.enrollScanner(event.eid);
      const online = await post(scanner, { tid: atIssuer.tid, eid: event.eid, item: tapped });
      expect(online.status).toBe(200);
      expect(online.body.status === 'given' ? 'given' : online.body.reason).toBe(expected);

      // Offline: the kiosk synced the list (items and handouts given), then lost the issuer.
      const keys = rig.kiosks.keychain('door');
      rig.kiosks.track(keys);
      const kiosk = rig.kiosks.open(keys, { db: 'door.db', heartbeatIntervalMs: 0, now: rig.clock });
      await enrollWith(kiosk, rig.issuer.setupCode().code);
      await kiosk.syncRevocations();
      await rig.issuer.stop();

      const verdict = verdictOf(await kiosk.scan(atKiosk.qr));
      expect(verdict.kind).toBe('admit');
      expect(verdict.offline).toBe(true);
      const shown = verdict.kind === 'admit' ? verdict.handouts : undefined;
      // The kiosk shows what the issuer knew before the tap: the same items, the same handouts given.
      const givenNow = online.body.status === 'given' ? tapped : null;
      expect(shown?.map((handout) => [handout.item, handout.count, handout.given.length])).toEqual(
        online.body.handouts.map((handout) => [handout.item, handout.count, handout.given.length - (handout.item === givenNow ? 1 : 0)]),
      );
      const tap = await kiosk.giveHandout(verdict.decided_at, tapped);
      expect(outcomeOf(tap)).toBe(expected);
      if (tap.type === 'handout_given') expect(tap.offline).toBe(true);
      if (expected === 'already_given' && tap.type === 'handout_refused') {
        // When and where, as the issuer says it.
        expect(tap.given.at(-1)).toMatchObject({ scanner: 'Test scanner', gate: 'West' });
        expect(online.body.given!.at(-1)).toMatchObject({ scanner: 'Test scanner', gate: 'West' });
      }
      // A second tap of an item given once: refused from the kiosk's own record.
      if (expected === 'given' && tapped === 'wristband') {
        const again = await kiosk.giveHandout(verdict.decided_at, tapped);
        expect(again).toMatchObject({ type: 'handout_refused', reason: 'already_given' });
      }
    },
    60_000,
  );

  it('a second handout given offline while another scanner gave it is refused by the issuer when the queue drains, and kept as refused', async () => {
    const { fx, event } = rig.issuer;
    await setTypeHandouts(fx.sql, event.eid, 'VIP', TYPE_ITEMS, new Date().toISOString());
    const ticket = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'VIP' });
    const keys = rig.kiosks.keychain('door');
    rig.kiosks.track(keys);
    const kiosk = rig.kiosks.open(keys, { db: 'door.db', heartbeatIntervalMs: 0, now: rig.clock });
    await enrollWith(kiosk, rig.issuer.setupCode().code);
    await kiosk.syncRevocations();
    // Another scanner gives the wristband after this kiosk's last sync; then this kiosk loses the issuer.
    const other = fx.enrollScanner(event.eid, { gateId: 'West' });
    expect((await post(other, { tid: ticket.tid, eid: event.eid, item: 'wristband' })).body.status).toBe('given');
    await rig.issuer.stop();
    const verdict = verdictOf(await kiosk.scan(ticket.qr));
    const tap = await kiosk.giveHandout(verdict.decided_at, 'wristband');
    expect(tap).toMatchObject({ type: 'handout_given', offline: true });

    // Committed before it was shown: the queue has it, and survives the kiosk being closed and opened again.
    const db = new Database(join(rig.kiosks.dir, 'door.db'), { readonly: true });
    const queued = db.prepare("SELECT hid, queue_state FROM handouts WHERE tid = ? AND item = 'wristband'").get(ticket.tid) as {
      hid: string;
      queue_state: string;
    };
    db.close();
    expect(queued.queue_state).toBe('pending');

    await rig.issuer.start();
    await kiosk.drain();
    await eventually(() => {
      const row = fx.db.prepare('SELECT status, reason FROM handouts WHERE hid = ?').get(queued.hid) as
        { status: string; reason: string } | undefined;
      return row?.status === 'refused';
    });
    expect(fx.db.prepare('SELECT status, reason, scanner_id FROM handouts WHERE hid = ?').get(queued.hid)).toMatchObject({
      status: 'refused',
      reason: 'already_given',
    });
    const after = new Database(join(rig.kiosks.dir, 'door.db'), { readonly: true });
    expect(after.prepare('SELECT queue_state, result_status FROM handouts WHERE hid = ?').get(queued.hid)).toEqual({
      queue_state: 'done',
      result_status: 'refused',
    });
    after.close();
    // Sent again (a lost answer), the issuer answers the same and records nothing twice.
    const scanner = fx.enrollScanner(event.eid);
    const replay = await post(scanner, {
      handout_id: queued.hid,
      tid: ticket.tid,
      eid: event.eid,
      item: 'wristband',
    });
    expect(replay.body).toMatchObject({ status: 'refused', reason: 'already_given' });
    expect((fx.db.prepare('SELECT COUNT(*) AS n FROM handouts WHERE tid = ?').get(ticket.tid) as { n: number }).n).toBe(2);
  }, 60_000);

  it('a handout station never checks in: its scan shows HANDOUT with the items, and its tap is given at the issuer', async () => {
    const { fx, event } = rig.issuer;
    await setTypeHandouts(fx.sql, event.eid, 'VIP', TYPE_ITEMS, new Date().toISOString());
    const ticket = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'VIP' });
    const setup = rig.issuer.setupCode();
    fx.db.prepare("UPDATE enrollment_tokens SET station = 'handout' WHERE token_id = ?").run(setup.tokenId);
    const keys = rig.kiosks.keychain('merch');
    rig.kiosks.track(keys);
    const kiosk = rig.kiosks.open(keys, { db: 'merch.db', heartbeatIntervalMs: 0, now: rig.clock });
    await enrollWith(kiosk, setup.code);
    await kiosk.syncRevocations();
    // The heartbeat tells the kiosk its key is a handout station's.
    await kiosk.heartbeat();
    const verdict = verdictOf(await kiosk.scan(ticket.qr));
    expect(verdict).toMatchObject({ kind: 'admit', station: 'handout', offline: false });
    expect(verdict.kind === 'admit' ? verdict.handouts?.map((handout) => handout.item) : null).toEqual(['wristband', 'drink voucher']);
    // Nothing was checked in, however often it was scanned.
    expect(rig.issuer.checkin(ticket.tid)).toBeUndefined();
    const tap = await kiosk.giveHandout(verdict.decided_at, 'wristband');
    expect(tap).toMatchObject({ type: 'handout_given', offline: false });
    expect(fx.db.prepare('SELECT status FROM handouts WHERE tid = ?').get(ticket.tid)).toEqual({ status: 'given' });
    // A ticket checked in at the door still gets its items at the station.
    const door = fx.enrollScanner(event.eid);
    const entry = await fetch(`${rig.issuer.url}/api/v1/tickets/check-in`, {
      method: 'POST',
      headers: { authorization: `Bearer ${door.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tid: ticket.tid,
        eid: event.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: door.scannerId,
        idempotency_key: randomUUID(),
      }),
    });
    expect(((await entry.json()) as { status: string }).status).toBe('valid');
    rig.skew += 7_000; // not a repeat read of the same code
    const later = verdictOf(await kiosk.scan(ticket.qr));
    expect(later).toMatchObject({ kind: 'admit', station: 'handout' });
    expect(later.kind === 'admit' ? later.handouts?.[0]?.given.length : null).toBe(1);
  }, 60_000);
});
